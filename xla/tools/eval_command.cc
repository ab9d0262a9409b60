#include "xla/tools/eval_command.h"

#include <cstring>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/evaluator/replicated_evaluator.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/verifier/hlo_verifier.h"
#include "xla/tools/elided_constant_flags.h"
#include "xla/tools/exit_codes.h"
#include "xla/tools/host_transfer_flags.h"
#include "xla/tools/input_ranges.h"
#include "xla/tools/replicated_host_transfers.h"
#include "xla/tools/stacked_literals.h"
#include "xla/tools/tensor_io.h"
#include "xla/types/npy.h"

namespace xla::cli {

const char kEvalHelp[] =
    "usage: xla_aot eval FILE.hlo [--input=A.npy ...] [--random_inputs [--seed=N]]\n"
    "                            [--output_dir=DIR] [--print] [--max_while_iterations=N]\n"
    "                            [--replicas=N] [--save_inputs=DIR] [--input_ranges=FILE.json|none]\n"
    "                            [--elided_constants=error|zeros|random [--elided_constants_seed=N]]\n"
    "                            [--host_recv=CHANNEL=FILE.npy ...] [--host_send_dir=DIR]\n"
    "\n"
    "Evaluates the module's entry computation on the reference evaluator.\n"
    "\n"
    "  --input=PATH          one .npy per parameter, in order (bf16/f8 parameters\n"
    "                        take float32 files, s4/u4 take int8/uint8)\n"
    "  --random_inputs       draw inputs: floats in [-1,1), integers in [0,8),\n"
    "                        index operands in range\n"
    "  --seed=N              seed for --random_inputs (default 0)\n"
    "  --output_dir=DIR      write DIR/out0.npy, out1.npy, ... (tuples flattened)\n"
    "  --print               print the results\n"
    "  --save_inputs=DIR     also write the inputs used (drawn or read) as\n"
    "                        DIR/in0.npy, in1.npy, ...: with --output_dir, a case\n"
    "                        `xla_aot run --input=... --expected=DIR` replays\n"
    "                        elsewhere (random index operands are drawn in range\n"
    "                        here, which `run --random_inputs` cannot know)\n"
    "  --max_while_iterations=N  fail a while loop after N iterations\n"
    "  --replicas=N          run N replicas in lockstep (times the module's\n"
    "                        num_partitions); every --input file and every output\n"
    "                        carries a leading dimension of that many participants,\n"
    "                        slice d for participant d; --random_inputs draws each\n"
    "                        participant's inputs from its own seed; token\n"
    "                        parameters take no file\n"
    XLA_AOT_INPUT_RANGES_FLAG_HELP
    XLA_AOT_HOST_TRANSFER_FLAGS_HELP
    "Host transfers (send/recv with is_host_transfer=true) are served as `xla_aot\n"
    "run` serves them: each send is printed on stderr, a recv reads its channel's\n"
    "--host_recv file or, with --random_inputs, draws its data from the seed (the\n"
    "same data `run --random_inputs --seed` feeds). Token parameters take no --input.\n"
    "With --replicas each participant has its own host side: sends print as\n"
    "\"host send: participant d channel C ...\", participant d reads slice d of\n"
    "each --host_recv file (leading dimension N) or draws from its own seed, and\n"
    "--host_send_dir gets each send stacked over the participants.\n"
    XLA_AOT_ELIDED_CONSTANT_FLAGS_HELP;

namespace {

struct EvalFlags {
  std::string module_path;
  TensorIoFlags io;
  EvaluatorOptions options;
  int64_t replicas = 0;  // 0: no --replicas, a plain single evaluation
  std::string save_inputs;  // directory for in<i>.npy, or empty
  ElidedConstantFlags elided;
  HostTransferFlags host_transfers;
  std::string input_ranges;  // --input_ranges: a path, "none", or "" (look beside)
};

// Parses flags; returns an error message for bad usage.
std::string ParseFlags(const std::vector<std::string>& args, EvalFlags* f) {
  for (const std::string& arg : args) {
    std::string error;
    if (ParseTensorIoFlag(arg, &f->io, &error)) {
      if (!error.empty()) return error;
    } else if (ParseElidedConstantFlag(arg, &f->elided, &error)) {
      if (!error.empty()) return error;
    } else if (ParseHostTransferFlag(arg, &f->host_transfers, &error)) {
      if (!error.empty()) return error;
    } else if (ParseInputRangesFlag(arg, &f->input_ranges, &error)) {
      if (!error.empty()) return error;
    } else if (absl::StartsWith(arg, "--max_while_iterations=")) {
      const std::string v = arg.substr(std::string("--max_while_iterations=").size());
      if (!absl::SimpleAtoi(v, &f->options.max_while_iterations) || f->options.max_while_iterations <= 0) {
        return absl::StrCat("bad --max_while_iterations value '", v, "'");
      }
    } else if (absl::StartsWith(arg, "--replicas=")) {
      const std::string v = arg.substr(std::string("--replicas=").size());
      if (!absl::SimpleAtoi(v, &f->replicas) || f->replicas <= 0) {
        return absl::StrCat("bad --replicas value '", v, "' (a positive integer)");
      }
    } else if (absl::StartsWith(arg, "--save_inputs=")) {
      f->save_inputs = arg.substr(std::string("--save_inputs=").size());
      if (f->save_inputs.empty()) return "--save_inputs needs a directory";
    } else if (absl::StartsWith(arg, "-")) {
      return absl::StrCat("unknown flag '", arg, "'");
    } else if (f->module_path.empty()) {
      f->module_path = arg;
    } else {
      return absl::StrCat("unexpected argument '", arg, "' (one module file only)");
    }
  }
  if (f->module_path.empty()) return "no module file";
  if (!f->input_ranges.empty() && !f->io.random_inputs) return "--input_ranges is for --random_inputs";
  if (f->replicas > 0 && !f->save_inputs.empty()) {
    return "--save_inputs writes one device's inputs; drop it or --replicas";
  }
  return CheckTensorIoFlags(f->io);
}

// One argument list per participant: from --input files with a leading
// dimension of `n`, or drawn per participant.
absl::StatusOr<std::vector<std::vector<Literal>>> ReplicatedInputs(
    const HloModule& module, const std::string& module_path, const TensorIoFlags& io,
    const std::string& ranges_flag, int64_t n, std::ostream& log) {
  std::vector<std::vector<Literal>> args(n);
  if (io.random_inputs) {
    for (int64_t d = 0; d < n; ++d) {
      const uint64_t seed = ParticipantSeed(io.seed, d);
      absl::StatusOr<std::vector<Literal>> drawn = MakeRandomInputs(module, seed);
      if (!drawn.ok()) return drawn.status();
      std::ostringstream quiet;  // the note once, from participant 0's draw below
      if (absl::Status s = ApplyInputRangesFor(ranges_flag, {module_path}, seed, &*drawn,
                                               d == 0 ? log : static_cast<std::ostream&>(quiet));
          !s.ok()) {
        return s;
      }
      args[d] = std::move(*drawn);
    }
    return args;
  }
  const HloComputation& entry = *module.entry_computation();
  int64_t tokens = 0;
  for (const HloInstruction* p : entry.parameter_instructions()) tokens += p->shape().IsToken();
  if (static_cast<int64_t>(io.inputs.size()) != entry.num_parameters() - tokens) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the module takes ", entry.num_parameters() - tokens, " parameters but ",
        io.inputs.size(), " --input files were given",
        tokens > 0 ? absl::StrCat(" (and ", tokens, " token parameters, which take none)") : ""));
  }
  size_t next = 0;
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    const HloInstruction* p = entry.parameter_instruction(i);
    if (p->shape().IsToken()) {  // holds nothing: a token for every participant
      for (int64_t d = 0; d < n; ++d) args[d].emplace_back(p->shape());
      continue;
    }
    const std::string& path = io.inputs[next++];
    absl::StatusOr<Literal> file = ReadNpyFile(path);
    if (!file.ok()) return file.status();
    if (!file->shape().IsArray() || file->shape().rank() == 0 || file->shape().dimensions(0) != n) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, " (parameter ", i, ", '", p->name(), "') has shape ",
          file->shape().ToString(false), "; with ", n,
          " participants it needs a leading dimension of ", n, " followed by ",
          p->shape().ToString(false)));
    }
    for (int64_t d = 0; d < n; ++d) {
      absl::StatusOr<Literal> arg = ConvertNpyLiteral(
          tools::LeadingSlice(*file, d),
          p->shape(), absl::StrCat("parameter ", i, " ('", p->name(), "') slice ", d, " from ",
                                   path));
      if (!arg.ok()) return arg.status();
      args[d].push_back(std::move(*arg));
    }
  }
  return args;
}

// `xla_aot eval --replicas=N`: every participant's result leaves stacked.
int RunReplicatedEval(const EvalFlags& flags, const HloModule& module, std::ostream& out,
                      std::ostream& err) {
  ReplicatedEvaluatorOptions options;
  options.num_replicas = flags.replicas;
  options.evaluator = flags.options;
  absl::StatusOr<int64_t> n = ReplicatedParticipantCount(module, options);
  if (!n.ok()) {
    err << "xla_aot eval: " << n.status().message() << "\n";
    return kExitBadInput;
  }
  absl::StatusOr<std::vector<std::vector<Literal>>> inputs = ReplicatedInputs(module, flags.module_path, flags.io, flags.input_ranges, *n, err);
  if (!inputs.ok()) {
    err << "xla_aot eval: " << inputs.status().message() << "\n";
    return kExitBadInput;
  }
  HostTransferFlags host_flags = flags.host_transfers;
  if (flags.io.random_inputs) host_flags.random_seed = flags.io.seed;
  ReplicatedHostTransfers host_transfers(host_flags, *n, &err);
  options.host_transfers = host_transfers.evaluator_hooks();
  absl::StatusOr<std::vector<Literal>> results = EvaluateReplicated(module, *inputs, options);
  if (!results.ok()) {
    err << flags.module_path << ": evaluation failed: " << results.status().message() << "\n";
    return kExitBadInput;
  }
  if (absl::Status s = host_transfers.WriteSends(); !s.ok()) {
    err << "xla_aot eval: --host_send_dir: " << s.message() << "\n";
    return kExitBadInput;
  }
  std::vector<std::vector<const Literal*>> leaves;
  for (const Literal& r : *results) leaves.push_back(FlattenLeaves(r));
  absl::StatusOr<std::vector<Literal>> stacked = tools::StackParticipantLeaves(leaves, "output");
  if (!stacked.ok()) {
    err << "xla_aot eval: " << stacked.status().message() << "\n";
    return kExitBadInput;
  }
  std::vector<const Literal*> ptrs;
  for (const Literal& s : *stacked) ptrs.push_back(&s);
  if (absl::Status s = EmitResults(flags.io, ptrs, out); !s.ok()) {
    err << "xla_aot eval: " << s.message() << "\n";
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace

absl::StatusOr<std::vector<Literal>> LoadInputs(const HloModule& module,
                                                const std::vector<std::string>& paths) {
  const HloComputation& entry = *module.entry_computation();
  int64_t tokens = 0;
  for (const HloInstruction* p : entry.parameter_instructions()) tokens += p->shape().IsToken();
  if (static_cast<int64_t>(paths.size()) != entry.num_parameters() - tokens) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the module takes ", entry.num_parameters() - tokens, " parameters but ", paths.size(),
        " --input files were given",
        tokens > 0 ? absl::StrCat(" (and ", tokens, " token parameters, which take none)") : ""));
  }
  std::vector<Literal> args;
  size_t next = 0;
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    const HloInstruction* p = entry.parameter_instruction(i);
    if (p->shape().IsToken()) {
      args.emplace_back(p->shape());
      continue;
    }
    const std::string& path = paths[next++];
    absl::StatusOr<Literal> file = ReadNpyFile(path);
    if (!file.ok()) return file.status();
    absl::StatusOr<Literal> arg = ConvertNpyLiteral(
        *file, p->shape(), absl::StrCat("parameter ", i, " ('", p->name(), "') from ", path));
    if (!arg.ok()) return arg.status();
    args.push_back(std::move(*arg));
  }
  return args;
}

int RunEval(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") {
      out << kEvalHelp;
      return kExitOk;
    }
  }
  EvalFlags flags;
  if (std::string usage = ParseFlags(args, &flags); !usage.empty()) {
    err << "xla_aot eval: " << usage << "\n" << kEvalHelp;
    return kExitUsage;
  }
  std::vector<std::string> invented;
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloFileFillingElided(
      flags.module_path, flags.elided.mode.value_or(ElidedConstantsMode::kError),
      flags.elided.seed.value_or(0), &invented);
  if (!module.ok()) {
    err << module.status().message() << "\n";
    return kExitBadInput;
  }
  if (!invented.empty()) {
    err << "xla_aot eval: warning: invented the values of " << invented.size()
        << " elided constant(s): results are not the real model's\n";
  }
  if (absl::Status v = VerifyModule(**module); !v.ok()) {
    err << v.message() << "\n";
    return kExitBadInput;
  }
  if (flags.replicas > 0) return RunReplicatedEval(flags, **module, out, err);
  absl::StatusOr<std::vector<Literal>> inputs =
      flags.io.random_inputs ? MakeRandomInputs(**module, flags.io.seed)
                             : LoadInputs(**module, flags.io.inputs);
  if (inputs.ok() && flags.io.random_inputs) {
    if (absl::Status s = ApplyInputRangesFor(flags.input_ranges, {flags.module_path}, flags.io.seed,
                                             &*inputs, err);
        !s.ok()) {
      inputs = s;
    }
  }
  if (!inputs.ok()) {
    err << "xla_aot eval: " << inputs.status().message() << "\n";
    return kExitBadInput;
  }
  for (size_t i = 0; i < inputs->size() && !flags.save_inputs.empty(); ++i) {
    const std::string path = absl::StrCat(flags.save_inputs, "/in", i, ".npy");
    if (absl::Status s = WriteNpyFile(path, (*inputs)[i]); !s.ok()) {
      err << "xla_aot eval: --save_inputs: " << s.message() << "\n";
      return kExitBadInput;
    }
  }
  HostTransferFlags host_flags = flags.host_transfers;
  if (flags.io.random_inputs) host_flags.random_seed = flags.io.seed;
  HostTransferServer host_transfers(host_flags, &err);
  EvaluatorOptions options = flags.options;
  options.host_transfers = &host_transfers.evaluator_hook();
  absl::StatusOr<Literal> result = HloEvaluator(options).Evaluate(**module, *inputs);
  if (!result.ok()) {
    err << flags.module_path << ": evaluation failed: " << result.status().message() << "\n";
    return kExitBadInput;
  }
  if (absl::Status s = EmitResults(flags.io, FlattenLeaves(*result), out); !s.ok()) {
    err << "xla_aot eval: " << s.message() << "\n";
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace xla::cli
