#include "xla/tools/run_command.h"

#include <filesystem>
#include <optional>
#include <random>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "xla/aot/executable.h"
#include "xla/aot/literal_execution.h"
#include "xla/stream_executor/platform_registry.h"
#include "xla/tools/exit_codes.h"
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
  std::vector<std::string> inputs;
  bool random_inputs = false;
  uint64_t seed = 0;
  std::string output_dir;
  bool print = false;
};

std::string ParseFlags(const std::vector<std::string>& args, RunFlags* f) {
  for (const std::string& arg : args) {
    auto value = [&arg](absl::string_view flag) -> std::optional<std::string> {
      if (!absl::StartsWith(arg, flag)) return std::nullopt;
      return arg.substr(flag.size());
    };
    if (auto v = value("--input=")) {
      f->inputs.push_back(*v);
    } else if (auto v = value("--output_dir=")) {
      f->output_dir = *v;
    } else if (auto v = value("--seed=")) {
      if (!absl::SimpleAtoi(*v, &f->seed)) return absl::StrCat("bad --seed value '", *v, "'");
    } else if (arg == "--random_inputs") {
      f->random_inputs = true;
    } else if (arg == "--print") {
      f->print = true;
    } else if (absl::StartsWith(arg, "-")) {
      return absl::StrCat("unknown flag '", arg, "'");
    } else if (f->artifact.empty()) {
      f->artifact = arg;
    } else {
      return absl::StrCat("unexpected argument '", arg, "' (one artifact only)");
    }
  }
  if (f->artifact.empty()) return "no artifact file";
  if (f->random_inputs && !f->inputs.empty()) return "give --input files or --random_inputs, not both";
  return "";
}

Literal RandomLiteral(const Shape& shape, std::mt19937_64& rng) {
  Literal l(shape);
  std::uniform_real_distribution<double> real(-1, 1);
  std::uniform_int_distribution<int> small(0, 7);
  for (int64_t i = 0; i < l.element_count(); ++i) {
    if (IsFloat(shape.element_type()) || IsComplex(shape.element_type())) {
      l.SetDouble(i, real(rng));
    } else if (IsPred(shape.element_type())) {
      l.SetInt(i, small(rng) % 2);
    } else {
      l.SetInt(i, small(rng));
    }
  }
  return l;
}

absl::StatusOr<std::vector<Literal>> Inputs(const RunFlags& f, const ProgramShape& shape) {
  std::vector<Literal> inputs;
  if (f.random_inputs) {
    std::mt19937_64 rng(f.seed);
    for (const Shape& p : shape.parameters) inputs.push_back(RandomLiteral(p, rng));
    return inputs;
  }
  if (f.inputs.size() != shape.parameters.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the artifact takes ", shape.parameters.size(),
                                                   " parameters but ", f.inputs.size(),
                                                   " --input files were given"));
  }
  for (size_t i = 0; i < f.inputs.size(); ++i) {
    ASSIGN_OR_RETURN(Literal file, ReadNpyFile(f.inputs[i]));
    ASSIGN_OR_RETURN(Literal arg, ConvertNpyLiteral(file, shape.parameters[i],
                                                    absl::StrCat("parameter ", i, " from ", f.inputs[i])));
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

absl::Status WriteOutputs(const std::string& dir, const std::vector<Literal>& leaves) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  for (size_t i = 0; i < leaves.size(); ++i) {
    RETURN_IF_ERROR(WriteNpyFile(absl::StrCat(dir, "/out", i, ".npy"), leaves[i]));
  }
  return absl::OkStatus();
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
  if (!flags.output_dir.empty()) {
    if (absl::Status s = WriteOutputs(flags.output_dir, *leaves); !s.ok()) {
      err << "xla_aot run: " << s.message() << "\n";
      return kExitBadInput;
    }
  }
  if (flags.print || flags.output_dir.empty()) {
    for (size_t i = 0; i < leaves->size(); ++i) {
      out << "out" << i << ": " << (*leaves)[i].shape().ToString(false) << " " << (*leaves)[i].ToString()
          << "\n";
    }
  }
  return kExitOk;
}

}  // namespace xla::cli
