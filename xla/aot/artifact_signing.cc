#include "xla/aot/artifact_signing.h"

#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "xla/backends/gpu/runtime/artifact_wire.h"
#include "xla/util/proto_util.h"
#include "xla/util/status_macros.h"

namespace xla::aot {
namespace {

static_assert(crypto_sign_SECRETKEYBYTES == kSecretKeyBytes);

absl::Status SystemError(absl::string_view what, const std::string& path) {
  return absl::InternalError(absl::StrCat(what, " ", path, ": ", std::strerror(errno)));
}

absl::Status Exists(const std::string& path) {
  return absl::AlreadyExistsError(absl::StrCat(path, " exists; keys are never overwritten (remove it first)"));
}

// Writes `text` to a new private temporary file beside `path`.
absl::Status WriteTempFile(const std::string& path, absl::string_view text, mode_t mode) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) return SystemError("cannot create", path);
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      absl::Status error = SystemError("cannot write", path);
      close(fd);
      unlink(path.c_str());
      return error;
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0) {
    absl::Status error = SystemError("cannot write", path);
    unlink(path.c_str());
    return error;
  }
  return absl::OkStatus();
}

// Creates `path` with `mode` holding `text`, complete or not at all: the
// text goes to a temporary file that is then linked to `path`, which fails
// when `path` exists (never replacing a key, and a racing reader never sees
// half a key).
absl::Status WriteNewFile(const std::string& path, absl::string_view text, mode_t mode) {
  if (access(path.c_str(), F_OK) == 0) return Exists(path);
  static std::atomic<uint64_t> counter{0};
  const std::string temp = absl::StrCat(path, ".tmp-", getpid(), "-", counter.fetch_add(1));
  RETURN_IF_ERROR(WriteTempFile(temp, text, mode));
  const int linked = link(temp.c_str(), path.c_str());
  const int link_errno = errno;
  unlink(temp.c_str());
  if (linked == 0) return absl::OkStatus();
  errno = link_errno;
  return link_errno == EEXIST ? Exists(path) : SystemError("cannot create", path);
}

std::string FormatSecretKey(const SigningKey& key) {
  std::string base64;
  absl::Base64Escape(absl::string_view(reinterpret_cast<const char*>(key.secret.data()), key.secret.size()),
                     &base64);
  return absl::StrCat(kSecretKeyTag, " ", base64, "\n");
}

// The key pair from libsodium's 64-byte secret key, checked: its public
// half must be the one its seed derives.
absl::StatusOr<SigningKey> KeyFromSecret(absl::string_view secret, absl::string_view what) {
  if (secret.size() != kSecretKeyBytes) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": the key is not ", kSecretKeyBytes, " bytes"));
  }
  SigningKey key;
  std::memcpy(key.secret.data(), secret.data(), kSecretKeyBytes);
  unsigned char seed[crypto_sign_SEEDBYTES];
  unsigned char derived_public[crypto_sign_PUBLICKEYBYTES];
  unsigned char derived_secret[crypto_sign_SECRETKEYBYTES];
  crypto_sign_ed25519_sk_to_seed(seed, key.secret.data());
  crypto_sign_seed_keypair(derived_public, derived_secret, seed);
  const bool consistent = sodium_memcmp(derived_secret, key.secret.data(), kSecretKeyBytes) == 0;
  sodium_memzero(seed, sizeof(seed));
  sodium_memzero(derived_secret, sizeof(derived_secret));
  if (!consistent) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": the secret key is damaged (its halves disagree)"));
  }
  std::memcpy(key.public_key.key.data(), derived_public, gpu::kPublicKeyBytes);
  key.public_key.id = gpu::KeyIdOf(key.public_key.key);
  return key;
}

absl::StatusOr<std::string> ReadPrivateFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::NotFoundError(absl::StrCat("cannot read secret key file ", path, ": ", std::strerror(errno)));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return absl::InvalidArgumentError(absl::StrCat(path, " is not a regular file"));
  }
  if ((st.st_mode & 077) != 0) {
    close(fd);
    return absl::PermissionDeniedError(absl::StrCat("secret key file ", path, " may be read by others (mode ",
                                                    absl::StrCat(absl::Hex(st.st_mode & 0777)),
                                                    "); run `chmod 600 ", path, "`, or make a new key"));
  }
  std::string text(4096, '\0');
  ssize_t n;
  do {
    n = read(fd, text.data(), text.size());
  } while (n < 0 && errno == EINTR);
  close(fd);
  if (n < 0) return SystemError("cannot read", path);
  text.resize(static_cast<size_t>(n));
  return text;
}

}  // namespace

SigningKey::~SigningKey() { sodium_memzero(secret.data(), secret.size()); }

absl::StatusOr<SigningKey> GenerateSigningKey() {
  RETURN_IF_ERROR(gpu::InitSodium());
  SigningKey key;
  crypto_sign_keypair(key.public_key.key.data(), key.secret.data());
  key.public_key.id = gpu::KeyIdOf(key.public_key.key);
  return key;
}

absl::Status WriteKeyPair(const SigningKey& key, const std::string& name) {
  const std::string secret_path = name + ".secret";
  const std::string public_path = name + ".pub";
  if (access(public_path.c_str(), F_OK) == 0) return Exists(public_path);
  RETURN_IF_ERROR(WriteNewFile(secret_path, FormatSecretKey(key), 0600));
  absl::Status written = WriteNewFile(public_path, gpu::FormatPublicKey(key.public_key), 0644);
  if (!written.ok()) unlink(secret_path.c_str());
  return written;
}

absl::StatusOr<SigningKey> ReadSigningKeyFile(const std::string& path) {
  RETURN_IF_ERROR(gpu::InitSodium());
  ASSIGN_OR_RETURN(std::string text, ReadPrivateFile(path));
  absl::string_view line = absl::StripAsciiWhitespace(text);
  const std::string prefix = absl::StrCat(kSecretKeyTag, " ");
  if (!absl::StartsWith(line, prefix)) {
    return absl::InvalidArgumentError(absl::StrCat(path, " is not an xla_aot secret key: it must be one line '",
                                                   kSecretKeyTag, " <base64>' as `xla_aot keygen` writes it"));
  }
  std::string secret;
  if (!absl::Base64Unescape(line.substr(prefix.size()), &secret)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": the key is not base64"));
  }
  absl::StatusOr<SigningKey> key = KeyFromSecret(secret, path);
  sodium_memzero(secret.data(), secret.size());
  sodium_memzero(text.data(), text.size());
  return key;
}

absl::StatusOr<SigningKey> LoadOrCreateSigningKey(const std::string& name) {
  const std::string secret_path = name + ".secret";
  absl::StatusOr<SigningKey> existing = ReadSigningKeyFile(secret_path);
  if (existing.ok() || !absl::IsNotFound(existing.status())) return existing;
  const std::filesystem::path parent = std::filesystem::path(name).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    if (ec) return absl::InternalError(absl::StrCat("cannot create ", parent.string(), ": ", ec.message()));
    std::filesystem::permissions(parent, std::filesystem::perms::owner_all, ec);  // best effort
  }
  ASSIGN_OR_RETURN(SigningKey fresh, GenerateSigningKey());
  absl::Status written = WriteKeyPair(fresh, name);
  if (absl::IsAlreadyExists(written)) return ReadSigningKeyFile(secret_path);  // another process won
  RETURN_IF_ERROR(written);
  return fresh;
}

absl::Status SignArtifact(const SigningKey& key, gpu::GpuExecutableProto* artifact) {
  RETURN_IF_ERROR(gpu::InitSodium());
  if (artifact->payload().ByteSizeLong() > static_cast<size_t>(gpu::kMaxArtifactBytes)) {
    return absl::InvalidArgumentError("the payload exceeds the artifact size limit; it cannot be signed");
  }
  artifact->mutable_header()->clear_signature();
  const gpu::ArtifactDigests digests = gpu::DigestsOf(*artifact);
  const std::string message = gpu::SignedMessage(key.public_key.id, digests);
  unsigned char signature[crypto_sign_BYTES];
  crypto_sign_detached(signature, nullptr, reinterpret_cast<const unsigned char*>(message.data()), message.size(),
                       key.secret.data());
  gpu::ArtifactSignatureProto* s = artifact->mutable_header()->mutable_signature();
  s->set_algorithm(gpu::SIGNATURE_ALGORITHM_ED25519_BLAKE2B);
  s->set_key_id(key.public_key.id);
  s->set_signature(reinterpret_cast<const char*>(signature), sizeof(signature));
  return absl::OkStatus();
}

absl::StatusOr<std::string> SignArtifactBytes(const SigningKey& key, absl::string_view bytes,
                                              absl::string_view what) {
  if (bytes.size() > static_cast<size_t>(gpu::kMaxArtifactBytes)) {
    return absl::InvalidArgumentError(absl::StrCat(what, " of ", bytes.size(), " bytes exceeds the artifact limit"));
  }
  google::protobuf::io::ArrayInputStream input(bytes.data(), static_cast<int>(bytes.size()));
  ASSIGN_OR_RETURN(std::unique_ptr<gpu::GpuExecutableProto> artifact, gpu::ParseArtifactStream(&input, what));
  RETURN_IF_ERROR(SignArtifact(key, artifact.get()));
  return SerializeDeterministically(*artifact);
}

}  // namespace xla::aot
