#include "xla/backends/gpu/runtime/artifact_signature.h"

#include <sodium.h>

#include <cstring>
#include <string>

#include "absl/strings/escaping.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/artifact_wire.h"

namespace xla::gpu {
namespace {

using ::testing::HasSubstr;

std::string Bytes(const Digest& d) { return std::string(reinterpret_cast<const char*>(d.data()), d.size()); }

// libsodium's BLAKE2b-256 of `bytes`, called directly: the oracle.
std::string SodiumBlake2b(absl::string_view bytes) {
  unsigned char out[32];
  crypto_generichash(out, sizeof(out), reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(),
                     nullptr, 0);
  return std::string(reinterpret_cast<const char*>(out), sizeof(out));
}

std::string Le64(uint64_t v) {
  std::string s;
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>(v >> (8 * i)));
  return s;
}

std::string Pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + i / 977) & 0xff);
  return s;
}

TEST(PayloadDigestTest, IsTheRootOverOneMebibyteLeavesAsDocumented) {
  ASSERT_TRUE(InitSodium().ok());
  const std::string payload = Pattern(kPayloadLeafBytes * 2 + 12345);  // three leaves, the last short
  std::string root = std::string("xla_aot.payload.v1") + Le64(payload.size()) + Le64(kPayloadLeafBytes);
  for (size_t at = 0; at < payload.size(); at += kPayloadLeafBytes) {
    root += SodiumBlake2b(absl::string_view(payload).substr(at, kPayloadLeafBytes));
  }
  EXPECT_EQ(Bytes(PayloadDigest(payload, 1)), SodiumBlake2b(root));
}

TEST(PayloadDigestTest, SameForEveryThreadCountAndChangesWithAnyByte) {
  std::string payload = Pattern(kPayloadLeafBytes * 5 + 7);
  const Digest one = PayloadDigest(payload, 1);
  EXPECT_EQ(PayloadDigest(payload, 3), one);
  EXPECT_EQ(PayloadDigest(payload, 8), one);
  payload[kPayloadLeafBytes * 3 + 1] ^= 1;
  EXPECT_NE(PayloadDigest(payload, 2), one);
  // A shorter payload with the same leaves differs too (the size is hashed).
  EXPECT_NE(PayloadDigest(absl::string_view(payload).substr(0, kPayloadLeafBytes)),
            PayloadDigest(absl::string_view(payload).substr(0, kPayloadLeafBytes - 1)));
  const std::string empty_root = std::string("xla_aot.payload.v1") + Le64(0) + Le64(kPayloadLeafBytes);
  EXPECT_EQ(Bytes(PayloadDigest("")), SodiumBlake2b(empty_root));
}

GpuExecutableProto SmallArtifact() {
  GpuExecutableProto a;
  a.mutable_header()->set_format_version(1);
  a.mutable_header()->set_target("host");
  a.mutable_header()->set_production_date("2026-12-02T00:00:00Z");
  a.mutable_header()->add_required_runtime_features("host_kernels");
  a.mutable_payload()->set_module_name("m");
  a.mutable_payload()->set_host_shared_object(Pattern(333));
  return a;
}

std::string Serialize(const google::protobuf::MessageLite& m) {
  std::string out;
  m.SerializeToString(&out);
  return out;
}

TEST(StoredHeaderDigestTest, SkipsTheSignatureRecordsAndMatchesTheParsedDigest) {
  GpuExecutableProto a = SmallArtifact();
  const ArtifactDigests unsigned_digests = DigestsOf(a);
  a.mutable_header()->mutable_signature()->set_key_id("0123456789abcdef");
  a.mutable_header()->mutable_signature()->set_signature(std::string(64, 'x'));
  // DigestsOf ignores the signature.
  EXPECT_EQ(DigestsOf(a).header, unsigned_digests.header);
  EXPECT_EQ(DigestsOf(a).payload, unsigned_digests.payload);
  // The stored header, split over two records with the signature between.
  ArtifactHeaderProto first = a.header();
  first.clear_required_runtime_features();
  ArtifactHeaderProto second;
  second.add_required_runtime_features("host_kernels");
  absl::StatusOr<Digest> stored = StoredHeaderDigest({Serialize(first), Serialize(second)});
  ASSERT_TRUE(stored.ok()) << stored.status();
  ArtifactHeaderProto without = first;
  without.clear_signature();
  EXPECT_EQ(Bytes(*stored), SodiumBlake2b(Serialize(without) + Serialize(second)));
  EXPECT_EQ(*StoredHeaderDigest({Serialize(a.header())}), unsigned_digests.header);
  EXPECT_FALSE(StoredHeaderDigest({std::string("\x0a\x7f", 2)}).ok());  // a length past the end
}

TEST(StoredHeaderDigestTest, InPlaceParseComputesBothDigestsForSignedArtifacts) {
  GpuExecutableProto a = SmallArtifact();
  const ArtifactDigests expected = DigestsOf(a);
  std::string bytes = Serialize(a);
  absl::StatusOr<ParsedArtifact> unsigned_parse = ParseArtifactInPlace(bytes, "x", InPlaceOptions{});
  ASSERT_TRUE(unsigned_parse.ok());
  EXPECT_FALSE(unsigned_parse->stored_digests.has_value());  // nothing to verify: not computed
  a.mutable_header()->mutable_signature()->set_key_id("0123456789abcdef");
  bytes = Serialize(a);
  absl::StatusOr<ParsedArtifact> parsed = ParseArtifactInPlace(bytes, "x", InPlaceOptions{});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_TRUE(parsed->stored_digests.has_value());
  EXPECT_EQ(parsed->stored_digests->header, expected.header);
  EXPECT_EQ(parsed->stored_digests->payload, expected.payload);
}

TEST(SignedMessageTest, IsTheDomainTheKeyIdAndBothDigests) {
  ArtifactDigests d;
  d.header.fill(1);
  d.payload.fill(2);
  const std::string m = SignedMessage("0123456789abcdef", d);
  ASSERT_EQ(m.size(), 100u);
  EXPECT_EQ(m.substr(0, 36), "xla_aot.signature.v10123456789abcdef");
  EXPECT_EQ(m.substr(36, 32), std::string(32, '\1'));
  EXPECT_EQ(m.substr(68, 32), std::string(32, '\2'));
}

struct TestKey {
  unsigned char pk[crypto_sign_PUBLICKEYBYTES];
  unsigned char sk[crypto_sign_SECRETKEYBYTES];
  PublicKey key;
};

TestKey MakeKey() {
  TestKey k;
  crypto_sign_keypair(k.pk, k.sk);
  std::memcpy(k.key.key.data(), k.pk, sizeof(k.pk));
  k.key.id = KeyIdOf(k.key.key);
  return k;
}

TEST(PublicKeyTest, IdIsTheFirstEightBytesOfTheDomainDigest) {
  ASSERT_TRUE(InitSodium().ok());
  TestKey k = MakeKey();
  const std::string digest =
      SodiumBlake2b(std::string("xla_aot.key_id.v1") + std::string(reinterpret_cast<char*>(k.pk), 32));
  EXPECT_EQ(k.key.id, absl::BytesToHexString(digest.substr(0, 8)));
  EXPECT_EQ(k.key.id.size(), kKeyIdChars);
}

TEST(PublicKeyTest, TextRoundTripsAndBadTextIsNamed) {
  ASSERT_TRUE(InitSodium().ok());
  TestKey k = MakeKey();
  const std::string text = FormatPublicKey(k.key);
  EXPECT_THAT(text, ::testing::StartsWith("xla_aot-ed25519-public "));
  absl::StatusOr<PublicKey> back = ParsePublicKey("  " + text + "\n", "k.pub");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->key, k.key.key);
  EXPECT_EQ(back->id, k.key.id);
  EXPECT_THAT(ParsePublicKey("xla_aot-ed25519-secret AAAA", "k.pub").status().message(),
              HasSubstr("k.pub is not an xla_aot public key"));
  EXPECT_THAT(ParsePublicKey("xla_aot-ed25519-public AAAA", "k.pub").status().message(),
              HasSubstr("not 32 bytes"));
  EXPECT_THAT(ParsePublicKey("xla_aot-ed25519-public !!!", "k.pub").status().message(),
              HasSubstr("not 32 bytes"));
  EXPECT_TRUE(absl::IsNotFound(ReadPublicKeyFile("/nonexistent/k.pub").status()));
}

ArtifactHeaderProto SignedHeader(const TestKey& k, const ArtifactDigests& d) {
  ArtifactHeaderProto h;
  ArtifactSignatureProto* s = h.mutable_signature();
  s->set_algorithm(SIGNATURE_ALGORITHM_ED25519_BLAKE2B);
  s->set_key_id(k.key.id);
  const std::string m = SignedMessage(k.key.id, d);
  unsigned char sig[crypto_sign_BYTES];
  crypto_sign_detached(sig, nullptr, reinterpret_cast<const unsigned char*>(m.data()), m.size(), k.sk);
  s->set_signature(reinterpret_cast<const char*>(sig), sizeof(sig));
  return h;
}

TEST(VerifyTest, AGoodSignatureVerifiesAndAnyChangeDoesNot) {
  ASSERT_TRUE(InitSodium().ok());
  TestKey k = MakeKey();
  ArtifactDigests d;
  d.header.fill(7);
  d.payload.fill(9);
  const ArtifactHeaderProto h = SignedHeader(k, d);
  TrustPolicy policy;
  policy.trusted_keys.push_back(k.key);
  absl::StatusOr<const PublicKey*> key = FindSigningKey(h, policy);
  ASSERT_TRUE(key.ok()) << key.status();
  EXPECT_TRUE(SignatureVerifies(h, d, **key));
  ArtifactDigests other = d;
  other.payload[31] ^= 1;
  EXPECT_FALSE(SignatureVerifies(h, other, **key));
  other = d;
  other.header[0] ^= 0x80;
  EXPECT_FALSE(SignatureVerifies(h, other, **key));
  ArtifactHeaderProto bad = h;
  (*bad.mutable_signature()->mutable_signature())[5] ^= 1;
  EXPECT_FALSE(SignatureVerifies(bad, d, **key));
  bad = h;
  bad.mutable_signature()->mutable_signature()->pop_back();
  EXPECT_FALSE(SignatureVerifies(bad, d, **key));
  // The right signature under another key: not this key's.
  TestKey k2 = MakeKey();
  EXPECT_FALSE(SignatureVerifies(h, d, k2.key));
}

TEST(VerifyTest, FindSigningKeyNamesWhatIsWrong) {
  ASSERT_TRUE(InitSodium().ok());
  TestKey k = MakeKey();
  ArtifactDigests d;
  const ArtifactHeaderProto h = SignedHeader(k, d);
  TrustPolicy none;
  absl::Status untrusted = FindSigningKey(h, none).status();
  EXPECT_TRUE(absl::IsPermissionDenied(untrusted));
  EXPECT_THAT(untrusted.message(), HasSubstr(absl::StrCat("signed by key ", k.key.id, ", which is not trusted")));
  ArtifactHeaderProto bad = h;
  bad.mutable_signature()->set_algorithm(static_cast<SignatureAlgorithmProto>(7));
  TrustPolicy trusted;
  trusted.trusted_keys.push_back(k.key);
  EXPECT_THAT(FindSigningKey(bad, trusted).status().message(), HasSubstr("unknown signature algorithm 7"));
  EXPECT_TRUE(absl::IsInvalidArgument(FindSigningKey(bad, trusted).status()));
  bad = h;
  bad.mutable_signature()->set_key_id("0123456789ABCDEF");
  EXPECT_THAT(FindSigningKey(bad, trusted).status().message(), HasSubstr("is not 16 lowercase hex digits"));
  EXPECT_THAT(FindSigningKey(ArtifactHeaderProto(), trusted).status().message(), HasSubstr("not signed"));
}

TEST(UnsignedPolicyTest, EachPolicyAsDocumented) {
  for (absl::string_view name : {"allow", "no_host_code", "refuse"}) {
    absl::StatusOr<UnsignedPolicy> p = ParseUnsignedPolicy(name);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(UnsignedPolicyName(*p), name);
  }
  EXPECT_THAT(ParseUnsignedPolicy("deny").status().message(), HasSubstr("allow, no_host_code or refuse"));
  TrustPolicy p;
  EXPECT_TRUE(CheckUnsignedAllowed(p, true).ok());
  p.unsigned_artifacts = UnsignedPolicy::kAllowWithoutHostCode;
  EXPECT_TRUE(CheckUnsignedAllowed(p, false).ok());
  EXPECT_THAT(CheckUnsignedAllowed(p, true).message(), HasSubstr("carries host code"));
  p.unsigned_artifacts = UnsignedPolicy::kRefuse;
  EXPECT_TRUE(absl::IsPermissionDenied(CheckUnsignedAllowed(p, false)));
}

}  // namespace
}  // namespace xla::gpu
