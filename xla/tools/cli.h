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

#include "absl/strings/string_view.h"
#include "xla/tools/exit_codes.h"

namespace xla::cli {

// A subcommand: its name, a one-line summary, its full help text, and the
// function that runs it with the arguments after the subcommand name.
struct Subcommand {
  absl::string_view name;
  absl::string_view summary;
  absl::string_view help;
  int (*run)(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
};

// Every subcommand, in help order.
const std::vector<Subcommand>& Subcommands();

// Runs `xla_aot ARGS...` (args excludes the program name).
int RunXlaAot(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// `xla_aot --help`: every subcommand with its summary and flags.
std::string UsageText();

}  // namespace xla::cli

#endif  // XLA_TOOLS_CLI_H_
