// `xla_aot compile`: optimize an HLO module and write what the compiler
// produced.
//
//   xla_aot compile FILE.hlo --dump_dir=DIR [--dump_passes] [--max_fold_elements=N]
//                   [--allow_inexact] [--no_loop_opts] [--no_verify]
//
// Optimize-only for now: kernel emission, buffer assignment and scheduling
// do not exist yet, so no artifact is written. Writes
// DIR/after_optimizations.hlo (parses back), DIR/pass_timings.txt, and with
// --dump_passes the module after every pass under DIR/passes/. Prints one
// summary line. Returns kExitOk, kExitBadInput (the module does not parse or
// verify, a pass fails, or a file cannot be written; the message names it),
// or kExitUsage. Thread-compatible.
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
