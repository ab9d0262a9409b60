// GpuExecutable: a loaded Program, initialized per device and executed with
// caller buffers.
//
// Initialize(executor), once per device before Execute: checks the target
// against the device (platform, compute capability, toolchain), uploads the
// constants, and runs every thunk's Initialize (loads kernels, checks launch
// dimensions against the device, resolves custom-call handlers in the FFI
// registry the program was loaded with: NotFound naming the handler and the
// platform when one is missing, and the device stays uninitialized). Calling
// it again for the same device is a no-op.
//
// Execute(executor, arguments): one argument per parameter, each exactly the
// parameter allocation's size. Allocates one temp buffer for all temporary
// allocations in device memory, one block of host memory
// (StreamExecutor::AllocateHost: pinned on CUDA) for the temporaries in
// host memory (offloaded activations, BufferAllocation::in_host_memory),
// and one buffer per output, binds parameters and constants,
// runs the thunk tree on a set of streams borrowed for this run, waits for
// it, and returns the outputs in `Program::outputs` order (the caller owns
// them). Aliasing: an output aliased with a parameter reuses the argument's
// buffer when the caller donated it (the output then owns that buffer);
// otherwise the argument is first copied into a fresh output buffer, so a
// borrowed argument is never written. A donated argument that no output
// aliases is freed after the run.
//
// Errors: FailedPrecondition when the device was not initialized;
// InvalidArgument naming the parameter for a wrong argument count or size;
// the device's error (with the failing thunk) when a run fails; the
// executor's error (ResourceExhausted) prefixed with the executable and the
// allocations it was for ("allocation 2 (temp, 4096 bytes)", "allocation 3
// (output, ...)", their sum for the packed temporaries) when memory cannot
// be had. On failure every buffer the run allocated is freed.
//
// Cost: a warm Execute (the device initialized, no other run in flight)
// takes no lock of its own and allocates on the host heap only the returned
// vector; device memory: the temp buffer and one buffer per output not
// donated. Streams, events and the binding tables are reused across runs.
//
// CUDA graphs (graph_runner.h): the executable plans once which runs of
// thunks become graphs; Initialize checks per device that the device can
// build them (cuda with a driver that has the graph API; never host) and
// otherwise notes why and launches plainly. Each set of run resources (one
// per concurrent execution, reused) holds its own graphs, built at its
// first execution and updated in place when buffer addresses change; so
// concurrent executions never share a graph and take no lock for one.
// Cost: one instantiated graph per run of thunks per concurrent execution
// the device has seen at once (16 threads: up to 16 sets). With
// ExecuteOptions::cuda_graphs false (or a tracer) every thunk is launched
// on its own.
//
// Thread-safety: Initialize and Execute may be called from any number of
// threads at once, for the same or different devices. Each Execute uses its
// own streams, events and buffers; the thunks are immutable.
#ifndef XLA_BACKENDS_GPU_RUNTIME_GPU_EXECUTABLE_H_
#define XLA_BACKENDS_GPU_RUNTIME_GPU_EXECUTABLE_H_

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xla/backends/gpu/runtime/execute_options.h"
#include "xla/backends/gpu/runtime/graph_runner.h"
#include "xla/backends/gpu/runtime/program.h"
#include "xla/stream_executor/owning_device_memory.h"
#include "xla/stream_executor/stream_executor.h"

namespace xla::gpu {

class GpuExecutable {
 public:
  explicit GpuExecutable(std::unique_ptr<Program> program);
  ~GpuExecutable();

  absl::Status Initialize(stream_executor::StreamExecutor* executor);
  absl::StatusOr<std::vector<stream_executor::OwningDeviceMemory>> Execute(
      stream_executor::StreamExecutor* executor, std::vector<ExecutionArgument> arguments);
  // Execute with `options` (tracing).
  absl::StatusOr<std::vector<stream_executor::OwningDeviceMemory>> Execute(
      stream_executor::StreamExecutor* executor, std::vector<ExecutionArgument> arguments,
      const ExecuteOptions& options);

  // Drops what Initialize made for `executor` (its uploaded constants,
  // kernels, streams and graphs), freeing them through `executor`, so that
  // the executor may then be destroyed before this executable (a device
  // state otherwise lives as long as the executable). No Execute on
  // `executor` may run or start meanwhile (the caller's duty); Initialize
  // makes a fresh state again. A no-op for a device never initialized.
  // Thread-safe otherwise.
  void ReleaseDevice(stream_executor::StreamExecutor* executor);

  const Program& program() const { return *program_; }

  // The CUDA graph stats of `executor`'s device (execute_options.h); FailedPrecondition when it was not
  // initialized. Thread-safe.
  absl::StatusOr<CudaGraphStats> graph_stats(stream_executor::StreamExecutor* executor);

 private:
  struct DeviceState;
  struct RunResources;

  absl::StatusOr<DeviceState*> FindDevice(stream_executor::StreamExecutor* executor);
  absl::StatusOr<std::unique_ptr<DeviceState>> CreateDeviceState(
      stream_executor::StreamExecutor* executor);
  absl::StatusOr<std::unique_ptr<RunResources>> BorrowResources(DeviceState& device);
  void ReturnResources(DeviceState& device, std::unique_ptr<RunResources> resources);
  // Adds what `graphs` built and updated since the counts given to the
  // device's totals, and its note.
  static void RecordGraphStats(DeviceState& device, const GraphRunner& graphs,
                               const GraphRunner::Counts& before);

  std::unique_ptr<Program> program_;
  // Which runs of thunks become CUDA graphs (graph_runner.h); set under mu_
  // by the first Initialize, read without it by the devices' runs (which
  // start after their Initialize returned).
  std::unique_ptr<const GraphPlan> graph_plan_;
  std::mutex mu_;
  std::map<stream_executor::StreamExecutor*, std::unique_ptr<DeviceState>> devices_;  // guarded by mu_
  // The device initialized last, found without taking mu_ (entries of
  // devices_ are removed only by ReleaseDevice, which no run of that device
  // may overlap, and which clears this when it points at the entry).
  std::atomic<DeviceState*> last_device_{nullptr};
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_GPU_EXECUTABLE_H_
