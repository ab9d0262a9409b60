#include "xla/tools/subcommand.h"

#include "absl/strings/str_cat.h"

namespace xla::cli {

std::string UsageText(const SubcommandProgram& program) {
  std::string out = absl::StrCat("usage: ", program.name, " <subcommand> [flags] [args]\n\n",
                                 program.description, "\n\nSubcommands:\n");
  for (const Subcommand& c : *program.subcommands) {
    absl::StrAppend(&out, "  ", c.name, "\t", c.summary, "\n");
  }
  out += "\nExit codes: 0 ok, 1 bad input, 2 bad usage.\n";
  for (const Subcommand& c : *program.subcommands) {
    absl::StrAppend(&out, "\n== ", program.name, " ", c.name, " ==\n", c.help);
  }
  return out;
}

int RunSubcommandProgram(const SubcommandProgram& program, const std::vector<std::string>& args,
                         std::ostream& out, std::ostream& err) {
  if (args.empty()) {
    err << UsageText(program);
    return kExitUsage;
  }
  if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    out << UsageText(program);
    return kExitOk;
  }
  for (const Subcommand& c : *program.subcommands) {
    if (c.name == args[0]) {
      return c.run(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
    }
  }
  err << program.name << ": unknown subcommand '" << args[0] << "'; run `" << program.name
      << " --help`\n";
  return kExitUsage;
}

}  // namespace xla::cli
