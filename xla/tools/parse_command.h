// `xla_aot parse`: parse HLO text files, verify them, print canonical text.
//
//   xla_aot parse FILE              prints the canonical text of FILE
//   xla_aot parse --check FILE...   one line per failing file, then a count
//   --no_verify                     skip the verifier (parse only)
//
// Returns kExitOk, kExitBadInput when any file fails, kExitUsage on bad flags.
// Thread-compatible.
#ifndef XLA_TOOLS_PARSE_COMMAND_H_
#define XLA_TOOLS_PARSE_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

namespace xla::cli {

extern const char kParseHelp[];

int RunParse(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace xla::cli

#endif  // XLA_TOOLS_PARSE_COMMAND_H_
