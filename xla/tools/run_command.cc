#include "xla/tools/run_command.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "xla/aot/executable.h"
#include "xla/aot/literal_execution.h"
#include "xla/aot/replicated_execution.h"
#include "xla/backends/gpu/runtime/invented_constants.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/replicated_evaluator.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/hlo/verifier/hlo_verifier.h"
#include "xla/stream_executor/platform_registry.h"
#include "xla/tools/bench_command.h"
#include "xla/tools/chrome_trace.h"
#include "xla/tools/cuda_graphs_flag.h"
#include "xla/tools/elided_constant_flags.h"
#include "xla/tools/exit_codes.h"
#include "xla/tools/host_transfer_flags.h"
#include "xla/tools/input_ranges.h"
#include "xla/tools/replicated_host_transfers.h"
#include "xla/tools/replicated_run.h"
#include "xla/tools/tensor_io.h"
#include "xla/tools/trust_flags.h"
#include "xla/types/npy.h"
#include "xla/util/status_macros.h"

namespace xla::cli {

const char kRunHelp[] =
    "usage: xla_aot run FILE.xaot [--input=A.npy ...]\n"
    "                            [--random_inputs [--seed=N] [--input_ranges=FILE.json|none]]\n"
    "                            [--output_dir=DIR] [--print]\n"
    "                            [--reference=FILE.hlo | --expected=DIR]\n"
    "                            [--elided_constants=error|zeros|random [--elided_constants_seed=N]]\n"
    "                            [--cuda_graphs=on|off]\n"
    "                            [--host_recv=CHANNEL=FILE.npy ...] [--host_send_dir=DIR]\n"
    "\n"
    "Loads a compiled artifact (validating all of it) and runs it on its target's\n"
    "device (target host runs on the host platform).\n"
    "\n"
    "  --input=PATH          one .npy per parameter, in order\n"
    "  --random_inputs       draw inputs: floats in [-1,1), integers in [0,8)\n"
    "  --seed=N              seed for --random_inputs (default 0)\n"
    XLA_AOT_INPUT_RANGES_FLAG_HELP
    "                        (MODULE: the --reference module, else the artifact)\n"
    "  --output_dir=DIR      write DIR/out0.npy, out1.npy, ... (result leaves, depth-first)\n"
    "  --print               print the results (the default without --output_dir\n"
    "                        and --reference)\n"
    "  --reference=FILE.hlo  also evaluate FILE.hlo (the unoptimized module) on the\n"
    "                        reference evaluator with the same inputs and print, per\n"
    "                        output, the max absolute and relative error and PASS or\n"
    "                        FAIL; exit code 3 when any output fails. An element\n"
    "                        passes when |got - want| <= tol * (|want| + max|want|),\n"
    "                        tol being the per-type tolerance (1e-5 for f32) times\n"
    "                        --tolerance_scale (default 1): relative, but not\n"
    "                        failing on cancellation in sums (GEMMs sum in another\n"
    "                        order than the evaluator). Integers compare exactly\n"
    "  --expected=DIR        compare, as --reference does, with DIR/out0.npy,\n"
    "                        out1.npy, ... instead of evaluating: the outputs\n"
    "                        `xla_aot eval FILE.hlo --output_dir=DIR` wrote for the\n"
    "                        same inputs (same --input files, or the same\n"
    "                        --random_inputs --seed). For devices far from the\n"
    "                        reference: evaluate here, carry DIR along\n"
    "  --tolerance_scale=X   scale the float tolerance of --reference/--expected\n"
    "  --trace=PATH          after the run, run once more (warm, same inputs) with\n"
    "                        every thunk timed on its stream and write a Chrome\n"
    "                        trace-event JSON (chrome://tracing, ui.perfetto.dev)\n"
    "  --replicas=N          run N replicas, one thread each: on N host devices\n"
    "                        for a host artifact (collectives in process), on\n"
    "                        GPUs 0..N-1 for an sm_XX artifact (collectives\n"
    "                        through NCCL). An SPMD artifact compiled for P\n"
    "                        partitions runs N x P participants, replica-major,\n"
    "                        and the leading dimension below is N x P.\n"
    "                        Every --input carries a leading dimension N (slice i\n"
    "                        is replica i's argument; --random_inputs draws the\n"
    "                        stacked arrays; token parameters take none) and\n"
    "                        every output gets the same leading\n"
    "                        dimension. With --reference the oracle is the\n"
    "                        replicated evaluator (`xla_aot eval --replicas=N`)\n"
    XLA_AOT_CUDA_GRAPHS_FLAG_HELP
    XLA_AOT_HOST_TRANSFER_FLAGS_HELP
    "Host transfers (an artifact compiled with --emit_host_transfers): each send\n"
    "is printed on stderr; a recv without --host_recv for its channel fails the run\n"
    "naming the channel, unless --random_inputs draws its data (from the seed, the\n"
    "channel and the recv's count). --reference serves the evaluator the same recv\n"
    "data and compares its sends with the artifact's, as outputs (by channel and\n"
    "count). Token parameters take no --input. With --replicas every participant\n"
    "has its own host side: participant d reads slice d of each --host_recv file\n"
    "(leading dimension N x P) or draws from its own seed, as `eval --replicas`\n"
    "does; sends print as \"host send: participant d ...\", --host_send_dir gets\n"
    "them stacked over the participants after the run, and --reference compares\n"
    "each participant's sends with the replicated evaluator's (\"send participant\n"
    "d channel C #N ...: PASS\").\n"
    "An artifact compiled with --elided_constants=zeros|random (inspect lists\n"
    "`constants: N invented`) computes with invented values: run warns on stderr,\n"
    "and --reference invents the same values in FILE.hlo (the artifact's mode and\n"
    "seed) unless these flags say otherwise:\n"
    XLA_AOT_ELIDED_CONSTANT_FLAGS_HELP
    XLA_AOT_TRUST_FLAGS_HELP;

namespace {

struct RunFlags {
  std::string artifact;
  std::string reference;
  std::string expected;  // directory of out<i>.npy
  std::string trace;
  double tolerance_scale = 1.0;
  int64_t replicas = 0;  // 0: no --replicas, one device
  bool cuda_graphs = true;
  TensorIoFlags io;
  TrustFlags trust;
  ElidedConstantFlags elided;  // for --reference
  HostTransferFlags host_transfers;
  std::string input_ranges;  // --input_ranges: a path, "none", or "" (look beside)
};

std::string ParseFlags(const std::vector<std::string>& args, RunFlags* f) {
  for (const std::string& arg : args) {
    std::string error;
    if (ParseTensorIoFlag(arg, &f->io, &error)) {
      if (!error.empty()) return error;
    } else if (ParseTrustFlag(arg, &f->trust, &error)) {
      if (!error.empty()) return error;
    } else if (ParseElidedConstantFlag(arg, &f->elided, &error)) {
      if (!error.empty()) return error;
    } else if (ParseCudaGraphsFlag(arg, &f->cuda_graphs, &error)) {
      if (!error.empty()) return error;
    } else if (ParseHostTransferFlag(arg, &f->host_transfers, &error)) {
      if (!error.empty()) return error;
    } else if (ParseInputRangesFlag(arg, &f->input_ranges, &error)) {
      if (!error.empty()) return error;
    } else if (absl::StartsWith(arg, "--tolerance_scale=")) {
      if (!absl::SimpleAtod(arg.substr(std::string("--tolerance_scale=").size()),
                            &f->tolerance_scale) ||
          !(f->tolerance_scale > 0)) {
        return absl::StrCat("bad ", arg, " (a positive number)");
      }
    } else if (absl::StartsWith(arg, "--trace=")) {
      f->trace = arg.substr(std::string("--trace=").size());
      if (f->trace.empty()) return "--trace needs an output file";
    } else if (absl::StartsWith(arg, "--replicas=")) {
      const std::string v = arg.substr(std::string("--replicas=").size());
      if (!absl::SimpleAtoi(v, &f->replicas) || f->replicas <= 0) {
        return absl::StrCat("bad --replicas value '", v, "' (a positive integer)");
      }
    } else if (absl::StartsWith(arg, "--reference=")) {
      f->reference = arg.substr(std::string("--reference=").size());
      if (f->reference.empty()) return "--reference needs an HLO file";
    } else if (absl::StartsWith(arg, "--expected=")) {
      f->expected = arg.substr(std::string("--expected=").size());
      if (f->expected.empty()) return "--expected needs a directory of out<i>.npy files";
    } else if (absl::StartsWith(arg, "-")) {
      return absl::StrCat("unknown flag '", arg, "'");
    } else if (f->artifact.empty()) {
      f->artifact = arg;
    } else {
      return absl::StrCat("unexpected argument '", arg, "' (one artifact only)");
    }
  }
  if (f->artifact.empty()) return "no artifact file";
  if (!f->input_ranges.empty() && !f->io.random_inputs) return "--input_ranges is for --random_inputs";
  if (f->replicas > 0 && !f->trace.empty()) return "--trace traces one device; drop it or --replicas";
  if (f->replicas > 0 && !f->cuda_graphs) return "--cuda_graphs=off is for one-device runs; drop it or --replicas";
  if (!f->reference.empty() && !f->expected.empty()) {
    return "--reference and --expected are two oracles: give one";
  }
  return CheckTensorIoFlags(f->io);
}

struct RunOutcome {
  std::vector<Literal> inputs;
  std::vector<Literal> leaves;
  std::vector<HostSend> sends;  // the artifact's host sends, in order
  // payload.invented_constants, when the artifact has it.
  std::optional<gpu::InventedConstantsProto> invented;
};

// `shape` with every array parameter given a leading dimension `n` (the
// stacked inputs of --replicas); token parameters stay tokens.
ProgramShape StackedProgramShape(const ProgramShape& shape, int64_t n) {
  ProgramShape stacked = shape;
  for (Shape& p : stacked.parameters) {
    if (p.IsToken()) continue;
    std::vector<int64_t> dims = {n};
    dims.insert(dims.end(), p.dimensions().begin(), p.dimensions().end());
    p = Shape::Array(p.element_type(), dims);
  }
  return stacked;
}

// The host side of a run: the flags, drawing recvs from --seed under
// --random_inputs.
HostTransferFlags HostTransfersOf(const RunFlags& f) {
  HostTransferFlags flags = f.host_transfers;
  if (f.io.random_inputs) flags.random_seed = f.io.seed;
  return flags;
}

// Under --random_inputs, redraws the inputs whose parameters have a range in
// the ranges file (--input_ranges, or beside the reference or artifact).
absl::Status RangedInputs(const RunFlags& f, std::vector<Literal>* inputs, std::ostream& err) {
  if (!f.io.random_inputs) return absl::OkStatus();
  return ApplyInputRangesFor(f.input_ranges, {f.reference, f.artifact}, f.io.seed, inputs, err);
}

// Loads the artifact and runs it; warns on `err` before running an artifact
// whose constants were invented.
absl::StatusOr<RunOutcome> LoadAndRun(const RunFlags& f, std::ostream& err) {
  RunOutcome outcome;
  ASSIGN_OR_RETURN(const aot::LoadOptions load, LoadOptionsFromFlags(f.trust));
  ASSIGN_OR_RETURN(std::unique_ptr<aot::Executable> exe, aot::Executable::LoadFromFile(f.artifact, load));
  if (const gpu::GpuExecutablePayloadProto& p = exe->program().payload_tables();
      p.has_invented_constants()) {
    outcome.invented = p.invented_constants();
    err << "xla_aot run: warning: " << f.artifact << ": constants: "
        << gpu::InventedConstantsSummary(p.invented_constants())
        << "; the results are not the real model's\n";
  }
  if (f.replicas > 0) {
    for (const Shape& p : exe->program_shape().parameters) {
      if (!p.IsArray() && !p.IsToken()) {
        return absl::InvalidArgumentError("--replicas needs array or token parameters (no tuples)");
      }
    }
    // One stacked slice per participant: replicas x the partitions the
    // artifact's collectives were compiled for.
    ASSIGN_OR_RETURN(const int64_t partitions, aot::ProgramNumPartitions(*exe->program().root));
    ASSIGN_OR_RETURN(outcome.inputs,
                     MakeInputs(f.io, StackedProgramShape(exe->program_shape(),
                                                          f.replicas * partitions)));
    RETURN_IF_ERROR(RangedInputs(f, &outcome.inputs, err));
    ReplicatedHostTransfers host_transfers(HostTransfersOf(f), f.replicas * partitions, &err);
    ASSIGN_OR_RETURN(outcome.leaves,
                     tools::RunReplicated(*exe, f.replicas, outcome.inputs,
                                          gpu::kDefaultCollectiveTimeout,
                                          host_transfers.callbacks()));
    outcome.sends = host_transfers.sends();
    RETURN_IF_ERROR(host_transfers.WriteSends());
    return outcome;
  }
  ASSIGN_OR_RETURN(outcome.inputs, MakeInputs(f.io, exe->program_shape()));
  RETURN_IF_ERROR(RangedInputs(f, &outcome.inputs, err));
  ASSIGN_OR_RETURN(stream_executor::Platform * platform,
                   stream_executor::PlatformRegistry::GetPlatform(exe->program().target.platform));
  ASSIGN_OR_RETURN(stream_executor::StreamExecutor * device, platform->GetDevice(0));
  aot::ExecuteOptions options;
  options.cuda_graphs = f.cuda_graphs;
  HostTransferServer host_transfers(HostTransfersOf(f), &err);
  options.host_transfers = &host_transfers.callbacks();
  ASSIGN_OR_RETURN(outcome.leaves, aot::ExecuteOnLiterals(*exe, device, outcome.inputs, options));
  outcome.sends = host_transfers.sends();
  return outcome;
}

// Fills `value` (of a parameter's shape) from `leaves`, from *next on.
absl::Status FillFromLeaves(const std::vector<Literal>& leaves, size_t* next, Literal* value) {
  if (!value->shape().IsTuple()) {
    if (*next >= leaves.size() || !ShapesCompatible(leaves[*next].shape(), value->shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the artifact's inputs do not fit the reference module's parameters (input ", *next,
          " should be ", value->shape().ToString(false), ")"));
    }
    *value = leaves[(*next)++];
    return absl::OkStatus();
  }
  for (Literal& e : *value->mutable_tuple_elements()) RETURN_IF_ERROR(FillFromLeaves(leaves, next, &e));
  return absl::OkStatus();
}

// The reference module's arguments from the artifact's inputs: the same
// when they match its parameters one to one, else its tuple parameters
// rebuilt from the leaves the artifact takes (the compiler gives a tuple
// entry parameter one parameter per leaf, entry_parameter_flattener.h).
absl::StatusOr<std::vector<Literal>> ReferenceArguments(const HloModule& module,
                                                        const std::vector<Literal>& inputs) {
  const HloComputation* entry = module.entry_computation();
  if (static_cast<int64_t>(inputs.size()) == entry->num_parameters()) return inputs;
  std::vector<Literal> args;
  size_t next = 0;
  for (const HloInstruction* p : entry->parameter_instructions()) {
    Literal value(p->shape());
    RETURN_IF_ERROR(FillFromLeaves(inputs, &next, &value));
    args.push_back(std::move(value));
  }
  if (next != inputs.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the artifact takes ", inputs.size(),
                                                   " inputs but the reference module's parameters hold ",
                                                   next));
  }
  return args;
}

// Evaluates the reference module on `inputs` and compares every output leaf
// with `actual` (CompareOutputLeaf); writes one line per leaf and a verdict.
// Returns whether all leaves pass, or an error when the reference cannot be
// evaluated.
// The reference module's result leaves on `inputs`: one evaluation, or
// with `replicas` > 0 the replicated evaluator on the unstacked inputs,
// every leaf stacked again. Its host transfers are served from `host_flags`
// (as the run's were) and its sends appended to `sends`. `storage` keeps
// the evaluated values alive.
absl::StatusOr<std::vector<const Literal*>> ReferenceLeaves(const HloModule& module,
                                                            const std::vector<Literal>& inputs,
                                                            int64_t replicas,
                                                            const HostTransferFlags& host_flags,
                                                            std::vector<HostSend>* sends,
                                                            std::vector<Literal>* storage) {
  if (replicas == 0) {
    ASSIGN_OR_RETURN(const std::vector<Literal> args, ReferenceArguments(module, inputs));
    HostTransferServer host(host_flags, nullptr);
    EvaluatorOptions options;
    options.host_transfers = &host.evaluator_hook();
    ASSIGN_OR_RETURN(Literal expected, HloEvaluator(options).Evaluate(module, args));
    *sends = host.sends();
    storage->push_back(std::move(expected));
    return FlattenLeaves(storage->back());
  }
  ReplicatedEvaluatorOptions options;
  options.num_replicas = replicas;
  ASSIGN_OR_RETURN(const int64_t participants, ReplicatedParticipantCount(module, options));
  ASSIGN_OR_RETURN(std::vector<std::vector<Literal>> args,
                   tools::UnstackArguments(inputs, participants));
  ReplicatedHostTransfers host(host_flags, participants, nullptr);
  options.host_transfers = host.evaluator_hooks();
  ASSIGN_OR_RETURN(std::vector<Literal> results, EvaluateReplicated(module, args, options));
  *sends = host.sends();
  std::vector<std::vector<const Literal*>> per_replica;
  for (const Literal& r : results) per_replica.push_back(FlattenLeaves(r));
  ASSIGN_OR_RETURN(*storage, tools::StackParticipantLeaves(per_replica, "reference output"));
  std::vector<const Literal*> leaves;
  for (const Literal& s : *storage) leaves.push_back(&s);
  return leaves;
}

// The expected leaves `xla_aot eval --output_dir=dir` wrote: dir/out<i>.npy
// for each of the artifact's leaves (`actual`), and no more, each converted
// from its travel type (f32 for bf16, ...) to the leaf's shape.
absl::StatusOr<std::vector<Literal>> ReadExpectedLeaves(const std::string& dir,
                                                        const std::vector<Literal>& actual) {
  const size_t count = actual.size();
  const std::string how = absl::StrCat(
      " (write them with `xla_aot eval FILE.hlo --output_dir=", dir, "` on the same inputs)");
  std::vector<Literal> leaves;
  for (size_t i = 0; i < count; ++i) {
    const std::string path = absl::StrCat(dir, "/out", i, ".npy");
    absl::StatusOr<Literal> file = ReadNpyFile(path);
    if (!file.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("the artifact has ", count, " outputs but ",
                                                     path, ": ", file.status().message(), how));
    }
    ASSIGN_OR_RETURN(Literal leaf,
                     ConvertNpyLiteral(*file, actual[i].shape(), absl::StrCat("output ", i)));
    leaves.push_back(std::move(leaf));
  }
  const std::string extra = absl::StrCat(dir, "/out", count, ".npy");
  if (std::ifstream(extra).good()) {
    return absl::InvalidArgumentError(absl::StrCat(
        dir, " holds ", extra, " but the artifact has only ", count,
        " outputs: the expected outputs are of another module"));
  }
  return leaves;
}

// Compares every output leaf with the expected one (CompareOutputLeaf); writes
// one line per leaf and a verdict naming `source`. Returns whether all pass.
bool CompareLeaves(const std::vector<const Literal*>& leaves, const std::vector<Literal>& actual,
                   double scale, const std::string& source, std::ostream& out) {
  bool all_pass = true;
  for (size_t i = 0; i < leaves.size(); ++i) {
    const Literal& want = *leaves[i];
    const Literal& got = actual[i];
    double max_abs = 0, max_rel = 0;
    // Complex outputs: errors are moduli of the difference (|w - g|, |w|).
    const bool complex = IsComplex(want.shape().element_type());
    const bool numeric = want.shape().IsArray() && got.shape().IsArray() &&
                         got.element_count() == want.element_count() &&
                         complex == IsComplex(got.shape().element_type());
    for (int64_t k = 0; numeric && k < want.element_count(); ++k) {
      const std::complex<double> w =
          complex ? want.GetComplex(k) : std::complex<double>(want.GetDouble(k), 0);
      const std::complex<double> g =
          complex ? got.GetComplex(k) : std::complex<double>(got.GetDouble(k), 0);
      if (std::isnan(std::abs(w)) && std::isnan(std::abs(g))) continue;
      const double abs_err = std::abs(w - g);
      max_abs = std::max(max_abs, abs_err);
      if (std::abs(w) != 0) max_rel = std::max(max_rel, abs_err / std::abs(w));
    }
    const absl::Status same = CompareOutputLeaf(want, got, scale);
    all_pass &= same.ok();
    out << absl::StrFormat("out%d %s: max_abs_err=%.3g max_rel_err=%.3g %s\n", i,
                           got.shape().ToString(false), max_abs, max_rel,
                           same.ok() ? "PASS" : absl::StrCat("FAIL (", same.message(), ")"));
  }
  out << (all_pass ? "PASS" : "FAIL") << ": " << leaves.size() << " outputs against " << source
      << "\n";
  return all_pass;
}

// How --reference fills the reference module's elided constants: the flags,
// else what the artifact recorded, else refuse them.
std::pair<ElidedConstantsMode, uint64_t> ReferenceElidedConstants(
    const ElidedConstantFlags& flags, const std::optional<gpu::InventedConstantsProto>& invented) {
  ElidedConstantsMode mode = ElidedConstantsMode::kError;
  uint64_t seed = 0;
  if (invented.has_value()) {
    mode = invented->mode() == gpu::INVENTED_CONSTANTS_MODE_RANDOM ? ElidedConstantsMode::kRandom
                                                                   : ElidedConstantsMode::kZeros;
    seed = invented->seed();
  }
  return {flags.mode.value_or(mode), flags.seed.value_or(seed)};
}

// Evaluates `path` on the run's inputs (its host transfers served as the
// run's were, from `host_flags`) and compares its output leaves and host
// sends with the run's. Returns whether all pass.
absl::StatusOr<bool> CompareWithReference(const std::string& path, const RunOutcome& run,
                                          double scale, int64_t replicas,
                                          std::pair<ElidedConstantsMode, uint64_t> elided,
                                          HostTransferFlags host_flags, std::ostream& out) {
  const std::vector<Literal>& actual = run.leaves;
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module,
                   ParseHloFileFillingElided(path, elided.first, elided.second, nullptr));
  if (absl::Status v = VerifyModule(*module); !v.ok()) {
    return absl::InvalidArgumentError(v.message());
  }
  std::vector<Literal> storage;
  host_flags.send_dir.clear();  // the artifact's sends are the ones written
  std::vector<HostSend> sends;
  ASSIGN_OR_RETURN(const std::vector<const Literal*> leaves,
                   ReferenceLeaves(*module, run.inputs, replicas, host_flags, &sends, &storage));
  if (leaves.size() != actual.size()) {
    return absl::InvalidArgumentError(absl::StrCat(path, " has ", leaves.size(),
                                                   " output leaves but the artifact has ",
                                                   actual.size()));
  }
  const bool outputs_pass = CompareLeaves(leaves, actual, scale, path, out);
  return CompareHostSends(sends, run.sends, scale, out) && outputs_pass;
}

absl::StatusOr<bool> CompareWithExpected(const std::string& dir, const std::vector<Literal>& actual,
                                         double scale, std::ostream& out) {
  ASSIGN_OR_RETURN(const std::vector<Literal> expected, ReadExpectedLeaves(dir, actual));
  std::vector<const Literal*> leaves;
  for (const Literal& e : expected) leaves.push_back(&e);
  return CompareLeaves(leaves, actual, scale, dir, out);
}

// One more (warm) run of `artifact` on `inputs`, traced into `path`.
absl::Status WriteTrace(const RunFlags& f, const std::vector<Literal>& inputs) {
  ASSIGN_OR_RETURN(const aot::LoadOptions load, LoadOptionsFromFlags(f.trust));
  ASSIGN_OR_RETURN(DeviceRunner runner, DeviceRunner::Create(f.artifact, inputs, load));
  const std::string& path = f.trace;
  gpu::ThunkTracer tracer;
  RETURN_IF_ERROR(runner.Run(&tracer));
  return WriteChromeTrace(path, tracer.events(),
                          absl::StrCat("xla_aot run ", runner.exe->program().module_name()));
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
  absl::StatusOr<RunOutcome> run = LoadAndRun(flags, err);
  if (!run.ok()) {
    err << "xla_aot run: " << flags.artifact << ": " << run.status().message() << "\n";
    return kExitBadInput;
  }
  if (!flags.trace.empty()) {
    if (absl::Status s = WriteTrace(flags, run->inputs); !s.ok()) {
      err << "xla_aot run: --trace: " << s.message() << "\n";
      return kExitBadInput;
    }
  }
  std::vector<const Literal*> pointers;
  for (const Literal& leaf : run->leaves) pointers.push_back(&leaf);
  const bool compare = !flags.reference.empty() || !flags.expected.empty();
  const bool emit = !compare || flags.io.print || !flags.io.output_dir.empty();
  if (emit) {
    if (absl::Status s = EmitResults(flags.io, pointers, out); !s.ok()) {
      err << "xla_aot run: " << s.message() << "\n";
      return kExitBadInput;
    }
  }
  if (!compare) return kExitOk;
  absl::StatusOr<bool> pass =
      flags.reference.empty()
          ? CompareWithExpected(flags.expected, run->leaves, flags.tolerance_scale, out)
          : CompareWithReference(flags.reference, *run, flags.tolerance_scale, flags.replicas,
                                 ReferenceElidedConstants(flags.elided, run->invented),
                                 HostTransfersOf(flags), out);
  if (!pass.ok()) {
    err << "xla_aot run: " << (flags.reference.empty() ? "--expected" : "--reference") << ": "
        << pass.status().message() << "\n";
    return kExitBadInput;
  }
  return *pass ? kExitOk : kExitMismatch;
}

}  // namespace xla::cli
