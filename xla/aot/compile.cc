#include "xla/aot/compile.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "xla/aot/artifact_signing.h"
#include "xla/backends/gpu/codegen/nvptx/nvptx_target.h"
#include "xla/backends/gpu/compiler/gpu_compiler.h"
#include "xla/backends/gpu/compiler/host_compiler.h"
#include "xla/backends/gpu/compiler/kernel_timings.h"
#include "xla/backends/gpu/runtime/checksum.h"
#include "xla/backends/gpu/runtime/feature_registry.h"
#include "xla/backends/gpu/runtime/invented_constants.h"
#include "xla/backends/gpu/runtime/thunk_proto_visit.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/parser/hlo_printer.h"
#include "xla/hlo/verifier/hlo_verifier.h"
#include "xla/service/middle_end.h"
#include "xla/util/proto_util.h"
#include "xla/util/status_macros.h"
#include "xla/util/subprocess.h"

namespace xla::aot {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point begin) {
  return std::chrono::duration<double>(Clock::now() - begin).count();
}

int64_t InstructionCount(const HloModule& module) {
  int64_t n = 0;
  for (const auto& c : module.computations()) n += c->instruction_count();
  return n;
}

bool IsHost(const CompileOptions& options) { return options.target == "host"; }

// What one compilation collects besides the artifact: the middle end's
// result, the LLVM IR to dump and the phase timings.
struct Compilation {
  MiddleEndResult middle;
  std::map<std::string, std::string> llvm_ir;  // stage -> text
  std::vector<std::pair<std::string, double>> phases;
  // Per-kernel emission and LLVM part timings; collected with a dump_dir
  // only (kernel_timings.txt).
  gpu::KernelTimings kernel_timings;
  Clock::time_point begin = Clock::now();
};

// Whether the runtime the artifact is for reads runtime feature `feature`
// (an empty target_runtime is this build's, which reads them all). A
// malformed date is reported by FinalizeRuntimeFeatures, so it counts as no.
bool TargetRuntimeSupports(const CompileOptions& options, absl::string_view feature) {
  if (options.target_runtime.empty()) return true;
  absl::StatusOr<std::vector<std::string>> features =
      gpu::FeaturesSupportedOn(options.target_runtime);
  return features.ok() && std::find(features->begin(), features->end(), feature) != features->end();
}

// --emit_cudnn_convolutions on a CUDA target whose runtime reads
// convolution thunks (feature "cudnn_convolutions"); an older
// --target_runtime keeps the legacy form, im2col + GEMM.
bool EmitsCudnnConvolutions(const CompileOptions& options) {
  return options.emit_cudnn_convolutions && !IsHost(options) &&
         TargetRuntimeSupports(options, "cudnn_convolutions");
}

MiddleEndOptions ToMiddleEndOptions(const CompileOptions& options) {
  MiddleEndOptions out;
  out.optimize.max_fold_elements = options.max_fold_elements;
  out.optimize.allow_inexact = options.allow_inexact;
  out.optimize.loop_optimizations = options.loop_optimizations;
  out.optimize.keep_custom_calls = options.allowed_custom_calls;
  out.fusion = options.fusion;
  out.multi_output_fusion = options.multi_output_fusion;
  out.convolution_as_gemm = options.convolution_as_gemm;
  // The host kernel is a runtime handler (a feature of runtimes from
  // 2026-12-02); on NVPTX targets the call becomes kernel thunks, which
  // every runtime reads.
  out.fuse_attention =
      options.fuse_attention &&
      (!IsHost(options) || TargetRuntimeSupports(options, "ffi_handlers.te_fused_attention_host"));
  out.attention_target = options.target;
  // cuBLASLt's fp8 GEMMs are wired for Hopper (sm_90) only.
  out.fp8_gemm_cublaslt = options.fp8_gemm == Fp8Gemm::kCublasLt &&
                          (options.target == "sm_90" || options.target == "sm_90a");
  out.cudnn_convolutions = EmitsCudnnConvolutions(options);
  // The legacy form of a fused epilogue is the separate kernel it was.
  out.cudnn_fused_epilogues = TargetRuntimeSupports(options, "cudnn_convolutions.fused_epilogue");
  out.verify_after_each = options.verify_after_each;
  out.device_memory_bytes = options.device_memory_bytes;
  // The legacy form of a scan stack in host memory is the device stack.
  out.buffers.offload_scan_stacks =
      options.offload_scan_stacks && TargetRuntimeSupports(options, "copy_thunk.dynamic_offset");
  if (options.dump_passes && !options.dump_dir.empty()) {
    out.dump_dir = options.dump_dir + "/passes";
  }
  return out;
}

gpu::ChecksumAlgorithmProto ToChecksumProto(PayloadChecksum checksum) {
  switch (checksum) {
    case PayloadChecksum::kFnv1a64:
      return gpu::CHECKSUM_ALGORITHM_FNV1A_64;
    case PayloadChecksum::kCrc32c:
      return gpu::CHECKSUM_ALGORITHM_CRC32C;
  }
  return gpu::CHECKSUM_ALGORITHM_FNV1A_64;
}

// Progress events as "compile: <seconds since begin> <event>" lines.
gpu::CompileProgressCallback ProgressLines(const CompileOptions& options,
                                           Clock::time_point begin) {
  if (!options.progress) return nullptr;
  return [sink = options.progress, begin](const gpu::CompileProgressEvent& e) {
    sink(absl::StrFormat("compile: %7.2fs %s\n", SecondsSince(begin), e.ToString()));
  };
}

// The fields both target compilers' option structs share (header, checksum,
// progress) from `options`.
template <typename TargetOptions>
void SetArtifactOptions(const CompileOptions& options, Clock::time_point begin,
                        TargetOptions* out) {
  if (options.compiler_version.has_value()) out->compiler_version = *options.compiler_version;
  out->production_date = options.production_date;
  out->include_optimized_hlo = options.include_optimized_hlo;
  out->target_runtime = options.target_runtime;
  out->checksum = ToChecksumProto(options.checksum);
  out->progress = ProgressLines(options, begin);
}

gpu::HostCompilerOptions ToHostOptions(const CompileOptions& options, Compilation* c) {
  gpu::HostCompilerOptions out;
  out.middle_end = ToMiddleEndOptions(options);
  out.thunks.kernel.target_block_bytes = options.target_block_bytes;
  out.thunks.emit_collectives = options.emit_collectives;
  out.thunks.emit_fft = options.emit_fft;
  out.thunks.emit_host_transfers = options.emit_host_transfers;
  out.thunks.allowed_custom_calls = options.allowed_custom_calls;
  out.object.cpu = options.host_cpu;
  out.object.opt_level = options.opt_level;
  out.object.threads = options.compile_threads;
  out.object.parts = options.compile_parts;
  out.cpu_variants = options.host_cpu_variants;
  out.fallback_opt_level = options.host_fallback_opt_level;
  out.fallback_machine_code_level = options.host_fallback_machine_code_level;
  SetArtifactOptions(options, c->begin, &out);
  out.phase_observer = [c](const std::string& phase, double seconds) {
    c->phases.emplace_back(phase, seconds);
  };
  if (!options.dump_dir.empty()) {
    out.object.ir_observer = [c](const std::string& stage, const llvm::Module& m) {
      llvm::raw_string_ostream os(c->llvm_ir[stage]);
      m.print(os, nullptr);
    };
    out.thunks.kernel_observer = [c](const gpu::KernelEmissionTiming& kernel) {
      c->kernel_timings.AddKernel(kernel);
    };
    out.object.part_observer = [c](const gpu::HostPartTiming& part) {
      c->kernel_timings.AddPart(part);
    };
  }
  return out;
}

gpu::GpuCompilerOptions ToGpuOptions(const CompileOptions& options, Compilation* c) {
  gpu::GpuCompilerOptions out;
  out.middle_end = ToMiddleEndOptions(options);
  out.nvptx.threads = options.compile_threads;
  if (options.emit_cubin_with_ptx) out.spec = gpu::NvptxSpecChoice::kCubinWithPtx;
  out.emit_collectives = options.emit_collectives;
  out.emit_fft = options.emit_fft;
  out.emit_host_transfers = options.emit_host_transfers;
  out.allowed_custom_calls = options.allowed_custom_calls;
  out.f32_dot_default_precision = options.gpu_f32_dot_precision;
  SetArtifactOptions(options, c->begin, &out);
  out.phase_observer = [c](const std::string& phase, double seconds) {
    c->phases.emplace_back(phase, seconds);
  };
  if (!options.dump_dir.empty()) {
    out.kernel_observer = [c](const gpu::KernelEmissionTiming& kernel) {
      c->kernel_timings.AddKernel(kernel);
    };
  }
  return out;
}

absl::StatusOr<std::unique_ptr<HloModule>> ParseAndVerify(absl::string_view hlo_text,
                                                          const CompileOptions& options,
                                                          std::vector<std::string>* invented) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module,
                   ParseHloModule(hlo_text, options.source_name));
  ElidedConstantsOptions elided;
  elided.mode = options.elided_constants;
  elided.seed = options.elided_constants_seed;
  elided.source_name = options.source_name;
  ASSIGN_OR_RETURN(*invented, FillElidedConstants(module.get(), elided));
  // The device counts are set before verification, which checks replica
  // groups against them.
  HloModuleConfig* config = module->mutable_config();
  for (const auto& [count, field, name] :
       {std::tuple{options.num_replicas, &config->replica_count, "num_replicas"},
        std::tuple{options.num_partitions, &config->num_partitions, "num_partitions"}}) {
    if (!count.has_value()) continue;
    if (*count < 1) {
      return absl::InvalidArgumentError(absl::StrCat(name, " must be at least 1, not ", *count));
    }
    *field = *count;
  }
  if (absl::Status v = VerifyModule(*module); !v.ok()) {
    // Every line names the file, and the line and column when it is about
    // one instruction.
    return absl::InvalidArgumentError(v.message());
  }
  return module;
}

// The target's back end over the parsed `module` (compiled in place).
absl::StatusOr<gpu::GpuExecutableProto> RunBackEnd(HloModule* module,
                                                   const CompileOptions& options,
                                                   Compilation* c) {
  if (IsHost(options)) {
    return gpu::CompileModuleToHostArtifactProto(module, ToHostOptions(options, c), &c->middle);
  }
  gpu::NvptxFinalizeResult built;
  ASSIGN_OR_RETURN(gpu::GpuExecutableProto artifact,
                   gpu::CompileModuleToGpuArtifactProto(module, options.target,
                                                        ToGpuOptions(options, c), &c->middle,
                                                        &built));
  // Each NVPTX kernel is compiled alone: a part of its own in
  // kernel_timings.txt, with its measured times.
  for (size_t i = 0; !options.dump_dir.empty() && i < built.kernels.size(); ++i) {
    const gpu::NvptxKernelBuild& k = built.kernels[i];
    c->kernel_timings.AddNvptxKernel(static_cast<int>(i), k.name, k.times.llvm_instructions,
                                     k.times.optimize_seconds, k.times.ptx_seconds,
                                     k.times.ptxas_seconds);
  }
  return artifact;
}

std::string PhaseTable(const Compilation& c, double total_seconds) {
  std::string table = absl::StrFormat("%-20s %10s\n", "phase", "seconds");
  for (const auto& [phase, t] : c.phases) absl::StrAppendFormat(&table, "%-20s %10.3f\n", phase, t);
  absl::StrAppendFormat(&table, "%-20s %10.3f\n", "total", total_seconds);
  return table;
}

// Writes the files CompileOptions::dump_dir promises, for the compiled
// `module`, and returns their names relative to `dir`.
absl::StatusOr<std::vector<std::string>> WriteDumps(const HloModule& module,
                                                    const std::string& dir,
                                                    const Compilation& c, double seconds) {
  const std::string text = PrintModule(module);
  if (absl::StatusOr<std::unique_ptr<HloModule>> back = ParseHloModule(text); !back.ok()) {
    return absl::InternalError(
        absl::StrCat("compiled module does not parse back: ", back.status().message()));
  }
  std::vector<std::pair<std::string, std::string>> files = {
      {"after_optimizations.hlo", text},
      {"schedule.txt", c.middle.schedule.ToString()},
      {"buffer_assignment.txt", c.middle.assignment->ToString()},
      {"pass_timings.txt", c.middle.TimingsReport()},
  };
  if (!c.phases.empty()) files.emplace_back("compile_timings.txt", PhaseTable(c, seconds));
  if (!c.kernel_timings.empty()) files.emplace_back("kernel_timings.txt", c.kernel_timings.ToText());
  for (const auto& [stage, ir] : c.llvm_ir) {
    files.emplace_back(absl::StrCat("llvm_ir.", stage, ".ll"), ir);
  }
  std::vector<std::string> names;
  for (const auto& [name, contents] : files) {
    RETURN_IF_ERROR(WriteFileBytes(dir + "/" + name, contents));
    names.push_back(name);
  }
  return names;
}

absl::Status MakeDumpDir(const std::string& dir) {
  if (dir.empty()) return absl::OkStatus();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return absl::PermissionDeniedError(absl::StrCat("cannot create ", dir));
  return absl::OkStatus();
}

// Kernel thunks in `thunks` and everything nested in them.
int64_t CountKernelThunks(const google::protobuf::RepeatedPtrField<gpu::ThunkProto>& thunks) {
  int64_t n = 0;
  gpu::ForEachThunkProto(thunks, [&n](const gpu::ThunkProto& t) { n += t.has_kernel() ? 1 : 0; });
  return n;
}

// Compiles the parsed, verified `module` in place; nullopt with
// middle_end_only. Fills `stats` except the counts before compiling.
absl::StatusOr<std::optional<gpu::GpuExecutableProto>> CompileModule(
    HloModule* module, const CompileOptions& options, CompileStatistics* stats) {
  RETURN_IF_ERROR(MakeDumpDir(options.dump_dir));
  Compilation c;
  std::optional<gpu::GpuExecutableProto> artifact;
  if (options.middle_end_only) {
    ASSIGN_OR_RETURN(c.middle, RunMiddleEnd(module, ToMiddleEndOptions(options)));
  } else {
    ASSIGN_OR_RETURN(artifact, RunBackEnd(module, options, &c));
  }
  stats->seconds = SecondsSince(c.begin);
  if (absl::Status v = VerifyModule(*module); !v.ok()) {
    return absl::InternalError(absl::StrCat("compiled module does not verify: ", v.message()));
  }
  if (!options.dump_dir.empty()) {
    ASSIGN_OR_RETURN(stats->dumped_files,
                     WriteDumps(*module, options.dump_dir, c, stats->seconds));
    if (options.dump_passes) stats->dumped_files.push_back("passes/");
  }
  stats->instructions_after = InstructionCount(*module);
  stats->computations_after = static_cast<int64_t>(module->computations().size());
  stats->fusion_stats = c.middle.stats.ToString();
  stats->temp_bytes = c.middle.assignment->total_temp_bytes();
  stats->naive_temp_bytes = c.middle.assignment->naive_temp_bytes();
  stats->passes = static_cast<int64_t>(c.middle.timings.size());
  stats->rematerialized = c.middle.rematerialization.rematerialized;
  stats->schedule_peak_before = c.middle.rematerialization.peak_before;
  stats->schedule_peak_after = c.middle.rematerialization.peak_after;
  stats->phases = std::move(c.phases);
  return artifact;
}

// Records in the artifact that the constants `names` were invented as
// `options` say (bounded as the runtime checks) and seals it again.
absl::Status RecordInventedConstants(const std::vector<std::string>& names,
                                     const CompileOptions& options,
                                     gpu::GpuExecutableProto* artifact) {
  if (names.empty()) return absl::OkStatus();
  if (static_cast<int64_t>(names.size()) > gpu::kMaxInventedConstantCount) {
    return absl::InvalidArgumentError(absl::StrCat(
        options.source_name, ": ", names.size(), " elided constants, more than the ",
        gpu::kMaxInventedConstantCount, " an artifact may record as invented"));
  }
  gpu::InventedConstantsProto* record = artifact->mutable_payload()->mutable_invented_constants();
  const bool random = options.elided_constants == ElidedConstantsMode::kRandom;
  record->set_mode(random ? gpu::INVENTED_CONSTANTS_MODE_RANDOM : gpu::INVENTED_CONSTANTS_MODE_ZEROS);
  record->set_seed(random ? options.elided_constants_seed : 0);
  record->set_count(static_cast<int64_t>(names.size()));
  for (size_t i = 0; i < names.size() && i < gpu::kMaxInventedConstantNames; ++i) {
    record->add_names(names[i].substr(0, gpu::kMaxInventedConstantNameBytes));
  }
  gpu::SealArtifact(artifact);
  return absl::OkStatus();
}

// Parses, checks and compiles; `stats` gets every figure.
absl::StatusOr<std::optional<gpu::GpuExecutableProto>> CompileText(
    absl::string_view hlo_text, const CompileOptions& options, CompileStatistics* stats) {
  RETURN_IF_ERROR(CheckTarget(options.target));
  std::optional<SigningKey> key;
  if (!options.sign_key.empty()) {
    ASSIGN_OR_RETURN(key, ReadSigningKeyFile(options.sign_key));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module,
                   ParseAndVerify(hlo_text, options, &stats->invented_constants));
  stats->instructions_before = InstructionCount(*module);
  stats->num_replicas = module->config().replica_count.value_or(1);
  stats->num_partitions = module->config().num_partitions.value_or(1);
  stats->computations_before = static_cast<int64_t>(module->computations().size());
  ASSIGN_OR_RETURN(std::optional<gpu::GpuExecutableProto> artifact, CompileModule(module.get(), options, stats));
  if (artifact.has_value()) {
    RETURN_IF_ERROR(RecordInventedConstants(stats->invented_constants, options, &*artifact));
    stats->memory = gpu::ComputeMemoryReport(artifact->payload());
    stats->kernel_thunks = CountKernelThunks(artifact->payload().thunks());
    stats->compiled_kernels = artifact->payload().kernels_size();
    RETURN_IF_ERROR(gpu::CheckFitsDeviceMemory(stats->memory, options.device_memory_bytes,
                                               options.source_name));
  }
  if (artifact.has_value() && key.has_value()) RETURN_IF_ERROR(SignArtifact(*key, &*artifact));
  return artifact;
}

}  // namespace

absl::Status CheckTarget(absl::string_view target) {
  if (target == "host") return absl::OkStatus();
  absl::StatusOr<gpu::NvptxTarget> nvptx = gpu::FindNvptxTarget(target);
  if (nvptx.ok()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(nvptx.status().message(), ", or host"));
}

absl::StatusOr<CompiledArtifact> Compile(absl::string_view hlo_text,
                                         const CompileOptions& options) {
  CompiledArtifact out;
  ASSIGN_OR_RETURN(std::optional<gpu::GpuExecutableProto> artifact,
                   CompileText(hlo_text, options, &out.statistics));
  if (artifact.has_value()) out.bytes = SerializeDeterministically(*artifact);
  return out;
}

absl::StatusOr<gpu::GpuExecutableProto> CompileToProto(absl::string_view hlo_text,
                                                       const CompileOptions& options) {
  if (options.middle_end_only) {
    return absl::InvalidArgumentError("CompileToProto makes an artifact: unset middle_end_only");
  }
  CompileStatistics ignored;
  ASSIGN_OR_RETURN(std::optional<gpu::GpuExecutableProto> artifact,
                   CompileText(hlo_text, options, &ignored));
  return *std::move(artifact);
}

}  // namespace xla::aot
