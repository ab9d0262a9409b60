// `xla_aot compile`: optimize an HLO module and write what the compiler
// produced.
//
//   xla_aot compile FILE.hlo (-o OUT.xaot | --dump_dir=DIR) [--target=host|sm_XX] ...
//
// Runs the whole compiler (kCompileHelp lists every flag): the middle end,
// then, with -o, kernel and thunk emission into an artifact for the target.
// --dump_dir writes the fused, scheduled module (parses back), the schedule,
// the buffer assignment, per-pass timings and, for host artifacts, the LLVM
// IR before and after optimization, the thunk tree and per-phase compile
// timings. Prints one summary line. Returns kExitOk, kExitBadInput (the
// module does not parse, verify or compile, or a file cannot be written;
// the message names it), or kExitUsage. Thread-compatible.
#ifndef XLA_TOOLS_COMPILE_COMMAND_H_
#define XLA_TOOLS_COMPILE_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

namespace xla::cli {

extern const char kCompileHelp[];

int RunCompile(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace xla::cli

#endif  // XLA_TOOLS_COMPILE_COMMAND_H_
