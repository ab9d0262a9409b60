// `xla_aot keygen` and `xla_aot sign`: make a signing key pair, and sign an
// artifact that was compiled without one (artifact_signing.h).
//
//   xla_aot keygen --out=NAME            writes NAME.secret (0600) and NAME.pub
//   xla_aot sign F.xaot --key=NAME.secret [-o OUT.xaot]
//
// keygen never overwrites a key. sign replaces F.xaot (through a temporary
// file renamed over it) unless -o names another file, and replaces any
// signature the artifact had. Both print one line naming the key id.
// Returns kExitOk, kExitBadInput (a file cannot be read, parsed or written;
// the message names it) or kExitUsage. Thread-compatible.
#ifndef XLA_TOOLS_SIGN_COMMAND_H_
#define XLA_TOOLS_SIGN_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

namespace xla::cli {

extern const char kKeygenHelp[];
extern const char kSignHelp[];

int RunKeygen(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int RunSign(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace xla::cli

#endif  // XLA_TOOLS_SIGN_COMMAND_H_
