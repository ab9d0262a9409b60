// Signing artifacts: key pairs and the signature in the header (what
// `xla_aot keygen`, `xla_aot sign`, `xla_aot compile --sign_key` and the JIT
// cache's persistent tier use). Verifying is the runtime's
// (xla/backends/gpu/runtime/artifact_signature.h, which defines the digests
// and the signed message); this file holds the secret half and never goes
// into a serving binary that only loads artifacts.
//
// A key pair is two files: NAME.secret, "xla_aot-ed25519-secret <base64>"
// (libsodium's 64-byte Ed25519 secret key), created with mode 0600, and
// NAME.pub, the public key as artifact_signature.h reads it. A secret key
// file that others can read is refused, as ssh refuses one.
//
// Thread-safety: functions are thread-safe; a SigningKey is a value.
#ifndef XLA_AOT_ARTIFACT_SIGNING_H_
#define XLA_AOT_ARTIFACT_SIGNING_H_

#include <array>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/backends/gpu/runtime/artifact_signature.h"
#include "xla/backends/gpu/runtime/executable.pb.h"

namespace xla::aot {

inline constexpr char kSecretKeyTag[] = "xla_aot-ed25519-secret";
inline constexpr size_t kSecretKeyBytes = 64;

// An Ed25519 key pair. The destructor wipes the secret half.
struct SigningKey {
  SigningKey() = default;
  SigningKey(const SigningKey&) = default;
  SigningKey& operator=(const SigningKey&) = default;
  ~SigningKey();

  std::array<uint8_t, kSecretKeyBytes> secret{};
  gpu::PublicKey public_key;
};

// A fresh key pair from the system's random source. Internal when libsodium
// cannot initialize.
absl::StatusOr<SigningKey> GenerateSigningKey();

// Writes NAME.secret (mode 0600) and NAME.pub. AlreadyExists when either
// file exists (keys are never overwritten); Internal naming the path and
// the system error when a file cannot be written (nothing is left behind).
absl::Status WriteKeyPair(const SigningKey& key, const std::string& name);

// Reads a NAME.secret file. NotFound when it cannot be opened;
// PermissionDenied when group or others may read it (chmod 600 it);
// InvalidArgument when it is not a secret key file.
absl::StatusOr<SigningKey> ReadSigningKeyFile(const std::string& path);

// The key pair at `name` (NAME.secret, NAME.pub), created on first use: what
// the JIT cache uses, and the compiler's own key at stage 2 of the rollout.
// Creates the parent directory (mode 0700) when missing. Two processes
// racing to create it both end up with the one that was written first.
// ReadSigningKeyFile's and WriteKeyPair's errors.
absl::StatusOr<SigningKey> LoadOrCreateSigningKey(const std::string& name);

// Signs `artifact` as it stands (it must be complete and sealed: the
// checksum is part of the signed header): sets header.signature.
// InvalidArgument when the payload is larger than the artifact limit.
absl::Status SignArtifact(const SigningKey& key, gpu::GpuExecutableProto* artifact);

// Parses artifact bytes, signs them (replacing any signature) and returns
// the deterministic serialization. The errors of the parse (naming `what`)
// and of SignArtifact.
absl::StatusOr<std::string> SignArtifactBytes(const SigningKey& key, absl::string_view bytes,
                                              absl::string_view what);

}  // namespace xla::aot

#endif  // XLA_AOT_ARTIFACT_SIGNING_H_
