// The public C++ API of the runtime: load a compiled artifact (a `.xaot`
// GpuExecutableProto), initialize it for a device, execute it.
//
//   ASSIGN_OR_RETURN(auto exe, xla::aot::Executable::LoadFromFile("m.xaot"));
//   RETURN_IF_ERROR(exe->Initialize(executor));
//   ASSIGN_OR_RETURN(auto outputs, exe->Execute(executor, std::move(args)));
//
// Loading validates the whole artifact (header, checksum, every index, size,
// offset, stream id, kernel reference and custom call; custom-call handlers
// are looked up in FfiRegistry::Global() at Initialize, which fails naming a
// missing one (docs/custom_calls.md); see
// xla/backends/gpu/runtime/program.h) and fails with InvalidArgument naming
// the field path and the offending values; nothing runs before that. The
// trust policy (LoadOptions) is checked first: a signature must name a
// trusted key and verify, and unsigned artifacts are loaded as the policy
// says; a refusal is PermissionDenied. The
// payload is held once: LoadFromFile parses the file in place (a small one
// read into one buffer, a large one memory-mapped), LoadFromBytes parses the
// caller's bytes (which it does not keep).
//
// Thread-safety: an Executable is safe to share. Initialize and Execute may
// be called from many threads at once, on one executable, for the same or
// different devices; every Execute uses its own streams, events, temporary
// and output buffers.
//
// This class is the runtime's public face. xla::gpu::GpuExecutable
// (xla/backends/gpu/runtime/gpu_executable.h) is its implementation, held
// behind a pointer; callers use the types below under xla::aot. Execute
// semantics (donation, aliasing, errors, cost) are GpuExecutable's.
#ifndef XLA_AOT_EXECUTABLE_H_
#define XLA_AOT_EXECUTABLE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
// ExecutionArgument and ExecuteOptions; Program and OutputInfo. Not the
// implementation: gpu_executable.h stays out of this header.
#include "xla/backends/gpu/runtime/execute_options.h"
#include "xla/backends/gpu/runtime/program.h"
#include "xla/stream_executor/owning_device_memory.h"
#include "xla/stream_executor/stream_executor.h"
#include "xla/types/shape.h"

namespace xla::gpu {
class GpuExecutable;  // the implementation (gpu_executable.h)
}  // namespace xla::gpu

namespace xla::aot {

// The runtime types this API is spelled in. They are defined by the runtime
// (the argument and per-run options in execute_options.h, the loaded and
// validated artifact in program.h) and re-exported here so that callers
// name only xla::aot.
using ExecutionArgument = ::xla::gpu::ExecutionArgument;  // Borrow / Donate
using ExecuteOptions = ::xla::gpu::ExecuteOptions;        // tracer, collectives, graphs
using CudaGraphStats = ::xla::gpu::CudaGraphStats;        // graphs built per device
using OutputInfo = ::xla::gpu::OutputInfo;                // one result leaf
using Program = ::xla::gpu::Program;                      // the loaded artifact
using ArtifactProto = ::xla::gpu::GpuExecutableProto;     // a parsed artifact
using TrustPolicy = ::xla::gpu::TrustPolicy;              // trusted keys, unsigned rule
using UnsignedPolicy = ::xla::gpu::UnsignedPolicy;        // allow / no host code / refuse
using PublicKey = ::xla::gpu::PublicKey;                  // a trusted signer
using SignatureStatus = ::xla::gpu::SignatureStatus;      // Program::signature

// How an artifact is loaded.
struct LoadOptions {
  // Which signers to trust and what to do with unsigned artifacts
  // (xla/backends/gpu/runtime/artifact_signature.h). The default loads
  // unsigned artifacts (everything compiled before signing existed) and
  // refuses signed ones, whose keys it does not know. A signature that is
  // present is always checked, before anything else in the artifact.
  TrustPolicy trust;
};

class Executable {
 public:
  // Loads from serialized artifact bytes. PermissionDenied
  // "header.signature: ..." when `options.trust` refuses the artifact.
  static absl::StatusOr<std::unique_ptr<Executable>> LoadFromBytes(absl::string_view bytes,
                                                                   const LoadOptions& options = {});
  // Loads from a file; NotFound when it cannot be opened.
  static absl::StatusOr<std::unique_ptr<Executable>> LoadFromFile(const std::string& path,
                                                                  const LoadOptions& options = {});
  // Loads from an already parsed artifact (taking it over).
  static absl::StatusOr<std::unique_ptr<Executable>> LoadFromProto(
      std::unique_ptr<ArtifactProto> artifact, const LoadOptions& options = {});

  ~Executable();
  Executable(const Executable&) = delete;
  Executable& operator=(const Executable&) = delete;

  // Prepares the device: see GpuExecutable::Initialize. FailedPrecondition
  // when the device does not match the artifact's target.
  absl::Status Initialize(stream_executor::StreamExecutor* executor);

  // Frees what Initialize made for `executor`, so that the executor may be
  // destroyed before this executable: see GpuExecutable::ReleaseDevice (no
  // run on that device may overlap it).
  void ReleaseDevice(stream_executor::StreamExecutor* executor);

  // Runs once; returns one buffer per result leaf in outputs() order.
  absl::StatusOr<std::vector<stream_executor::OwningDeviceMemory>> Execute(
      stream_executor::StreamExecutor* executor, std::vector<ExecutionArgument> arguments);
  // Runs once with `options` (e.g. a ThunkTracer recording the timeline).
  absl::StatusOr<std::vector<stream_executor::OwningDeviceMemory>> Execute(
      stream_executor::StreamExecutor* executor, std::vector<ExecutionArgument> arguments,
      const ExecuteOptions& options);

  // The CUDA graphs of `executor`'s device: planned, instantiated so far,
  // node updates, and why graphs are off if they are (see
  // GpuExecutable::graph_stats). FailedPrecondition when the device was not
  // initialized. Thread-safe.
  absl::StatusOr<CudaGraphStats> graph_stats(stream_executor::StreamExecutor* executor) const;

  // The entry signature. Never fails; thread-safe.
  const ProgramShape& program_shape() const { return program().program_shape; }
  // Result leaves, in the order Execute returns them.
  const std::vector<OutputInfo>& outputs() const { return program().outputs; }
  // The loaded artifact (header, tables, thunk tree), for inspection.
  const Program& program() const;

 private:
  explicit Executable(std::unique_ptr<Program> program);
  static std::unique_ptr<Executable> Make(std::unique_ptr<Program> program);

  std::unique_ptr<gpu::GpuExecutable> executable_;  // never null
};

}  // namespace xla::aot

#endif  // XLA_AOT_EXECUTABLE_H_
