#include "xla/tools/trust_flags.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "xla/util/status_macros.h"

namespace xla::cli {

namespace {
constexpr absl::string_view kTrustedKey = "--trusted_key=";
constexpr absl::string_view kUnsigned = "--unsigned=";
}  // namespace

bool ParseTrustFlag(const std::string& arg, TrustFlags* flags, std::string* error) {
  if (absl::StartsWith(arg, kTrustedKey)) {
    const std::string path = arg.substr(kTrustedKey.size());
    if (path.empty()) *error = "--trusted_key needs a public key file (NAME.pub)";
    flags->trusted_keys.push_back(path);
    return true;
  }
  if (absl::StartsWith(arg, kUnsigned)) {
    flags->unsigned_policy = arg.substr(kUnsigned.size());
    if (!gpu::ParseUnsignedPolicy(flags->unsigned_policy).ok()) {
      *error = absl::StrCat("bad ", arg, " (allow, no_host_code or refuse)");
    }
    return true;
  }
  return false;
}

absl::StatusOr<aot::LoadOptions> LoadOptionsFromFlags(const TrustFlags& flags) {
  aot::LoadOptions options;
  ASSIGN_OR_RETURN(options.trust.unsigned_artifacts, gpu::ParseUnsignedPolicy(flags.unsigned_policy));
  for (const std::string& path : flags.trusted_keys) {
    ASSIGN_OR_RETURN(aot::PublicKey key, gpu::ReadPublicKeyFile(path));
    options.trust.trusted_keys.push_back(std::move(key));
  }
  return options;
}

std::string DescribeSignature(const aot::SignatureStatus& status, const aot::LoadOptions& options) {
  if (!status.is_signed) {
    return absl::StrCat("signature: none (unsigned; policy ",
                        gpu::UnsignedPolicyName(options.trust.unsigned_artifacts), ")");
  }
  return absl::StrCat("signature: key ", status.key_id,
                      status.verified ? ", verified with a trusted key" : ", NOT verified");
}

}  // namespace xla::cli
