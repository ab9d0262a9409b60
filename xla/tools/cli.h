// The `xla_aot` command line: one binary, one library function per
// subcommand, so every subcommand is testable without starting a process.
//
// Exit codes (exit_codes.h): 0 success, 1 bad input (a file that does not parse or
// verify), 2 bad usage (unknown subcommand or flag, missing argument).
// Thread-compatible: the functions write only to the given streams.
#ifndef XLA_TOOLS_CLI_H_
#define XLA_TOOLS_CLI_H_

#include <ostream>
#include <string>
#include <vector>

#include "xla/tools/subcommand.h"

namespace xla::cli {

// Every subcommand of xla_aot, in help order.
const std::vector<Subcommand>& Subcommands();

// Runs `xla_aot ARGS...` (args excludes the program name).
int RunXlaAot(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// `xla_aot --help`: every subcommand with its summary and flags.
std::string UsageText();

}  // namespace xla::cli

#endif  // XLA_TOOLS_CLI_H_
