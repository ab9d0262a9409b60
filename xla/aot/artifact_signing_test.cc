// Signing end to end: keys on disk, artifacts compiled and signed by the
// compiler, loaded under every trust policy, and tampered with.
#include "xla/aot/artifact_signing.h"

#include <sys/stat.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/aot/compile.h"
#include "xla/aot/executable.h"
#include "xla/aot/literal_execution.h"
#include "xla/backends/gpu/runtime/checksum.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/util/proto_util.h"

namespace xla::aot {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string TempDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/", name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// exp(x - max(x)) over the rows of an odd-sized matrix: one host kernel.
constexpr char kSoftmaxish[] = R"(
HloModule softmaxish
max { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT m = f32[] maximum(a, b) }
ENTRY e {
  p = f32[5,37] parameter(0)
  c = f32[] constant(-inf)
  m = f32[5] reduce(p, c), dimensions={1}, to_apply=max
  b = f32[5,37] broadcast(m), dimensions={0}
  s = f32[5,37] subtract(p, b)
  ROOT x = f32[5,37] exponential(s)
}
)";

// No kernels at all: a copy thunk (an artifact without host code).
constexpr char kCopyOnly[] = R"(
HloModule copy_only
ENTRY e {
  p = f32[7] parameter(0)
  ROOT c = f32[7] copy(p)
}
)";

struct Keys {
  std::string dir;
  SigningKey mine, theirs;
};

Keys MakeKeys(const std::string& name) {
  Keys k;
  k.dir = TempDir(name);
  EXPECT_TRUE(WriteKeyPair(*GenerateSigningKey(), k.dir + "/mine").ok());
  EXPECT_TRUE(WriteKeyPair(*GenerateSigningKey(), k.dir + "/theirs").ok());
  k.mine = *ReadSigningKeyFile(k.dir + "/mine.secret");
  k.theirs = *ReadSigningKeyFile(k.dir + "/theirs.secret");
  return k;
}

std::string CompileText(absl::string_view hlo, const std::string& sign_key = "") {
  CompileOptions options;
  options.host_cpu_variants = {};
  options.sign_key = sign_key;
  absl::StatusOr<CompiledArtifact> compiled = Compile(hlo, options);
  EXPECT_TRUE(compiled.ok()) << compiled.status();
  return compiled.ok() ? compiled->bytes : std::string();
}

LoadOptions Trusting(const SigningKey& key, UnsignedPolicy unsigned_artifacts = UnsignedPolicy::kAllow) {
  LoadOptions options;
  options.trust.trusted_keys.push_back(key.public_key);
  options.trust.unsigned_artifacts = unsigned_artifacts;
  return options;
}

TEST(KeyFilesTest, WriteReadAndRefuseToOverwriteOrLeak) {
  const std::string dir = TempDir("keyfiles");
  absl::StatusOr<SigningKey> key = GenerateSigningKey();
  ASSERT_TRUE(key.ok());
  ASSERT_TRUE(WriteKeyPair(*key, dir + "/k").ok());
  struct stat st;
  ASSERT_EQ(stat((dir + "/k.secret").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  absl::StatusOr<SigningKey> back = ReadSigningKeyFile(dir + "/k.secret");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->secret, key->secret);
  EXPECT_EQ(back->public_key.id, key->public_key.id);
  absl::StatusOr<gpu::PublicKey> pub = gpu::ReadPublicKeyFile(dir + "/k.pub");
  ASSERT_TRUE(pub.ok()) << pub.status();
  EXPECT_EQ(pub->key, key->public_key.key);

  EXPECT_TRUE(absl::IsAlreadyExists(WriteKeyPair(*GenerateSigningKey(), dir + "/k")));
  EXPECT_EQ(ReadSigningKeyFile(dir + "/k.secret")->public_key.id, key->public_key.id);  // unchanged

  chmod((dir + "/k.secret").c_str(), 0644);
  absl::Status readable = ReadSigningKeyFile(dir + "/k.secret").status();
  EXPECT_TRUE(absl::IsPermissionDenied(readable)) << readable;
  EXPECT_THAT(readable.message(), HasSubstr("chmod 600"));
  chmod((dir + "/k.secret").c_str(), 0600);

  // A damaged secret (one bit of its public half) is refused.
  std::string text;
  std::getline(std::ifstream(dir + "/k.secret"), text);
  ASSERT_TRUE(WriteKeyPair(*key, dir + "/copy").ok());
  fs::remove(dir + "/copy.secret");
  std::string damaged = text;
  damaged[damaged.size() - 5] = damaged[damaged.size() - 5] == 'A' ? 'B' : 'A';
  std::ofstream(dir + "/copy.secret") << damaged << "\n";
  chmod((dir + "/copy.secret").c_str(), 0600);
  EXPECT_THAT(ReadSigningKeyFile(dir + "/copy.secret").status().message(), HasSubstr("damaged"));
  EXPECT_THAT(ReadSigningKeyFile(dir + "/k.pub").status().message(), HasSubstr("may be read by others"));
  EXPECT_TRUE(absl::IsNotFound(ReadSigningKeyFile(dir + "/none.secret").status()));
}

TEST(KeyFilesTest, LoadOrCreateMakesTheKeyOnceAndKeepsIt) {
  const std::string dir = TempDir("load_or_create");
  absl::StatusOr<SigningKey> first = LoadOrCreateSigningKey(dir + "/sub/dir/key");
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<SigningKey> second = LoadOrCreateSigningKey(dir + "/sub/dir/key");
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(first->public_key.id, second->public_key.id);
  EXPECT_TRUE(fs::exists(dir + "/sub/dir/key.pub"));
}

TEST(SignedArtifactTest, CompiledWithAKeyLoadsOnlyWhenTrustedAndRunsRight) {
  Keys k = MakeKeys("signed_runs");
  const std::string bytes = CompileText(kSoftmaxish, k.dir + "/mine.secret");
  // Refused by default (no trusted keys), by another key, and by a policy
  // that trusts only unsigned artifacts' absence of host code.
  absl::Status by_default = Executable::LoadFromBytes(bytes).status();
  EXPECT_TRUE(absl::IsPermissionDenied(by_default)) << by_default;
  EXPECT_THAT(by_default.message(), HasSubstr(k.mine.public_key.id));
  EXPECT_THAT(Executable::LoadFromBytes(bytes, Trusting(k.theirs)).status().message(), HasSubstr("not trusted"));

  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(bytes, Trusting(k.mine));
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_TRUE((*exe)->program().signature.is_signed);
  EXPECT_TRUE((*exe)->program().signature.verified);
  EXPECT_EQ((*exe)->program().signature.key_id, k.mine.public_key.id);
  Literal x(Shape::Array(PrimitiveType::F32, {5, 37}));
  for (int64_t i = 0; i < x.element_count(); ++i) x.SetDouble(i, std::sin(0.37 * i) * 3);
  absl::StatusOr<std::vector<Literal>> out = ExecuteOnLiterals(**exe, gpu::testing::HostExecutor(), {x});
  ASSERT_TRUE(out.ok()) << out.status();
  for (int64_t r = 0; r < 5; ++r) {
    double max = -INFINITY;
    for (int64_t c = 0; c < 37; ++c) max = std::max(max, x.GetDouble(r * 37 + c));
    for (int64_t c = 0; c < 37; ++c) {
      const double want = std::exp(x.GetDouble(r * 37 + c) - max);
      EXPECT_NEAR((*out)[0].GetDouble(r * 37 + c), want, 1e-6 * want + 1e-7);
    }
  }
  // The same through a file (read whole) and a parsed proto.
  const std::string path = k.dir + "/signed.xaot";
  std::ofstream(path, std::ios::binary) << bytes;
  EXPECT_TRUE(Executable::LoadFromFile(path, Trusting(k.mine)).ok());
  EXPECT_FALSE(Executable::LoadFromFile(path).ok());
  auto proto = std::make_unique<ArtifactProto>();
  ASSERT_TRUE(proto->ParseFromString(bytes));
  EXPECT_TRUE(Executable::LoadFromProto(std::move(proto), Trusting(k.mine)).ok());
}

TEST(SignedArtifactTest, LargeMappedArtifactVerifiesOverItsStoredBytes) {
  Keys k = MakeKeys("signed_large");
  gpu::GpuExecutableProto artifact;
  ASSERT_TRUE(artifact.ParseFromString(CompileText(kSoftmaxish)));
  // 3.5 MiB of HLO text (for humans only) makes a payload of several leaves
  // and a file that is memory-mapped.
  artifact.mutable_payload()->set_optimized_hlo_text(std::string((size_t{7} << 19) + 3, 'h'));
  gpu::SealArtifact(&artifact);
  ASSERT_TRUE(SignArtifact(k.mine, &artifact).ok());
  const std::string bytes = SerializeDeterministically(artifact);
  const std::string path = k.dir + "/large.xaot";
  std::ofstream(path, std::ios::binary) << bytes;
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromFile(path, Trusting(k.mine));
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_TRUE((*exe)->program().signature.verified);
  std::string flipped = bytes;
  flipped[bytes.size() - 1000] ^= 0x20;  // inside the HLO text, in the last leaf
  std::ofstream(path, std::ios::binary | std::ios::trunc) << flipped;
  absl::Status refused = Executable::LoadFromFile(path, Trusting(k.mine)).status();
  // The checksum would catch it too; the signature is checked first.
  EXPECT_TRUE(absl::IsPermissionDenied(refused)) << refused;
  EXPECT_THAT(refused.message(), HasSubstr("does not verify"));
}

// Each edit after signing, with the checksum recomputed where it covers
// the edit, is refused before anything else is checked.
TEST(SignedArtifactTest, EveryEditAfterSigningIsRefused) {
  Keys k = MakeKeys("tamper");
  gpu::GpuExecutableProto good;
  ASSERT_TRUE(good.ParseFromString(CompileText(kSoftmaxish, k.dir + "/mine.secret")));
  ASSERT_TRUE(Executable::LoadFromBytes(good.SerializeAsString(), Trusting(k.mine)).ok());
  struct Edit {
    const char* what;
    void (*apply)(gpu::GpuExecutableProto*);
    const char* message;
  };
  const Edit edits[] = {
      {"one payload byte, resealed",
       [](gpu::GpuExecutableProto* a) {
         std::string* so = a->mutable_payload()->mutable_host_shared_object();
         (*so)[so->size() / 2] ^= 1;
         gpu::SealArtifact(a);
       },
       "does not verify"},
      {"the module name, resealed",
       [](gpu::GpuExecutableProto* a) {
         a->mutable_payload()->set_module_name("other");
         gpu::SealArtifact(a);
       },
       "does not verify"},
      {"one signature byte",
       [](gpu::GpuExecutableProto* a) { (*a->mutable_header()->mutable_signature()->mutable_signature())[10] ^= 4; },
       "does not verify"},
      {"the key id", [](gpu::GpuExecutableProto* a) { a->mutable_header()->mutable_signature()->set_key_id("0000000000000000"); },
       "not trusted"},
      {"the production date (header)",
       [](gpu::GpuExecutableProto* a) { a->mutable_header()->set_production_date("2030-01-01T00:00:00Z"); },
       "does not verify"},
      {"a required feature removed (header)",
       [](gpu::GpuExecutableProto* a) { a->mutable_header()->clear_required_runtime_features(); },
       "does not verify"},
      {"the signature removed",
       [](gpu::GpuExecutableProto* a) { a->mutable_header()->clear_signature(); },
       nullptr},  // then it is unsigned: allowed or not by the policy
  };
  for (const Edit& e : edits) {
    gpu::GpuExecutableProto edited = good;
    e.apply(&edited);
    absl::Status s = Executable::LoadFromBytes(edited.SerializeAsString(), Trusting(k.mine)).status();
    if (e.message == nullptr) {
      EXPECT_TRUE(s.ok()) << e.what << ": " << s;
      LoadOptions strict = Trusting(k.mine, UnsignedPolicy::kRefuse);
      s = Executable::LoadFromBytes(edited.SerializeAsString(), strict).status();
      EXPECT_THAT(s.message(), HasSubstr("not signed")) << e.what;
      continue;
    }
    EXPECT_TRUE(absl::IsPermissionDenied(s)) << e.what << ": " << s;
    EXPECT_THAT(s.message(), HasSubstr(e.message)) << e.what;
  }
  // Another signer's valid signature over the same artifact: refused by a
  // loader trusting only "mine", accepted by one trusting "theirs".
  gpu::GpuExecutableProto resigned = good;
  ASSERT_TRUE(SignArtifact(k.theirs, &resigned).ok());
  EXPECT_FALSE(Executable::LoadFromBytes(resigned.SerializeAsString(), Trusting(k.mine)).ok());
  EXPECT_TRUE(Executable::LoadFromBytes(resigned.SerializeAsString(), Trusting(k.theirs)).ok());
}

TEST(UnsignedArtifactTest, EachPolicyOnArtifactsWithAndWithoutHostCode) {
  Keys k = MakeKeys("unsigned");
  const std::string with_code = CompileText(kSoftmaxish);
  const std::string without_code = CompileText(kCopyOnly);
  gpu::GpuExecutableProto parsed;
  ASSERT_TRUE(parsed.ParseFromString(without_code));
  ASSERT_TRUE(parsed.payload().host_shared_object().empty());  // the premise of the test
  const struct {
    UnsignedPolicy policy;
    bool with_code_loads, without_code_loads;
  } cases[] = {
      {UnsignedPolicy::kAllow, true, true},
      {UnsignedPolicy::kAllowWithoutHostCode, false, true},
      {UnsignedPolicy::kRefuse, false, false},
  };
  for (const auto& c : cases) {
    const LoadOptions options = Trusting(k.mine, c.policy);
    absl::Status with = Executable::LoadFromBytes(with_code, options).status();
    absl::Status without = Executable::LoadFromBytes(without_code, options).status();
    EXPECT_EQ(with.ok(), c.with_code_loads) << gpu::UnsignedPolicyName(c.policy) << ": " << with;
    EXPECT_EQ(without.ok(), c.without_code_loads) << gpu::UnsignedPolicyName(c.policy) << ": " << without;
    if (!with.ok()) {
      EXPECT_TRUE(absl::IsPermissionDenied(with));
    }
  }
  // Signed, either loads under the strictest policy.
  const LoadOptions strict = Trusting(k.mine, UnsignedPolicy::kRefuse);
  EXPECT_TRUE(Executable::LoadFromBytes(CompileText(kSoftmaxish, k.dir + "/mine.secret"), strict).ok());
  EXPECT_TRUE(Executable::LoadFromBytes(CompileText(kCopyOnly, k.dir + "/mine.secret"), strict).ok());
}

TEST(SignArtifactBytesTest, SignsWhatWasCompiledUnsignedAndRefusesNonArtifacts) {
  Keys k = MakeKeys("sign_bytes");
  const std::string unsigned_bytes = CompileText(kSoftmaxish);
  absl::StatusOr<std::string> signed_bytes = SignArtifactBytes(k.mine, unsigned_bytes, "a.xaot");
  ASSERT_TRUE(signed_bytes.ok()) << signed_bytes.status();
  EXPECT_TRUE(Executable::LoadFromBytes(*signed_bytes, Trusting(k.mine)).ok());
  // Re-signing replaces the signature.
  absl::StatusOr<std::string> again = SignArtifactBytes(k.theirs, *signed_bytes, "a.xaot");
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(Executable::LoadFromBytes(*again, Trusting(k.mine)).ok());
  EXPECT_TRUE(Executable::LoadFromBytes(*again, Trusting(k.theirs)).ok());
  EXPECT_THAT(SignArtifactBytes(k.mine, "not an artifact", "junk.xaot").status().message(),
              HasSubstr("junk.xaot is not a valid GpuExecutableProto artifact"));
  CompileOptions options;
  options.sign_key = k.dir + "/missing.secret";
  EXPECT_TRUE(absl::IsNotFound(Compile(kSoftmaxish, options).status()));
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A signature made on 2026-12-02 (xla_aot sign over the golden host/v4
// softmax artifact, compiled 2026-11-30) keeps verifying: the digests and
// the signed message are a contract too. Never regenerate these files.
TEST(StoredSignatureTest, ASignatureFromTheFirstDayStillVerifies) {
  const std::string dir = "xla/backends/gpu/runtime/testdata/signed/";
  const std::string bytes = ReadFile(dir + "softmax_v4_signed.xaot");
  absl::StatusOr<gpu::PublicKey> key = gpu::ReadPublicKeyFile(dir + "signer.pub");
  ASSERT_TRUE(key.ok()) << key.status();
  LoadOptions options;
  options.trust.trusted_keys.push_back(*key);
  options.trust.unsigned_artifacts = UnsignedPolicy::kRefuse;
  for (bool from_file : {false, true}) {
    absl::StatusOr<std::unique_ptr<Executable>> exe =
        from_file ? Executable::LoadFromFile(dir + "softmax_v4_signed.xaot", options)
                  : Executable::LoadFromBytes(bytes, options);
    ASSERT_TRUE(exe.ok()) << exe.status();
    EXPECT_TRUE((*exe)->program().signature.verified);
    EXPECT_EQ((*exe)->program().signature.key_id, key->id);
  }
  EXPECT_FALSE(Executable::LoadFromBytes(bytes).ok());  // nobody trusted
  // The payload is the golden's, unchanged by signing.
  gpu::GpuExecutableProto signed_artifact, golden;
  ASSERT_TRUE(signed_artifact.ParseFromString(bytes));
  ASSERT_TRUE(golden.ParseFromString(
      ReadFile("tests/aot_compatibility/gpu/executables/host/v4/softmax/artifact.xaot")));
  EXPECT_EQ(SerializeDeterministically(signed_artifact.payload()), SerializeDeterministically(golden.payload()));
}

}  // namespace
}  // namespace xla::aot
