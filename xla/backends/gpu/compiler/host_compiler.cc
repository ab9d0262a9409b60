#include "xla/backends/gpu/compiler/host_compiler.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "xla/backends/gpu/codegen/host/host_cpu_variant_builds.h"
#include "xla/backends/gpu/codegen/host/host_fusion_emitter.h"
#include "xla/backends/gpu/compiler/target_runtime.h"
#include "xla/backends/gpu/runtime/artifact_header.h"
#include "xla/backends/gpu/runtime/checksum.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/parser/hlo_printer.h"
#include "xla/hlo/verifier/hlo_verifier.h"
#include "xla/util/proto_util.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {

absl::StatusOr<GpuExecutableProto> CompileHloToHostArtifactProto(
    absl::string_view hlo_text, const HostCompilerOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseHloModule(hlo_text));
  RETURN_IF_ERROR(VerifyModule(*module));
  return CompileModuleToHostArtifactProto(module.get(), options, nullptr);
}

absl::StatusOr<GpuExecutableProto> CompileModuleToHostArtifactProto(
    HloModule* module, const HostCompilerOptions& options, MiddleEndResult* middle_end) {
  absl::Time start = absl::Now();
  auto finish = [&](const std::string& phase) {
    const absl::Time now = absl::Now();
    if (options.phase_observer) options.phase_observer(phase, absl::ToDoubleSeconds(now - start));
    start = now;
  };
  CompileProgress progress(options.progress, options.progress_interval,
                           options.progress_fraction);
  MiddleEndOptions middle_options = options.middle_end;
  // The topk kind (host_fusion_emitter.h) selects small k in one pass.
  middle_options.optimize.keep_topk_up_to_k = kHostTopKMaxK;
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
  llvm::LLVMContext context;
  auto kernels = std::make_unique<llvm::Module>(module->name(), context);
  progress.EnterPhase("thunk_emission");
  RETURN_IF_ERROR(EmitThunks(*module, middle.schedule, *middle.assignment, options.thunks,
                             kernels.get(), payload));
  finish("thunk_emission");
  if (payload->kernels_size() > 0) {
    HostCompileOptions object = options.object;
    if (options.phase_observer) {
      object.phase_observer = [&options, &inner = options.object.phase_observer](
                                  const std::string& phase, double seconds) {
        if (inner) inner(phase, seconds);
        options.phase_observer(phase, seconds);
      };
    }
    if (progress.enabled()) {
      object.kernel_progress = [&progress, inner = options.object.kernel_progress](
                                   int64_t done, int64_t total) {
        if (inner) inner(done, total);
        progress.Kernels(done, total);
      };
    }
    // What the kernels may use; the runtime refuses to run them on a CPU
    // without it (rather than dying of SIGILL).
    ASSIGN_OR_RETURN(std::vector<std::string> cpu_features, HostCpuFeaturesOf(object));
    // Copies of the unoptimized kernels for the wider builds (compiling
    // optimizes `kernels` in place).
    ASSIGN_OR_RETURN(std::vector<HostCpuVariantBuild> wider,
                     PlanHostCpuVariantBuilds(*kernels, object, cpu_features,
                                              options.cpu_variants));
    progress.EnterPhase("kernel_compilation");
    if (!wider.empty() && options.fallback_opt_level >= 0) {
      object.opt_level = options.fallback_opt_level;
    }
    if (!wider.empty() && options.fallback_machine_code_level >= 0) {
      object.machine_code_level = options.fallback_machine_code_level;
    }
    ASSIGN_OR_RETURN(HostBuildObjects objects, CompileHostBuilds(*kernels, object, wider));
    payload->set_host_shared_object(std::move(objects.baseline));
    for (const std::string& f : cpu_features) artifact.mutable_header()->add_host_cpu_features(f);
    for (size_t i = 0; i < wider.size(); ++i) {
      HostObjectVariantProto* variant = payload->add_host_object_variants();
      *variant->mutable_shared_object() = std::move(objects.variants[i]);
      for (const std::string& f : wider[i].cpu_features) variant->add_cpu_features(f);
    }
    if (!wider.empty() && options.phase_observer) {
      options.phase_observer("host_variants", objects.variants_extra_seconds);
    }
    start = absl::Now();
  }
  progress.EnterPhase("finalize");
  if (options.include_optimized_hlo) payload->set_optimized_hlo_text(PrintModule(*module));
  finish("serialize_hlo");
  artifact.mutable_header()->set_checksum_algorithm(options.checksum);
  // The target first: which features the payload needs depends on it.
  artifact.mutable_header()->set_target("host");
  RETURN_IF_ERROR(FinalizeRuntimeFeatures(options.target_runtime, &artifact));

  ArtifactHeaderProto* header = artifact.mutable_header();
  header->set_format_version(kArtifactFormatVersion);
  header->set_compiler_version(options.compiler_version);
  header->set_production_date(options.production_date.has_value()
                                  ? *options.production_date
                                  : absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(),
                                                     absl::UTCTimeZone()));
  SealArtifact(&artifact);
  finish("seal");
  return artifact;
}

absl::StatusOr<std::string> CompileHloToHostArtifact(absl::string_view hlo_text,
                                                     const HostCompilerOptions& options) {
  ASSIGN_OR_RETURN(GpuExecutableProto artifact, CompileHloToHostArtifactProto(hlo_text, options));
  return SerializeDeterministically(artifact);
}

}  // namespace xla::gpu
