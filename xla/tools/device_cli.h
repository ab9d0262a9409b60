// `xla_aot_device`: the runtime side of the command line, for machines that
// run artifacts but never compile them (a serving host, the GPU check's
// device machine). Subcommands run, bench and inspect, the same functions as
// in `xla_aot`; nothing of the compiler or LLVM is linked, which
// device_cli_deps_test proves, so the binary and its few shared libraries
// can be carried to a machine without this project's build dependencies.
//
// Exit codes (exit_codes.h): 0 success, 1 bad input, 2 bad usage, 3 a
// --reference/--expected mismatch. Thread-compatible: the functions write
// only to the given streams.
#ifndef XLA_TOOLS_DEVICE_CLI_H_
#define XLA_TOOLS_DEVICE_CLI_H_

#include <ostream>
#include <string>
#include <vector>

#include "xla/tools/subcommand.h"

namespace xla::cli {

// The subcommands of xla_aot_device, in help order.
const std::vector<Subcommand>& DeviceSubcommands();

// Runs `xla_aot_device ARGS...` (args excludes the program name).
int RunXlaAotDevice(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace xla::cli

#endif  // XLA_TOOLS_DEVICE_CLI_H_
