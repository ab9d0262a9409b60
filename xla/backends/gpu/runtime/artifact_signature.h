// Artifact signatures: who vouches for an artifact, and what the loader
// trusts (docs/reliability.md, "Threat model").
//
// The checksum in the header catches corruption; anyone can recompute it.
// A signature says that the holder of a key produced these exact bytes: an
// Ed25519 signature (libsodium) over BLAKE2b-256 digests of the header and
// of the payload. The loader checks it against its TrustPolicy before it
// looks at anything else in the payload; see LoadProgram (program.h).
//
// The digests, exactly (every signer and verifier must agree on them):
//   * header: BLAKE2b-256 over the header's records in their stored order,
//     without any record of field 10 (`signature`). For an artifact that
//     is not stored (a parsed proto), the deterministic serialization of
//     the header with `signature` cleared, which is the same bytes for what
//     a producer writes.
//   * payload: a tree, so that large payloads hash on several cores. The
//     payload's bytes as stored (its deterministic serialization when not
//     stored) are cut into leaves of kPayloadLeafBytes (the last one
//     shorter; none for an empty payload); leaf i's digest is
//     BLAKE2b-256(bytes of leaf i); the payload's digest is
//     BLAKE2b-256("xla_aot.payload.v1" || u64le(size) ||
//     u64le(kPayloadLeafBytes) || leaf digests in order).
//   * the signed message: SignedMessage() below, 100 bytes.
//
// Key files are one line of text: "xla_aot-ed25519-public <base64>" (the
// 32-byte public key) and "xla_aot-ed25519-secret <base64>" (libsodium's
// 64-byte secret key, xla/aot/artifact_signing.h writes and reads those).
//
// Thread-safety: pure functions (libsodium is initialized once, thread-
// safely); TrustPolicy is a value.
#ifndef XLA_BACKENDS_GPU_RUNTIME_ARTIFACT_SIGNATURE_H_
#define XLA_BACKENDS_GPU_RUNTIME_ARTIFACT_SIGNATURE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/backends/gpu/runtime/executable.pb.h"

namespace xla::gpu {

inline constexpr size_t kDigestBytes = 32;
inline constexpr size_t kPayloadLeafBytes = size_t{1} << 20;
inline constexpr size_t kPublicKeyBytes = 32;
inline constexpr size_t kSignatureBytes = 64;
inline constexpr size_t kKeyIdChars = 16;
inline constexpr char kPublicKeyTag[] = "xla_aot-ed25519-public";

using Digest = std::array<uint8_t, kDigestBytes>;

// The two digests a signature covers.
struct ArtifactDigests {
  Digest header{};
  Digest payload{};
};

// Initializes libsodium (once; later calls return at once). Internal when
// the library cannot initialize (no usable random source). Thread-safe.
absl::Status InitSodium();

// The payload's tree digest (file comment) over `payload`, its leaves hashed
// on up to `threads` threads (0: the hardware threads, at most 16: BLAKE2b
// runs about 1 GB/s per core, so 16 reach a server's memory bandwidth).
// When given, `alongside` runs once on one of those threads, concurrently
// with the leaves (the loader computes the payload checksum there). Never
// fails; the value does not depend on `threads`.
Digest PayloadDigest(absl::string_view payload, int threads = 0,
                     absl::FunctionRef<void()> alongside = [] {});

// Incremental BLAKE2b-256 (libsodium's crypto_generichash), for the
// header's digest over its stored records (artifact_wire.h,
// StoredHeaderDigest). Thread-compatible.
class Blake2b256 {
 public:
  Blake2b256();
  void Update(absl::string_view bytes);
  Digest Finish();

 private:
  alignas(64) unsigned char state_[384];  // crypto_generichash_state
};

// Both digests of a parsed artifact, from deterministic serializations.
ArtifactDigests DigestsOf(const GpuExecutableProto& artifact);

// The 100 bytes Ed25519 signs: "xla_aot.signature.v1" || key_id (16 ASCII
// hex digits) || header digest || payload digest.
std::string SignedMessage(absl::string_view key_id, const ArtifactDigests& digests);

// A public key a loader may trust, with its id.
struct PublicKey {
  std::array<uint8_t, kPublicKeyBytes> key{};
  std::string id;  // KeyIdOf(key)
};

// The id of a public key: 16 lowercase hex digits, the first 8 bytes of
// BLAKE2b-256("xla_aot.key_id.v1" || key).
std::string KeyIdOf(const std::array<uint8_t, kPublicKeyBytes>& key);

// The key file's text: "xla_aot-ed25519-public <base64>\n".
std::string FormatPublicKey(const PublicKey& key);
// Parses that text (surrounding whitespace allowed). InvalidArgument naming
// `what` and what is wrong (another tag, bad base64, the wrong length).
absl::StatusOr<PublicKey> ParsePublicKey(absl::string_view text, absl::string_view what);
// Reads and parses a key file. NotFound when it cannot be read; otherwise
// ParsePublicKey's errors, naming the path.
absl::StatusOr<PublicKey> ReadPublicKeyFile(const std::string& path);

// What the loader does with an artifact that carries no signature.
enum class UnsignedPolicy {
  kAllow,                  // load it (every artifact before signing existed)
  kAllowWithoutHostCode,   // load it only when it has no host shared object
  kRefuse,                 // refuse it
};
// "allow", "no_host_code", "refuse" (the CLI's --unsigned values).
absl::StatusOr<UnsignedPolicy> ParseUnsignedPolicy(absl::string_view name);
absl::string_view UnsignedPolicyName(UnsignedPolicy policy);

// The loader's trust policy. A signature that is present is always checked:
// it must name a trusted key and verify, whatever unsigned_artifacts says.
// The default (no keys, allow) loads what every runtime before signing
// loaded, and refuses every signed artifact: stage 1 of the rollout
// (feature_registry.h, SigningRollout).
struct TrustPolicy {
  std::vector<PublicKey> trusted_keys;
  UnsignedPolicy unsigned_artifacts = UnsignedPolicy::kAllow;
};

// What the loader found out about an artifact's signature.
struct SignatureStatus {
  bool is_signed = false;  // the header has a signature
  bool verified = false;   // and it verified with a trusted key
  std::string key_id;      // the signer's key id, when signed
};

// The trusted key the header's signature names. InvalidArgument naming
// the field when the algorithm is unknown or the key id is not 16 hex
// digits (a malformed artifact); PermissionDenied "header.signature: ..."
// when the header has no signature or no trusted key has that id (the
// message says how to trust it).
absl::StatusOr<const PublicKey*> FindSigningKey(const ArtifactHeaderProto& header,
                                                const TrustPolicy& policy);

// Whether the header's signature verifies over `digests` with `key`.
bool SignatureVerifies(const ArtifactHeaderProto& header, const ArtifactDigests& digests,
                       const PublicKey& key);

// The unsigned-artifact rule: PermissionDenied naming the policy and the
// fix when `policy` refuses an unsigned artifact (that has host code, for
// kAllowWithoutHostCode); OK otherwise.
absl::Status CheckUnsignedAllowed(const TrustPolicy& policy, bool has_host_code);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_ARTIFACT_SIGNATURE_H_
