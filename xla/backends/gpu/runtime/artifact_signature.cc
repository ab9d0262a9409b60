#include "xla/backends/gpu/runtime/artifact_signature.h"

#include <sodium.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "xla/util/parallel_for.h"
#include "xla/util/proto_util.h"

namespace xla::gpu {
namespace {

static_assert(sizeof(crypto_generichash_state) == 384, "libsodium's BLAKE2b state changed size");
static_assert(crypto_sign_PUBLICKEYBYTES == kPublicKeyBytes);
static_assert(crypto_sign_BYTES == kSignatureBytes);

constexpr char kSignatureDomain[] = "xla_aot.signature.v1";  // 20 bytes
constexpr char kPayloadDomain[] = "xla_aot.payload.v1";
constexpr char kKeyIdDomain[] = "xla_aot.key_id.v1";
constexpr int kMaxDigestThreads = 16;

absl::Status Denied(absl::string_view what) {
  return absl::PermissionDeniedError(absl::StrCat("header.signature: ", what));
}

Digest DigestOf(absl::string_view bytes) {
  Blake2b256 hash;
  hash.Update(bytes);
  return hash.Finish();
}

void AppendLittleEndian64(uint64_t value, std::string* out) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

bool IsKeyId(absl::string_view id) {
  if (id.size() != kKeyIdChars) return false;
  for (char c : id) {
    if (!absl::ascii_isdigit(c) && !(c >= 'a' && c <= 'f')) return false;
  }
  return true;
}

}  // namespace

absl::Status InitSodium() {
  static const int result = sodium_init();  // 0 first time, 1 when already done
  if (result < 0) {
    return absl::InternalError(
        "libsodium failed to initialize (no usable random source?); signatures cannot be checked");
  }
  return absl::OkStatus();
}

Blake2b256::Blake2b256() {
  (void)InitSodium();  // only the random source can fail; hashing needs none
  crypto_generichash_init(reinterpret_cast<crypto_generichash_state*>(state_), nullptr, 0, kDigestBytes);
}

void Blake2b256::Update(absl::string_view bytes) {
  crypto_generichash_update(reinterpret_cast<crypto_generichash_state*>(state_),
                            reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
}

Digest Blake2b256::Finish() {
  Digest out;
  crypto_generichash_final(reinterpret_cast<crypto_generichash_state*>(state_), out.data(), out.size());
  return out;
}

Digest PayloadDigest(absl::string_view payload, int threads, absl::FunctionRef<void()> alongside) {
  const size_t leaves = (payload.size() + kPayloadLeafBytes - 1) / kPayloadLeafBytes;
  std::string root(kPayloadDomain);
  AppendLittleEndian64(payload.size(), &root);
  AppendLittleEndian64(kPayloadLeafBytes, &root);
  const size_t leaves_at = root.size();
  root.resize(leaves_at + leaves * kDigestBytes);
  // Task 0 is `alongside`, first so that it overlaps the leaves.
  const int64_t tasks = static_cast<int64_t>(leaves) + 1;
  // One leaf is not worth a thread (starting one costs about what hashing
  // 100 KiB does).
  const int workers = leaves <= 1 ? 1 : ThreadCount(threads, kMaxDigestThreads);
  ParallelForEach(tasks, workers, [&](int64_t task) {
    if (task == 0) {
      alongside();
      return;
    }
    const int64_t i = task - 1;
    const Digest leaf = DigestOf(payload.substr(static_cast<size_t>(i) * kPayloadLeafBytes, kPayloadLeafBytes));
    std::memcpy(root.data() + leaves_at + static_cast<size_t>(i) * kDigestBytes, leaf.data(), kDigestBytes);
  });
  return DigestOf(root);
}

ArtifactDigests DigestsOf(const GpuExecutableProto& artifact) {
  ArtifactHeaderProto header = artifact.header();
  header.clear_signature();
  ArtifactDigests digests;
  digests.header = DigestOf(SerializeDeterministically(header));
  digests.payload = PayloadDigest(SerializeDeterministically(artifact.payload()));
  return digests;
}

std::string SignedMessage(absl::string_view key_id, const ArtifactDigests& digests) {
  std::string message(kSignatureDomain);
  message.append(key_id.data(), key_id.size());
  message.append(reinterpret_cast<const char*>(digests.header.data()), kDigestBytes);
  message.append(reinterpret_cast<const char*>(digests.payload.data()), kDigestBytes);
  return message;
}

std::string KeyIdOf(const std::array<uint8_t, kPublicKeyBytes>& key) {
  Blake2b256 hash;
  hash.Update(kKeyIdDomain);
  hash.Update(absl::string_view(reinterpret_cast<const char*>(key.data()), key.size()));
  const Digest digest = hash.Finish();
  return absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(digest.data()), kKeyIdChars / 2));
}

std::string FormatPublicKey(const PublicKey& key) {
  std::string base64;
  absl::Base64Escape(absl::string_view(reinterpret_cast<const char*>(key.key.data()), key.key.size()), &base64);
  return absl::StrCat(kPublicKeyTag, " ", base64, "\n");
}

absl::StatusOr<PublicKey> ParsePublicKey(absl::string_view text, absl::string_view what) {
  text = absl::StripAsciiWhitespace(text);
  const std::string prefix = absl::StrCat(kPublicKeyTag, " ");
  if (!absl::StartsWith(text, prefix)) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " is not an xla_aot public key: it must be one line '", kPublicKeyTag,
        " <base64>' as `xla_aot keygen` writes it (a .secret file is the private half)"));
  }
  std::string bytes;
  if (!absl::Base64Unescape(text.substr(prefix.size()), &bytes) || bytes.size() != kPublicKeyBytes) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": the key is not ", kPublicKeyBytes,
                                                   " bytes of base64 (", bytes.size(), " decoded)"));
  }
  PublicKey key;
  std::memcpy(key.key.data(), bytes.data(), kPublicKeyBytes);
  key.id = KeyIdOf(key.key);
  return key;
}

absl::StatusOr<PublicKey> ReadPublicKeyFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read public key file ", path));
  std::string text;
  // A key file is one short line; more is not a key.
  text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (text.size() > 4096) {
    return absl::InvalidArgumentError(absl::StrCat(path, " is not an xla_aot public key (", text.size(), " bytes)"));
  }
  return ParsePublicKey(text, path);
}

absl::StatusOr<UnsignedPolicy> ParseUnsignedPolicy(absl::string_view name) {
  if (name == "allow") return UnsignedPolicy::kAllow;
  if (name == "no_host_code") return UnsignedPolicy::kAllowWithoutHostCode;
  if (name == "refuse") return UnsignedPolicy::kRefuse;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown unsigned-artifact policy '", name, "' (allow, no_host_code or refuse)"));
}

absl::string_view UnsignedPolicyName(UnsignedPolicy policy) {
  switch (policy) {
    case UnsignedPolicy::kAllow:
      return "allow";
    case UnsignedPolicy::kAllowWithoutHostCode:
      return "no_host_code";
    case UnsignedPolicy::kRefuse:
      return "refuse";
  }
  return "unknown";
}

absl::StatusOr<const PublicKey*> FindSigningKey(const ArtifactHeaderProto& header, const TrustPolicy& policy) {
  if (!header.has_signature()) return Denied("the artifact is not signed");
  const ArtifactSignatureProto& s = header.signature();
  if (s.algorithm() != SIGNATURE_ALGORITHM_ED25519_BLAKE2B) {
    return absl::InvalidArgumentError(
        absl::StrCat("header.signature.algorithm: unknown signature algorithm ", static_cast<int>(s.algorithm()),
                     "; the artifact is newer than this runtime, or was edited"));
  }
  if (!IsKeyId(s.key_id())) {
    return absl::InvalidArgumentError(absl::StrCat("header.signature.key_id: '",
                                                   absl::CHexEscape(s.key_id().substr(0, 64)),
                                                   "' is not 16 lowercase hex digits"));
  }
  for (const PublicKey& key : policy.trusted_keys) {
    if (key.id == s.key_id()) return &key;
  }
  return Denied(absl::StrCat("signed by key ", s.key_id(), ", which is not trusted (",
                             policy.trusted_keys.size(),
                             " trusted keys); trust its public key (xla_aot --trusted_key=NAME.pub, "
                             "TrustPolicy::trusted_keys) if you trust whoever holds it"));
}

bool SignatureVerifies(const ArtifactHeaderProto& header, const ArtifactDigests& digests, const PublicKey& key) {
  if (!InitSodium().ok()) return false;
  const std::string& signature = header.signature().signature();
  if (signature.size() != kSignatureBytes) return false;
  const std::string message = SignedMessage(header.signature().key_id(), digests);
  return crypto_sign_verify_detached(reinterpret_cast<const unsigned char*>(signature.data()),
                                     reinterpret_cast<const unsigned char*>(message.data()), message.size(),
                                     key.key.data()) == 0;
}

absl::Status CheckUnsignedAllowed(const TrustPolicy& policy, bool has_host_code) {
  switch (policy.unsigned_artifacts) {
    case UnsignedPolicy::kAllow:
      return absl::OkStatus();
    case UnsignedPolicy::kAllowWithoutHostCode:
      if (!has_host_code) return absl::OkStatus();
      return Denied(
          "the artifact is not signed and carries host code (a shared object), which the policy "
          "no_host_code refuses; sign it (xla_aot sign --key=NAME.secret) and trust the key, or "
          "load it with --unsigned=allow");
    case UnsignedPolicy::kRefuse:
      return Denied(
          "the artifact is not signed, which the policy refuse refuses; sign it (xla_aot sign "
          "--key=NAME.secret) and trust the key, or load it with --unsigned=allow");
  }
  return Denied("unknown unsigned-artifact policy");
}

}  // namespace xla::gpu
