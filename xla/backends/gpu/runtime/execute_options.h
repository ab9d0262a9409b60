// The per-run inputs of an executable's Execute: ExecutionArgument (a
// borrowed or donated device buffer) and ExecuteOptions (tracer,
// collectives, CUDA graphs), and CudaGraphStats (what
// GpuExecutable::graph_stats reports). Their own header, so that the public API
// (xla/aot/executable.h) can spell its Execute in them without including
// the executable's implementation (gpu_executable.h).
//
// Thread-safety: plain values; an ExecutionArgument that owns a donated
// buffer is moved, not shared.
#ifndef XLA_BACKENDS_GPU_RUNTIME_EXECUTE_OPTIONS_H_
#define XLA_BACKENDS_GPU_RUNTIME_EXECUTE_OPTIONS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "xla/stream_executor/device_memory.h"
#include "xla/stream_executor/owning_device_memory.h"
#include "xla/types/shape.h"

namespace xla::gpu {

struct CollectiveContext;  // collectives/collective_context.h

// One argument: a borrowed buffer, or a donated one whose ownership passes
// to the executable.
class ExecutionArgument {
 public:
  static ExecutionArgument Borrow(stream_executor::DeviceMemoryBase memory) {
    ExecutionArgument a;
    a.borrowed_ = memory;
    return a;
  }
  static ExecutionArgument Donate(stream_executor::OwningDeviceMemory memory) {
    ExecutionArgument a;
    a.owned_ = std::move(memory);
    a.donated_ = true;
    return a;
  }
  const stream_executor::DeviceMemoryBase& memory() const {
    return donated_ ? owned_.get() : borrowed_;
  }
  bool donated() const { return donated_; }
  stream_executor::OwningDeviceMemory TakeOwned() { return std::move(owned_); }

 private:
  stream_executor::DeviceMemoryBase borrowed_;
  stream_executor::OwningDeviceMemory owned_;
  bool donated_ = false;
};

class ThunkTracer;

// The host side of an artifact's host transfers (send/recv with
// is_host_transfer=true; docs/host_transfers.md), as XLA's
// Send/RecvDeviceMemoryFunction. Each is called from a stream's
// host-callback thread, in program order per stream, once per executed
// HostSendThunk / HostRecvThunk; a callback must not call back into the
// executable nor block on its streams. A non-OK return fails the run with
// that status, annotated with the thunk. `rendezvous` is the HLO's
// _xla_host_transfer_rendezvous ("" when it had none); `shape` is an array
// or the empty tuple (a pure synchronization, zero bytes).
struct HostTransferCallbacks {
  // Device to host: `data` holds the send's bytes (dense, row-major), valid
  // only during the call.
  std::function<absl::Status(int64_t channel_id, absl::string_view rendezvous, const Shape& shape,
                             absl::Span<const uint8_t> data)>
      send;
  // Host to device: fills all of `data` (the shape's byte size) for one
  // recv; valid only during the call.
  std::function<absl::Status(int64_t channel_id, absl::string_view rendezvous, const Shape& shape,
                             absl::Span<uint8_t> data)>
      recv;
};

// Optional per-run settings of Execute.
struct ExecuteOptions {
  // When set, every thunk's execution interval is recorded into it (see
  // thunk_trace.h); Execute calls tracer->Finish() once the streams are done,
  // also when the run fails. Not owned; one run at a time per tracer.
  ThunkTracer* tracer = nullptr;
  // For a participant of a replicated run (xla/aot/replicated_execution.h,
  // xla_aot_mpi_run): its replica and partition and its communicators.
  // Collective thunks fail with FailedPrecondition without it. Not owned;
  // must outlive the call.
  const CollectiveContext* collectives = nullptr;
  // Whether runs of kernel, memset and copy thunks go to the device as CUDA
  // graphs (graph_runner.h) where the device has them (cuda with a driver
  // that has the graph API); false launches every thunk on its own. Runs
  // with a tracer launch plainly too, so that every thunk keeps its own
  // interval. The results are the same either way.
  bool cuda_graphs = true;
  // The host side of the artifact's host transfers; a host send or recv
  // thunk fails the run with FailedPrecondition (naming the thunk, channel
  // and rendezvous) when it, or its callback for that direction, is
  // missing. Not owned; must outlive the call.
  const HostTransferCallbacks* host_transfers = nullptr;
};

// What the CUDA graphs of one executable on one device are (for bench and
// tests; GpuExecutable::graph_stats).
struct CudaGraphStats {
  // Whether the device builds graphs (false: plain launches; `note` says why).
  bool supported = false;
  // The plan: graphs per execution and their nodes together (the same
  // for every device).
  int64_t graphs = 0;
  int64_t nodes = 0;
  // Graphs instantiated on this device so far, over all run resources
  // (one set per concurrent execution), and their nodes.
  int64_t instantiated = 0;
  int64_t instantiated_nodes = 0;
  // Node updates issued so far (buffer addresses that changed).
  int64_t node_updates = 0;
  // Why graphs are off on this device or one was not built; "" when none.
  std::string note;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_EXECUTE_OPTIONS_H_
