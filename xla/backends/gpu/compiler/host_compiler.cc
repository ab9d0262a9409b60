#include "xla/backends/gpu/compiler/host_compiler.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
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
  MiddleEndResult local;
  MiddleEndResult& middle = middle_end != nullptr ? *middle_end : local;
  ASSIGN_OR_RETURN(middle, RunMiddleEnd(module, options.middle_end));

  GpuExecutableProto artifact;
  GpuExecutablePayloadProto* payload = artifact.mutable_payload();
  llvm::LLVMContext context;
  auto kernels = std::make_unique<llvm::Module>(module->name(), context);
  RETURN_IF_ERROR(EmitThunks(*module, middle.schedule, *middle.assignment, options.thunks,
                             kernels.get(), payload));
  if (payload->kernels_size() > 0) {
    ASSIGN_OR_RETURN(std::string so, CompileHostSharedObject(*kernels, options.object));
    payload->set_host_shared_object(std::move(so));
  }
  if (options.include_optimized_hlo) payload->set_optimized_hlo_text(PrintModule(*module));

  ArtifactHeaderProto* header = artifact.mutable_header();
  header->set_format_version(kArtifactFormatVersion);
  header->set_compiler_version(options.compiler_version);
  header->set_production_date(options.production_date.has_value()
                                  ? *options.production_date
                                  : absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(),
                                                     absl::UTCTimeZone()));
  header->set_target("host");
  SealArtifact(&artifact);
  return artifact;
}

absl::StatusOr<std::string> CompileHloToHostArtifact(absl::string_view hlo_text,
                                                     const HostCompilerOptions& options) {
  ASSIGN_OR_RETURN(GpuExecutableProto artifact, CompileHloToHostArtifactProto(hlo_text, options));
  return SerializeDeterministically(artifact);
}

}  // namespace xla::gpu
