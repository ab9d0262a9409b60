#include "xla/tools/cli.h"

#include "absl/strings/str_cat.h"
#include "xla/tools/bench_command.h"
#include "xla/tools/compat/check_compat_command.h"
#include "xla/tools/compile_command.h"
#include "xla/tools/eval_command.h"
#include "xla/tools/parse_command.h"
#include "xla/tools/inspect_command.h"
#include "xla/tools/run_command.h"

namespace xla::cli {

const std::vector<Subcommand>& Subcommands() {
  static const auto* commands = new std::vector<Subcommand>{
      {"parse", "parse and verify HLO text; print it canonically", kParseHelp, &RunParse},
      {"eval", "run a module on the reference evaluator (.npy in and out)", kEvalHelp, &RunEval},
      {"compile", "compile a module into an artifact (.xaot) for host or sm_XX", kCompileHelp,
       &RunCompile},
      {"run", "run a compiled artifact (.xaot) on its device (.npy in and out)", kRunHelp, &RunRun},
      {"bench", "time a compiled artifact: run spread, time per thunk kind, kernel rates",
       kBenchHelp, &RunBench},
      {"inspect", "print a compiled artifact: header, kernels, buffers, thunks", kInspectHelp, &RunInspect},
      {"check-compat", "compare the artifact schema with a released baseline", kCheckCompatHelp,
       &RunCheckCompat},
  };
  return *commands;
}

std::string UsageText() {
  std::string out =
      "usage: xla_aot <subcommand> [flags] [args]\n"
      "\n"
      "An ahead-of-time compiler for XLA HLO modules.\n"
      "\n"
      "Subcommands:\n";
  for (const Subcommand& c : Subcommands()) absl::StrAppend(&out, "  ", c.name, "\t", c.summary, "\n");
  out += "\nExit codes: 0 ok, 1 bad input, 2 bad usage.\n";
  for (const Subcommand& c : Subcommands()) absl::StrAppend(&out, "\n== xla_aot ", c.name, " ==\n", c.help);
  return out;
}

int RunXlaAot(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty()) {
    err << UsageText();
    return kExitUsage;
  }
  if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    out << UsageText();
    return kExitOk;
  }
  for (const Subcommand& c : Subcommands()) {
    if (c.name == args[0]) {
      return c.run(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
    }
  }
  err << "xla_aot: unknown subcommand '" << args[0] << "'; run `xla_aot --help`\n";
  return kExitUsage;
}

}  // namespace xla::cli
