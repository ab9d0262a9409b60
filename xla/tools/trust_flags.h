// The trust flags of the commands that load artifacts (run, bench, inspect,
// xla_aot_mpi_run): which signers to trust and what to do with unsigned
// artifacts (xla/backends/gpu/runtime/artifact_signature.h).
//
//   --trusted_key=PATH        a public key file (NAME.pub from xla_aot
//                             keygen); repeatable
//   --unsigned=allow|no_host_code|refuse
//                             unsigned artifacts: load, load only without
//                             host code, or refuse (default allow)
//
// Thread-compatible: plain functions over the caller's values.
#ifndef XLA_TOOLS_TRUST_FLAGS_H_
#define XLA_TOOLS_TRUST_FLAGS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/aot/executable.h"

namespace xla::cli {

// The help lines of the flags, a string literal to concatenate into a
// command's help text.
#define XLA_AOT_TRUST_FLAGS_HELP                                                \
  "  --trusted_key=PATH    trust the signer of this public key file (NAME.pub\n" \
  "                        from `xla_aot keygen`); repeatable. A signed\n"      \
  "                        artifact loads only when its key is trusted and its\n" \
  "                        signature verifies\n"                                \
  "  --unsigned=POLICY     unsigned artifacts: allow (the default),\n"           \
  "                        no_host_code (only without a host shared object) or\n" \
  "                        refuse\n"

struct TrustFlags {
  std::vector<std::string> trusted_keys;  // paths, in order
  std::string unsigned_policy = "allow";
};

// True when `arg` is one of the trust flags (then `*error` is set when its
// value is empty or unknown); false for any other argument.
bool ParseTrustFlag(const std::string& arg, TrustFlags* flags, std::string* error);

// The load options the flags ask for: each key file read and parsed.
// NotFound or InvalidArgument naming the key file; InvalidArgument for an
// unknown --unsigned value.
absl::StatusOr<aot::LoadOptions> LoadOptionsFromFlags(const TrustFlags& flags);

// One line for humans: "signature: key <id>, verified with a trusted key"
// or "signature: none (unsigned; policy <name>)".
std::string DescribeSignature(const aot::SignatureStatus& status, const aot::LoadOptions& options);

}  // namespace xla::cli

#endif  // XLA_TOOLS_TRUST_FLAGS_H_
