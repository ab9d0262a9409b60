#include "xla/backends/gpu/compiler/gpu_compiler.h"

#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "xla/backends/gpu/compiler/thunk_emitter.h"
#include "xla/backends/gpu/compiler/target_runtime.h"
#include "xla/backends/gpu/runtime/artifact_header.h"
#include "xla/backends/gpu/runtime/checksum.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/parser/hlo_printer.h"
#include "xla/hlo/verifier/hlo_verifier.h"
#include "xla/util/proto_util.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

// PTX ISA version -> the CUDA release that introduced it (PTX ISA manual,
// "Release notes"). Add a row with each new target ISA.
struct PtxIsaRelease {
  const char* ptx_isa;
  const char* cuda;
};
constexpr PtxIsaRelease kPtxIsaReleases[] = {
    {"7.0", "11.0"}, {"7.1", "11.1"}, {"7.2", "11.2"}, {"7.3", "11.3"}, {"7.4", "11.4"},
    {"7.5", "11.5"}, {"7.6", "11.6"}, {"7.7", "11.7"}, {"7.8", "11.8"}, {"8.0", "12.0"},
};

}  // namespace

absl::StatusOr<std::string> RequiredCudaDriverVersion(const NvptxTarget& target, bool has_cubin,
                                                      absl::string_view ptxas_version) {
  if (has_cubin) {
    std::vector<absl::string_view> parts = absl::StrSplit(ptxas_version, '.');
    int major = 0, minor = 0;
    if (parts.size() < 2 || !absl::SimpleAtoi(parts[0], &major) ||
        !absl::SimpleAtoi(parts[1], &minor)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot derive the CUDA driver requirement from ptxas version '", ptxas_version,
          "' (expected major.minor[.patch])"));
    }
    return absl::StrCat(major, ".", minor);
  }
  for (const PtxIsaRelease& r : kPtxIsaReleases) {
    if (absl::string_view(r.ptx_isa) == target.ptx_version) return std::string(r.cuda);
  }
  return absl::InternalError(absl::StrCat("PTX ISA ", target.ptx_version, " of ", target.name,
                                          " has no CUDA release in kPtxIsaReleases "
                                          "(gpu_compiler.cc); add it"));
}

absl::StatusOr<GpuExecutableProto> CompileHloToGpuArtifactProto(absl::string_view hlo_text,
                                                                absl::string_view target_name,
                                                                const GpuCompilerOptions& options,
                                                                NvptxFinalizeResult* report) {
  ASSIGN_OR_RETURN(NvptxTarget target, FindNvptxTarget(target_name));
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseHloModule(hlo_text));
  RETURN_IF_ERROR(VerifyModule(*module));
  return CompileModuleToGpuArtifactProto(module.get(), target.name, options, nullptr, report);
}

absl::StatusOr<GpuExecutableProto> CompileModuleToGpuArtifactProto(
    HloModule* module, absl::string_view target_name, const GpuCompilerOptions& options,
    MiddleEndResult* middle_end, NvptxFinalizeResult* report) {
  ASSIGN_OR_RETURN(NvptxTarget target, FindNvptxTarget(target_name));
  if (options.require_cubin) {
    absl::StatusOr<std::string> ptxas = FindPtxas(options.nvptx);
    if (!ptxas.ok()) {
      return absl::Status(ptxas.status().code(),
                          absl::StrCat("a cubin is required for ", target.name,
                                       " but ptxas is missing: ", ptxas.status().message()));
    }
    if (!options.nvptx.make_cubin) {
      return absl::InvalidArgumentError("require_cubin is set but nvptx.make_cubin is off");
    }
  }
  absl::Time start = absl::Now();
  auto finish = [&](const std::string& phase) {
    const absl::Time now = absl::Now();
    if (options.phase_observer) options.phase_observer(phase, absl::ToDoubleSeconds(now - start));
    start = now;
  };
  CompileProgress progress(options.progress, options.progress_interval);
  MiddleEndOptions middle_options = options.middle_end;
  if (progress.enabled()) {
    middle_options.pass_observer = [&progress, inner = options.middle_end.pass_observer](
                                       absl::string_view pipeline, absl::string_view pass) {
      if (inner) inner(pipeline, pass);
      progress.Pass(pipeline, pass);
    };
  }
  MiddleEndResult local;
  MiddleEndResult& middle = middle_end != nullptr ? *middle_end : local;
  progress.EnterPhase("middle_end");
  ASSIGN_OR_RETURN(middle, RunMiddleEnd(module, middle_options));
  finish("middle_end");

  GpuExecutableProto artifact;
  GpuExecutablePayloadProto* payload = artifact.mutable_payload();
  NvptxEmitOptions emit;
  emit.target = target;
  emit.vectorize = options.vectorize;
  NvptxKernelBackend backend(emit);
  progress.EnterPhase("kernel_emission");
  ThunkEmitterOptions thunk_options;
  thunk_options.emit_collectives = options.emit_collectives;
  thunk_options.emit_fft = options.emit_fft;
  thunk_options.emit_host_transfers = options.emit_host_transfers;
  thunk_options.allowed_custom_calls = options.allowed_custom_calls;
  thunk_options.tf32_gemms = options.tf32_gemms;
  thunk_options.f32_dot_default_precision = options.f32_dot_default_precision;
  thunk_options.kernel_observer = options.kernel_observer;
  RETURN_IF_ERROR(EmitThunksWithBackend(*module, middle.schedule, *middle.assignment, &backend,
                                        payload, thunk_options));
  finish("thunk_emission");
  progress.EnterPhase("kernel_compilation");
  ASSIGN_OR_RETURN(NvptxFinalizeResult built,
                   backend.Finalize(options.nvptx, options.spec, payload));
  if (options.phase_observer) {
    double optimize = 0, ptx = 0, ptxas = 0;
    for (const NvptxKernelBuild& k : built.kernels) {
      optimize += k.times.optimize_seconds;
      ptx += k.times.ptx_seconds;
      ptxas += k.times.ptxas_seconds;
    }
    options.phase_observer("llvm_optimize", optimize);
    options.phase_observer("ptx_codegen", ptx);
    options.phase_observer("ptxas", ptxas);
  }
  finish("nvptx_parallel_wall");
  if (options.require_cubin) {
    for (const NvptxKernelBuild& k : built.kernels) {
      if (!k.has_cubin) {
        return absl::FailedPreconditionError(absl::StrCat(
            "kernel '", k.name, "' got no cubin although one is required: ",
            built.cubin_skipped_reason));
      }
    }
  }
  progress.EnterPhase("finalize");
  artifact.mutable_header()->set_checksum_algorithm(options.checksum);
  RETURN_IF_ERROR(FinalizeRuntimeFeatures(options.target_runtime, &artifact));
  // A cubin alone needs a driver as new as ptxas; with its PTX beside it
  // (cubin_with_ptx) the PTX ISA's driver suffices (the runtime JITs it).
  bool stores_cubin = false;
  for (const KernelProto& k : payload->kernels()) stores_cubin |= k.has_cubin();
  if (options.include_optimized_hlo) payload->set_optimized_hlo_text(PrintModule(*module));

  ArtifactHeaderProto* header = artifact.mutable_header();
  header->set_format_version(kArtifactFormatVersion);
  header->set_compiler_version(options.compiler_version);
  header->set_production_date(options.production_date.has_value()
                                  ? *options.production_date
                                  : absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(),
                                                     absl::UTCTimeZone()));
  header->set_target(target.name);
  ASSIGN_OR_RETURN(std::string driver,
                   RequiredCudaDriverVersion(target, stores_cubin, built.ptxas_version));
  ToolchainRequirementProto* requirement = header->add_toolchain_requirements();
  requirement->set_component("cuda_driver");
  requirement->set_min_version(driver);
  SealArtifact(&artifact);
  finish("finalize");
  if (report != nullptr) *report = std::move(built);
  return artifact;
}

absl::StatusOr<std::string> CompileHloToGpuArtifact(absl::string_view hlo_text,
                                                    absl::string_view target_name,
                                                    const GpuCompilerOptions& options) {
  ASSIGN_OR_RETURN(GpuExecutableProto artifact,
                   CompileHloToGpuArtifactProto(hlo_text, target_name, options, nullptr));
  return SerializeDeterministically(artifact);
}

}  // namespace xla::gpu
