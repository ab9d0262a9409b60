// `xla_aot run`: load a compiled artifact and execute it on its target's
// device (the host platform for target "host").
//
//   xla_aot run FILE.xaot --input=a.npy --input=b.npy --output_dir=DIR
//   xla_aot run FILE.xaot --random_inputs --seed=7 --print
//   xla_aot run FILE.xaot --random_inputs --trace=trace.json
//
// Writes DIR/out0.npy, out1.npy, ...: one file per result leaf, depth-first.
// Returns kExitOk, kExitBadInput (the artifact does not load, an input does
// not match its parameter, or the run fails: the message says which), or
// kExitUsage. Thread-compatible.
#ifndef XLA_TOOLS_RUN_COMMAND_H_
#define XLA_TOOLS_RUN_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

namespace xla::cli {

extern const char kRunHelp[];

int RunRun(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace xla::cli

#endif  // XLA_TOOLS_RUN_COMMAND_H_
