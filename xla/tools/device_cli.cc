#include "xla/tools/device_cli.h"

#include "xla/tools/bench_command.h"
#include "xla/tools/inspect_command.h"
#include "xla/tools/run_command.h"

namespace xla::cli {

const std::vector<Subcommand>& DeviceSubcommands() {
  static const auto* commands = new std::vector<Subcommand>{
      {"run", "run a compiled artifact (.xaot) on its device (.npy in and out)", kRunHelp, &RunRun},
      {"bench", "time a compiled artifact: run spread, time per thunk kind, kernel rates",
       kBenchHelp, &RunBench},
      {"inspect", "print a compiled artifact: header, kernels, buffers, thunks", kInspectHelp,
       &RunInspect},
  };
  return *commands;
}

int RunXlaAotDevice(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  static const SubcommandProgram program{
      "xla_aot_device",
      "Runs, times and inspects artifacts compiled by xla_aot (no compiler: compile with\n"
      "`xla_aot compile`).",
      &DeviceSubcommands()};
  return RunSubcommandProgram(program, args, out, err);
}

}  // namespace xla::cli
