#include "xla/tools/run_command.h"


#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "xla/aot/executable.h"
#include "xla/aot/literal_execution.h"
#include "xla/stream_executor/platform_registry.h"
#include "xla/tools/exit_codes.h"
#include "xla/tools/tensor_io.h"
#include "xla/types/random_literal.h"
#include "xla/types/npy.h"
#include "xla/util/status_macros.h"

namespace xla::cli {

const char kRunHelp[] =
    "usage: xla_aot run FILE.xaot [--input=A.npy ...] [--random_inputs [--seed=N]]\n"
    "                            [--output_dir=DIR] [--print]\n"
    "\n"
    "Loads a compiled artifact (validating all of it) and runs it on its target's\n"
    "device (target host runs on the host platform).\n"
    "\n"
    "  --input=PATH          one .npy per parameter, in order\n"
    "  --random_inputs       draw inputs: floats in [-1,1), integers in [0,8)\n"
    "  --seed=N              seed for --random_inputs (default 0)\n"
    "  --output_dir=DIR      write DIR/out0.npy, out1.npy, ... (result leaves, depth-first)\n"
    "  --print               print the results (the default without --output_dir)\n";

namespace {

struct RunFlags {
  std::string artifact;
  TensorIoFlags io;
};

std::string ParseFlags(const std::vector<std::string>& args, RunFlags* f) {
  for (const std::string& arg : args) {
    std::string error;
    if (ParseTensorIoFlag(arg, &f->io, &error)) {
      if (!error.empty()) return error;
    } else if (absl::StartsWith(arg, "-")) {
      return absl::StrCat("unknown flag '", arg, "'");
    } else if (f->artifact.empty()) {
      f->artifact = arg;
    } else {
      return absl::StrCat("unexpected argument '", arg, "' (one artifact only)");
    }
  }
  if (f->artifact.empty()) return "no artifact file";
  return CheckTensorIoFlags(f->io);
}

absl::StatusOr<std::vector<Literal>> Inputs(const RunFlags& f, const ProgramShape& shape) {
  std::vector<Literal> inputs;
  if (f.io.random_inputs) {
    for (size_t i = 0; i < shape.parameters.size(); ++i) {
      ASSIGN_OR_RETURN(Literal arg, MakeRandomLiteral(shape.parameters[i], f.io.seed * 1000003 + i));
      inputs.push_back(std::move(arg));
    }
    return inputs;
  }
  if (f.io.inputs.size() != shape.parameters.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the artifact takes ", shape.parameters.size(),
                                                   " parameters but ", f.io.inputs.size(),
                                                   " --input files were given"));
  }
  for (size_t i = 0; i < f.io.inputs.size(); ++i) {
    ASSIGN_OR_RETURN(Literal file, ReadNpyFile(f.io.inputs[i]));
    ASSIGN_OR_RETURN(Literal arg, ConvertNpyLiteral(file, shape.parameters[i],
                                                    absl::StrCat("parameter ", i, " from ", f.io.inputs[i])));
    inputs.push_back(std::move(arg));
  }
  return inputs;
}

absl::StatusOr<std::vector<Literal>> LoadAndRun(const RunFlags& f) {
  ASSIGN_OR_RETURN(std::unique_ptr<aot::Executable> exe, aot::Executable::LoadFromFile(f.artifact));
  ASSIGN_OR_RETURN(std::vector<Literal> inputs, Inputs(f, exe->program_shape()));
  ASSIGN_OR_RETURN(stream_executor::Platform * platform,
                   stream_executor::PlatformRegistry::GetPlatform(exe->program().target.platform));
  ASSIGN_OR_RETURN(stream_executor::StreamExecutor * device, platform->GetDevice(0));
  return aot::ExecuteOnLiterals(*exe, device, inputs);
}

}  // namespace

int RunRun(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") {
      out << kRunHelp;
      return kExitOk;
    }
  }
  RunFlags flags;
  if (std::string usage = ParseFlags(args, &flags); !usage.empty()) {
    err << "xla_aot run: " << usage << "\n" << kRunHelp;
    return kExitUsage;
  }
  absl::StatusOr<std::vector<Literal>> leaves = LoadAndRun(flags);
  if (!leaves.ok()) {
    err << "xla_aot run: " << flags.artifact << ": " << leaves.status().message() << "\n";
    return kExitBadInput;
  }
  std::vector<const Literal*> pointers;
  for (const Literal& leaf : *leaves) pointers.push_back(&leaf);
  if (absl::Status s = EmitResults(flags.io, pointers, out); !s.ok()) {
    err << "xla_aot run: " << s.message() << "\n";
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace xla::cli
