#include "xla/tools/cli.h"

#include "absl/strings/str_cat.h"
#include "xla/tools/bench_command.h"
#include "xla/tools/compat/check_compat_command.h"
#include "xla/tools/compile_command.h"
#include "xla/tools/eval_command.h"
#include "xla/tools/parse_command.h"
#include "xla/tools/inspect_command.h"
#include "xla/tools/run_command.h"
#include "xla/tools/sign_command.h"

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
      {"keygen", "make a key pair for signing artifacts (NAME.secret, NAME.pub)", kKeygenHelp,
       &RunKeygen},
      {"sign", "sign a compiled artifact with a secret key", kSignHelp, &RunSign},
      {"check-compat", "compare the artifact schema with a released baseline", kCheckCompatHelp,
       &RunCheckCompat},
  };
  return *commands;
}

namespace {

const SubcommandProgram& XlaAotProgram() {
  static const SubcommandProgram program{"xla_aot", "An ahead-of-time compiler for XLA HLO modules.",
                                         &Subcommands()};
  return program;
}

}  // namespace

std::string UsageText() { return UsageText(XlaAotProgram()); }

int RunXlaAot(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return RunSubcommandProgram(XlaAotProgram(), args, out, err);
}

}  // namespace xla::cli
