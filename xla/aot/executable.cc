#include "xla/aot/executable.h"

#include "xla/backends/gpu/ffi/ffi_registry.h"
#include "xla/backends/gpu/runtime/gpu_executable.h"
#include "xla/util/status_macros.h"

namespace xla::aot {

Executable::Executable(std::unique_ptr<Program> program)
    : executable_(std::make_unique<gpu::GpuExecutable>(std::move(program))) {}

Executable::~Executable() = default;

std::unique_ptr<Executable> Executable::Make(std::unique_ptr<Program> program) {
  return std::unique_ptr<Executable>(new Executable(std::move(program)));
}

const Program& Executable::program() const { return executable_->program(); }

absl::StatusOr<CudaGraphStats> Executable::graph_stats(
    stream_executor::StreamExecutor* executor) const {
  return executable_->graph_stats(executor);
}

absl::StatusOr<std::unique_ptr<Executable>> Executable::LoadFromProto(
    std::unique_ptr<ArtifactProto> artifact, const LoadOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<gpu::Program> program,
                   gpu::LoadProgram(std::move(artifact), gpu::ffi::FfiRegistry::Global(), options.trust));
  return Make(std::move(program));
}

// The thunk records are read from `bytes` during the call, not copied.
absl::StatusOr<std::unique_ptr<Executable>> Executable::LoadFromBytes(absl::string_view bytes,
                                                                   const LoadOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<gpu::Program> program,
                   gpu::LoadProgramFromBytes(bytes, gpu::ffi::FfiRegistry::Global(), options.trust));
  return Make(std::move(program));
}

// The file is read (under 1 MiB) or memory-mapped, and parsed in place; its
// payload bytes are hashed as stored (program.h), so nothing is read twice.
absl::StatusOr<std::unique_ptr<Executable>> Executable::LoadFromFile(const std::string& path,
                                                                  const LoadOptions& options) {
  ASSIGN_OR_RETURN(gpu::ParsedArtifact parsed, gpu::ParseArtifactFileAndHash(path));
  ASSIGN_OR_RETURN(std::unique_ptr<gpu::Program> program,
                   gpu::LoadProgram(std::move(parsed), gpu::ffi::FfiRegistry::Global(), options.trust));
  return Make(std::move(program));
}

absl::Status Executable::Initialize(stream_executor::StreamExecutor* executor) {
  return executable_->Initialize(executor);
}

void Executable::ReleaseDevice(stream_executor::StreamExecutor* executor) {
  executable_->ReleaseDevice(executor);
}

absl::StatusOr<std::vector<stream_executor::OwningDeviceMemory>> Executable::Execute(
    stream_executor::StreamExecutor* executor, std::vector<ExecutionArgument> arguments) {
  return executable_->Execute(executor, std::move(arguments));
}

absl::StatusOr<std::vector<stream_executor::OwningDeviceMemory>> Executable::Execute(
    stream_executor::StreamExecutor* executor, std::vector<ExecutionArgument> arguments,
    const ExecuteOptions& options) {
  return executable_->Execute(executor, std::move(arguments), options);
}

}  // namespace xla::aot
