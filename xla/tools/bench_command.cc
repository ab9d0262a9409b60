#include "xla/tools/bench_command.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "xla/stream_executor/host/host_gemm.h"
#include "xla/backends/gpu/runtime/host_object_variants.h"
#include "xla/stream_executor/host/cpu_features.h"
#include "xla/stream_executor/platform_registry.h"
#include "xla/tools/bench_stats.h"
#include "xla/tools/cuda_graphs_flag.h"
#include "xla/tools/exit_codes.h"
#include "xla/types/npy.h"
#include "xla/types/physical_layout.h"
#include "xla/types/random_literal.h"
#include "xla/tools/trust_flags.h"
#include "xla/util/status_macros.h"

namespace xla::cli {

const char kBenchHelp[] =
    "usage: xla_aot bench FILE.xaot [--iterations=N] [--warmup=N] [--cuda_graphs=on|off]\n"
    "                              [--input=A.npy ...|--random_inputs [--seed=N]]\n"
    "\n"
    "Runs a compiled artifact --warmup times (default 3), then --iterations times\n"
    "(default 20) timed, then --iterations times traced, reusing one loaded\n"
    "executable and one copy of the inputs on the device. Prints the median,\n"
    "min, p10, p90 and max wall time of Execute over the timed runs; the own time\n"
    "of each thunk kind over the traced runs (nested thunks' time counted once);\n"
    "and for each kernel, GEMM and copy thunk its median time per run, achieved\n"
    "bytes/s (sizes of the slices it reads and writes; a device-to-device copy is\n"
    "the bandwidth baseline) and, for GEMMs, FLOP/s\n"
    "(2*M*N*K*batch). Without inputs flags, --random_inputs is implied.\n"
    "Also prints the CUDA graphs built (graphs and nodes per run, instantiated\n"
    "graphs, node updates) or why there are none. The timed runs use them; the\n"
    "traced runs launch every thunk on its own (a graph has no per-thunk stamps).\n"
    "\n"
    "  --iterations=N        timed (and traced) runs, >= 1\n"
    "  --warmup=N            untimed runs first, >= 0\n"
    "  --input=PATH          one .npy per parameter, in order\n"
    "  --random_inputs       draw inputs: floats in [-1,1), integers in [0,8)\n"
    "  --seed=N              seed for --random_inputs (default 0)\n"
    XLA_AOT_CUDA_GRAPHS_FLAG_HELP
    XLA_AOT_TRUST_FLAGS_HELP;

namespace se = ::stream_executor;

absl::StatusOr<std::vector<Literal>> MakeInputs(const TensorIoFlags& f, const ProgramShape& shape) {
  std::vector<Literal> inputs;
  // Token parameters (host transfers' programs) hold nothing: an empty
  // literal, no --input file, no random draw.
  const auto is_token = [](const Shape& p) { return p.IsToken(); };
  if (f.random_inputs) {
    for (size_t i = 0; i < shape.parameters.size(); ++i) {
      if (is_token(shape.parameters[i])) {
        inputs.emplace_back(shape.parameters[i]);
        continue;
      }
      ASSIGN_OR_RETURN(Literal arg, MakeRandomLiteral(shape.parameters[i], f.seed * 1000003 + i));
      inputs.push_back(std::move(arg));
    }
    return inputs;
  }
  const size_t tokens = std::count_if(shape.parameters.begin(), shape.parameters.end(), is_token);
  if (f.inputs.size() != shape.parameters.size() - tokens) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the artifact takes ", shape.parameters.size() - tokens, " parameters but ",
        f.inputs.size(), " --input files were given",
        tokens > 0 ? absl::StrCat(" (and ", tokens, " token parameters, which take none)") : ""));
  }
  size_t next = 0;
  for (size_t i = 0; i < shape.parameters.size(); ++i) {
    if (is_token(shape.parameters[i])) {
      inputs.emplace_back(shape.parameters[i]);
      continue;
    }
    const std::string& path = f.inputs[next++];
    ASSIGN_OR_RETURN(Literal file, ReadNpyFile(path));
    ASSIGN_OR_RETURN(Literal arg, ConvertNpyLiteral(file, shape.parameters[i],
                                                    absl::StrCat("parameter ", i, " from ", path)));
    inputs.push_back(std::move(arg));
  }
  return inputs;
}

absl::StatusOr<DeviceRunner> DeviceRunner::Create(const std::string& artifact,
                                                  const std::vector<Literal>& inputs,
                                                  const aot::LoadOptions& load) {
  DeviceRunner r;
  ASSIGN_OR_RETURN(r.exe, aot::Executable::LoadFromFile(artifact, load));
  ASSIGN_OR_RETURN(se::Platform * platform, se::PlatformRegistry::GetPlatform(r.exe->program().target.platform));
  ASSIGN_OR_RETURN(r.device, platform->GetDevice(0));
  RETURN_IF_ERROR(r.exe->Initialize(r.device));
  const ProgramShape& shape = r.exe->program_shape();
  if (inputs.size() != shape.parameters.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the program takes ", shape.parameters.size(),
                                                   " arguments, got ", inputs.size()));
  }
  // Physical copies must outlive the stream's queued copies: declared first.
  std::vector<std::vector<uint8_t>> physical_copies;
  ASSIGN_OR_RETURN(std::unique_ptr<se::Stream> stream, r.device->CreateStream());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!ShapesCompatible(inputs[i].shape(), shape.parameters[i])) {
      return absl::InvalidArgumentError(absl::StrCat("input ", i, " has shape ",
                                                     inputs[i].shape().ToString(false), " but parameter ",
                                                     i, " is ", shape.parameters[i].ToString(false)));
    }
    absl::Span<const uint8_t> data = inputs[i].data();
    if (!PhysicalOrderIsLogical(shape.parameters[i])) {
      std::vector<uint8_t>& physical = physical_copies.emplace_back(data.size());
      RETURN_IF_ERROR(LogicalToPhysical(shape.parameters[i], data, absl::MakeSpan(physical)));
      data = physical;
    }
    ASSIGN_OR_RETURN(se::OwningDeviceMemory memory, se::OwningDeviceMemory::Allocate(r.device, data.size()));
    if (!data.empty()) RETURN_IF_ERROR(stream->Memcpy(memory.ptr(), data.data(), data.size()));
    r.inputs.push_back(std::move(memory));
  }
  RETURN_IF_ERROR(stream->BlockHostUntilDone());
  return r;
}

absl::Status DeviceRunner::Run(gpu::ThunkTracer* tracer) {
  std::vector<aot::ExecutionArgument> args;
  args.reserve(inputs.size());
  for (const se::OwningDeviceMemory& m : inputs) args.push_back(aot::ExecutionArgument::Borrow(m.get()));
  gpu::ExecuteOptions options;
  options.tracer = tracer;
  options.cuda_graphs = cuda_graphs;
  return exe->Execute(device, std::move(args), options).status();
}

namespace {

struct BenchFlags {
  std::string artifact;
  int64_t iterations = 20;
  int64_t warmup = 3;
  bool cuda_graphs = true;
  TensorIoFlags io;
  TrustFlags trust;
};

std::string ParseFlags(const std::vector<std::string>& args, BenchFlags* f) {
  for (const std::string& arg : args) {
    std::string error;
    if (ParseTensorIoFlag(arg, &f->io, &error)) {
      if (!error.empty()) return error;
      if (!f->io.output_dir.empty() || f->io.print) return absl::StrCat("bench does not take ", arg);
    } else if (ParseTrustFlag(arg, &f->trust, &error)) {
      if (!error.empty()) return error;
    } else if (ParseCudaGraphsFlag(arg, &f->cuda_graphs, &error)) {
      if (!error.empty()) return error;
    } else if (absl::StartsWith(arg, "--iterations=")) {
      if (!absl::SimpleAtoi(arg.substr(13), &f->iterations) || f->iterations < 1) {
        return absl::StrCat("bad ", arg, " (an integer >= 1)");
      }
    } else if (absl::StartsWith(arg, "--warmup=")) {
      if (!absl::SimpleAtoi(arg.substr(9), &f->warmup) || f->warmup < 0) {
        return absl::StrCat("bad ", arg, " (an integer >= 0)");
      }
    } else if (absl::StartsWith(arg, "-")) {
      return absl::StrCat("unknown flag '", arg, "'");
    } else if (f->artifact.empty()) {
      f->artifact = arg;
    } else {
      return absl::StrCat("unexpected argument '", arg, "' (one artifact only)");
    }
  }
  if (f->artifact.empty()) return "no artifact file";
  if (f->io.inputs.empty()) f->io.random_inputs = true;
  return CheckTensorIoFlags(f->io);
}

int64_t SliceBytes(const gpu::BufferSliceProto& s) { return s.size(); }

// Bytes and FLOPs of a kernel or GEMM thunk, and the bytes of a copy, from
// its proto; other kinds get neither.
ThunkStaticInfo StaticInfo(const gpu::Thunk& thunk) {
  ThunkStaticInfo info;
  info.kind = std::string(gpu::ThunkKindName(thunk.kind()));
  info.name = thunk.info().profile_annotation.empty() ? info.kind : thunk.info().profile_annotation;
  absl::StatusOr<gpu::ThunkProto> proto = thunk.ToProto();
  if (!proto.ok()) return info;
  if (proto->has_kernel()) {
    int64_t bytes = 0;
    for (const gpu::BufferSliceProto& s : proto->kernel().args()) bytes += SliceBytes(s);
    info.bytes = bytes;
  } else if (proto->has_copy()) {
    // A device-to-device copy reads its source and writes its destination:
    // the baseline the kernels' achieved bandwidth is compared with.
    info.bytes = SliceBytes(proto->copy().source()) + SliceBytes(proto->copy().destination());
  } else if (proto->has_gemm()) {
    const gpu::GemmThunkProto& g = proto->gemm();
    info.bytes = SliceBytes(g.lhs()) + SliceBytes(g.rhs()) + SliceBytes(g.output());
    const PrimitiveTypeProto t = g.element_type();
    const bool complex = t == PRIMITIVE_TYPE_C64 || t == PRIMITIVE_TYPE_C128;
    if (!complex) {
      info.flops = 2.0 * static_cast<double>(g.m()) * static_cast<double>(g.n()) *
                   static_cast<double>(g.k()) * static_cast<double>(std::max<int64_t>(1, g.batch_size()));
    }
  }
  return info;
}

std::string Millis(double seconds) { return absl::StrFormat("%.3f ms", seconds * 1e3); }

std::string Rate(std::optional<double> per_second, absl::string_view unit) {
  if (!per_second.has_value()) return "n/a";
  const double v = *per_second;
  if (v >= 1e12) return absl::StrFormat("%.2f T%s", v / 1e12, unit);
  if (v >= 1e9) return absl::StrFormat("%.2f G%s", v / 1e9, unit);
  if (v >= 1e6) return absl::StrFormat("%.2f M%s", v / 1e6, unit);
  if (v >= 1e3) return absl::StrFormat("%.2f K%s", v / 1e3, unit);
  return absl::StrFormat("%.2f %s", v, unit);
}

// Which host code runs here: the build of the artifact's kernels this CPU
// picks (host_object_variants.h), with the extensions it adds to the
// baseline's, and the host GEMM's instruction set (they explain the times).
std::string HostCodeLine(const gpu::Program& p) {
  namespace sh = stream_executor::host;
  const char* bf16 = sh::HostGemmBf16Amx()   ? " (bf16: amx kernel, avx512bf16 below 16 rows/columns)"
                     : sh::HostGemmBf16Dot() ? " (bf16: avx512bf16 kernel)"
                                             : "";
  const std::string gemm = absl::StrCat(sh::HostGemmIsa(), bf16);
  if (p.views.host_shared_object.empty()) {
    return absl::StrCat("host code: no kernels, GEMM ", gemm, "\n");
  }
  const gpu::GpuExecutablePayloadProto& payload = p.payload_tables();
  const int v = gpu::ChooseHostObjectVariant(payload, se::host::MachineCpuFeatures());
  std::string kernels = "the baseline build";
  if (v >= 0) {
    const auto& base = p.artifact->header().host_cpu_features();
    std::vector<std::string> added;
    for (const std::string& f : payload.host_object_variants(v).cpu_features()) {
      if (std::find(base.begin(), base.end(), f) == base.end()) added.push_back(f);
    }
    kernels = absl::StrCat("host_object_variants[", v, "] (+", absl::StrJoin(added, ", "), ")");
  }
  return absl::StrCat("host code: kernels ", kernels, ", GEMM ", gemm, "\n");
}

absl::Status Bench(const BenchFlags& f, std::ostream& out) {
  ASSIGN_OR_RETURN(const aot::LoadOptions load, LoadOptionsFromFlags(f.trust));
  ASSIGN_OR_RETURN(std::unique_ptr<aot::Executable> probe, aot::Executable::LoadFromFile(f.artifact, load));
  ASSIGN_OR_RETURN(std::vector<Literal> literals, MakeInputs(f.io, probe->program_shape()));
  probe.reset();
  ASSIGN_OR_RETURN(DeviceRunner runner, DeviceRunner::Create(f.artifact, literals, load));
  runner.cuda_graphs = f.cuda_graphs;
  for (int64_t i = 0; i < f.warmup; ++i) RETURN_IF_ERROR(runner.Run());
  std::vector<double> seconds;
  for (int64_t i = 0; i < f.iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    RETURN_IF_ERROR(runner.Run());
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  // Traced runs: thunk ids by first appearance of each thunk.
  std::map<const gpu::Thunk*, int64_t> ids;
  std::map<int64_t, ThunkStaticInfo> info;
  std::vector<std::vector<ThunkSample>> traced;
  int64_t unmeasured = 0;
  gpu::ThunkTracer tracer;
  for (int64_t i = 0; i < f.iterations; ++i) {
    tracer.Clear();
    RETURN_IF_ERROR(runner.Run(&tracer));
    std::vector<ThunkSample>& samples = traced.emplace_back();
    for (const gpu::ThunkTraceEvent& e : tracer.events()) {
      auto [it, inserted] = ids.emplace(e.thunk, static_cast<int64_t>(ids.size()));
      if (inserted) info[it->second] = StaticInfo(*e.thunk);
      const bool measured = e.start_ns >= 0 && e.end_ns >= e.start_ns;
      unmeasured += measured ? 0 : 1;
      samples.push_back({it->second, e.parent, measured ? (e.end_ns - e.start_ns) / 1e9 : 0.0});
    }
  }
  const RunSummary run = Summarize(seconds);
  const BenchStats stats = ComputeBenchStats(traced, info);
  out << "bench: " << f.artifact << " (" << runner.exe->program().module_name() << ") on "
      << runner.device->platform_name() << ":" << runner.device->device_ordinal() << ", "
      << f.warmup << " warm-up, " << f.iterations << " timed and " << f.iterations
      << " traced runs\n";
  if (runner.exe->program().target.platform == "host") out << HostCodeLine(runner.exe->program());
  ASSIGN_OR_RETURN(const aot::CudaGraphStats graphs, runner.exe->graph_stats(runner.device));
  out << DescribeCudaGraphs(graphs, f.cuda_graphs) << "\n";
  out << "run time (wall time of Execute, untraced):\n"
      << "  median " << Millis(run.median) << "  min " << Millis(run.min) << "  p10 " << Millis(run.p10)
      << "  p90 " << Millis(run.p90) << "  max " << Millis(run.max) << "\n";
  out << "time per thunk kind (own time per run, traced; stamps around each thunk add overhead):\n";
  for (const KindStat& k : stats.kinds) {
    out << absl::StrFormat("  %-12s %12s  %5.1f%%\n", k.kind, Millis(k.seconds_per_run), 100 * k.share);
  }
  out << "kernels, GEMMs and copies (median time per run over traced runs):\n";
  int64_t listed = 0;
  for (const ThunkStat& t : stats.thunks) {
    const ThunkStaticInfo& i = info[t.thunk_id];
    if (i.kind != "kernel" && i.kind != "gemm" && i.kind != "copy") continue;
    ++listed;
    out << absl::StrFormat("  %-6s %-24s x%-4g %12s  %s bytes -> %s", i.kind, absl::StrCat("\"", i.name, "\""),
                           t.executions_per_run, Millis(t.median_seconds),
                           i.bytes.has_value() ? absl::StrCat(*i.bytes) : "?", Rate(t.bytes_per_second, "B/s"));
    if (i.kind == "copy") {
      out << "  (source read + destination written)";
    } else if (i.kind == "gemm") {
      out << "  " << (i.flops.has_value() ? absl::StrFormat("%.0f FLOP -> %s", *i.flops, Rate(t.flops_per_second, "FLOP/s"))
                                          : std::string("FLOP/s not counted (complex GEMM)"));
    } else {
      out << "  FLOP/s not counted (kernel FLOPs are not recorded in the artifact)";
    }
    if (t.median_seconds <= 0) out << "  (too fast to time: rates n/a)";
    out << "\n";
  }
  if (listed == 0) out << "  (none)\n";
  if (unmeasured > 0) out << "note: " << unmeasured << " thunk executions could not be timed\n";
  return absl::OkStatus();
}

}  // namespace

int RunBench(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") {
      out << kBenchHelp;
      return kExitOk;
    }
  }
  BenchFlags flags;
  if (std::string usage = ParseFlags(args, &flags); !usage.empty()) {
    err << "xla_aot bench: " << usage << "\n" << kBenchHelp;
    return kExitUsage;
  }
  if (absl::Status s = Bench(flags, out); !s.ok()) {
    err << "xla_aot bench: " << flags.artifact << ": " << s.message() << "\n";
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace xla::cli
