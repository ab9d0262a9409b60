// A command-line program made of subcommands (`xla_aot compile ...`,
// `xla_aot_device run ...`): the dispatch and the usage text, shared by the
// programs so each main is one table and one call.
//
// Exit codes (exit_codes.h): 0 success, 1 bad input, 2 bad usage (unknown
// subcommand or flag, missing argument).
// Thread-compatible: the functions write only to the given streams.
#ifndef XLA_TOOLS_SUBCOMMAND_H_
#define XLA_TOOLS_SUBCOMMAND_H_

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

// A program: its name, a one-line description, and its subcommands in help
// order (not owned; a static table).
struct SubcommandProgram {
  absl::string_view name;
  absl::string_view description;
  const std::vector<Subcommand>* subcommands;
};

// Runs `PROGRAM ARGS...` (args excludes the program name): dispatches on
// args[0]; prints the usage for --help/-h/help (kExitOk), and on `err` for no
// subcommand (kExitUsage); an unknown subcommand is kExitUsage with a line
// naming it.
int RunSubcommandProgram(const SubcommandProgram& program, const std::vector<std::string>& args,
                         std::ostream& out, std::ostream& err);

// `PROGRAM --help`: every subcommand with its summary and flags.
std::string UsageText(const SubcommandProgram& program);

}  // namespace xla::cli

#endif  // XLA_TOOLS_SUBCOMMAND_H_
