#include "xla/tools/sign_command.h"

#include <unistd.h>

#include <cstdio>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "xla/aot/artifact_signing.h"
#include "xla/tools/exit_codes.h"
#include "xla/util/subprocess.h"

namespace xla::cli {

const char kKeygenHelp[] =
    "usage: xla_aot keygen --out=NAME\n"
    "\n"
    "Makes an Ed25519 signing key pair: NAME.secret (mode 0600; keep it to\n"
    "yourself) and NAME.pub (give it to the runtimes that should trust what you\n"
    "sign: xla_aot run --trusted_key=NAME.pub, aot::LoadOptions). Prints the\n"
    "key id that signed artifacts name. Never overwrites a key.\n";

const char kSignHelp[] =
    "usage: xla_aot sign FILE.xaot --key=NAME.secret [-o OUT.xaot]\n"
    "\n"
    "Signs a compiled artifact (replacing any signature it had): the header and\n"
    "the payload, with Ed25519 over BLAKE2b digests. Writes OUT.xaot, or\n"
    "replaces FILE.xaot. Runtimes from 2026-12-02 load a signed artifact only\n"
    "when they trust the key (--trusted_key=NAME.pub); older ones ignore the\n"
    "signature.\n";

namespace {

// Writes `bytes` next to `path` and renames it over `path`, so that a
// reader sees the old file or the new one, never half of one.
absl::Status ReplaceFile(const std::string& path, const std::string& bytes) {
  const std::string temp = absl::StrCat(path, ".signing-", getpid());
  if (absl::Status s = WriteFileBytes(temp, bytes); !s.ok()) {
    std::remove(temp.c_str());
    return s;
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    return absl::InternalError(absl::StrCat("cannot replace ", path));
  }
  return absl::OkStatus();
}

bool WantsHelp(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") return true;
  }
  return false;
}

}  // namespace

int RunKeygen(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (WantsHelp(args)) {
    out << kKeygenHelp;
    return kExitOk;
  }
  std::string name;
  for (const std::string& a : args) {
    if (!absl::StartsWith(a, "--out=") || a.size() == 6) {
      err << "xla_aot keygen: unexpected argument '" << a << "'\n" << kKeygenHelp;
      return kExitUsage;
    }
    name = a.substr(6);
  }
  if (name.empty()) {
    err << "xla_aot keygen: give --out=NAME\n" << kKeygenHelp;
    return kExitUsage;
  }
  absl::StatusOr<aot::SigningKey> key = aot::GenerateSigningKey();
  absl::Status written = key.ok() ? aot::WriteKeyPair(*key, name) : key.status();
  if (!written.ok()) {
    err << "xla_aot keygen: " << written.message() << "\n";
    return kExitBadInput;
  }
  out << "keygen: key " << key->public_key.id << ": wrote " << name << ".secret (keep private) and " << name
      << ".pub\n";
  return kExitOk;
}

int RunSign(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (WantsHelp(args)) {
    out << kSignHelp;
    return kExitOk;
  }
  std::string artifact, key_path, output;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (absl::StartsWith(a, "--key=")) {
      key_path = a.substr(6);
    } else if (a == "-o" && i + 1 < args.size()) {
      output = args[++i];
    } else if (absl::StartsWith(a, "-") || !artifact.empty()) {
      err << "xla_aot sign: unexpected argument '" << a << "'\n" << kSignHelp;
      return kExitUsage;
    } else {
      artifact = a;
    }
  }
  if (artifact.empty() || key_path.empty()) {
    err << "xla_aot sign: give FILE.xaot and --key=NAME.secret\n" << kSignHelp;
    return kExitUsage;
  }
  absl::StatusOr<aot::SigningKey> key = aot::ReadSigningKeyFile(key_path);
  absl::StatusOr<std::string> bytes = key.ok() ? ReadFileBytes(artifact) : key.status();
  absl::StatusOr<std::string> signed_bytes =
      bytes.ok() ? aot::SignArtifactBytes(*key, *bytes, artifact) : bytes.status();
  absl::Status written = signed_bytes.ok()
                             ? (output.empty() ? ReplaceFile(artifact, *signed_bytes)
                                               : WriteFileBytes(output, *signed_bytes))
                             : signed_bytes.status();
  if (!written.ok()) {
    err << "xla_aot sign: " << written.message() << "\n";
    return kExitBadInput;
  }
  out << "sign: " << artifact << ": signed with key " << key->public_key.id << "; wrote "
      << (output.empty() ? artifact : output) << " (" << signed_bytes->size() << " bytes)\n";
  return kExitOk;
}

}  // namespace xla::cli
