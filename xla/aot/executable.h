// The public C++ API of the runtime: load a compiled artifact (a `.xaot`
// GpuExecutableProto), initialize it for a device, execute it.
//
//   ASSIGN_OR_RETURN(auto exe, xla::aot::Executable::LoadFromFile("m.xaot"));
//   RETURN_IF_ERROR(exe->Initialize(executor));
//   ASSIGN_OR_RETURN(auto outputs, exe->Execute(executor, std::move(args)));
//
// Loading validates the whole artifact (header, checksum, every index, size,
// offset, stream id, kernel and custom-call reference; see
// xla/backends/gpu/runtime/program.h) and fails with InvalidArgument naming
// the field path and the offending values; nothing runs before that. The
// payload is held once: LoadFromFile parses the file in place (a small one
// read into one buffer, a large one memory-mapped), LoadFromBytes parses the
// caller's bytes (which it does not keep).
//
// Thread-safety: an Executable is safe to share. Initialize and Execute may
// be called from many threads at once, on one executable, for the same or
// different devices; every Execute uses its own streams, events, temporary
// and output buffers. Execute semantics (donation, aliasing, errors) are
// those of xla::gpu::GpuExecutable (gpu_executable.h).
#ifndef XLA_AOT_EXECUTABLE_H_
#define XLA_AOT_EXECUTABLE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/backends/gpu/runtime/gpu_executable.h"
#include "xla/stream_executor/owning_device_memory.h"
#include "xla/stream_executor/stream_executor.h"
#include "xla/types/shape.h"

namespace xla::aot {

using ExecutionArgument = ::xla::gpu::ExecutionArgument;

class Executable {
 public:
  // Loads from serialized artifact bytes.
  static absl::StatusOr<std::unique_ptr<Executable>> LoadFromBytes(absl::string_view bytes);
  // Loads from a file; NotFound when it cannot be opened.
  static absl::StatusOr<std::unique_ptr<Executable>> LoadFromFile(const std::string& path);
  // Loads from an already parsed artifact (taking it over).
  static absl::StatusOr<std::unique_ptr<Executable>> LoadFromProto(
      std::unique_ptr<gpu::GpuExecutableProto> artifact);

  // Prepares the device: see GpuExecutable::Initialize. FailedPrecondition
  // when the device does not match the artifact's target.
  absl::Status Initialize(stream_executor::StreamExecutor* executor);

  // Runs once; returns one buffer per result leaf in outputs() order.
  absl::StatusOr<std::vector<stream_executor::OwningDeviceMemory>> Execute(
      stream_executor::StreamExecutor* executor, std::vector<ExecutionArgument> arguments);
  // Runs once with `options` (e.g. a ThunkTracer recording the timeline).
  absl::StatusOr<std::vector<stream_executor::OwningDeviceMemory>> Execute(
      stream_executor::StreamExecutor* executor, std::vector<ExecutionArgument> arguments,
      const gpu::ExecuteOptions& options);

  const ProgramShape& program_shape() const { return executable_.program().program_shape; }
  // Result leaves, in the order Execute returns them.
  const std::vector<gpu::OutputInfo>& outputs() const { return executable_.program().outputs; }
  const gpu::Program& program() const { return executable_.program(); }

  explicit Executable(std::unique_ptr<gpu::Program> program) : executable_(std::move(program)) {}

 private:
  gpu::GpuExecutable executable_;
};

}  // namespace xla::aot

#endif  // XLA_AOT_EXECUTABLE_H_
