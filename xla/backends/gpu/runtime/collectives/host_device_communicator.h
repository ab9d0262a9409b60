// HostDeviceCommunicator: a host Communicator (in-process or MPI) as the
// DeviceCommunicator that collective thunks use, so that the thunks have
// one path on every platform.
//
// Each operation is one host callback on the given stream that runs the
// blocking Communicator operation on the buffers (host devices' memory is
// host memory), so the exchange happens in stream order exactly as NCCL's
// device work does on CUDA; its error becomes the stream's sticky error.
// Scratch is host memory, one buffer per stream (streams of one device may
// run collectives of one clique concurrently).
//
// HostDeviceCommunicators is the cache the host cliques (InProcessCliques,
// MpiCliques) hand them out from: one per wrapped Communicator, created on
// first use and kept for the cache's lifetime.
//
// Thread-safety: HostDeviceCommunicators is thread-safe; a
// HostDeviceCommunicator follows communicator.h (Scratch is thread-safe).
#ifndef XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_HOST_DEVICE_COMMUNICATOR_H_
#define XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_HOST_DEVICE_COMMUNICATOR_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xla/backends/gpu/runtime/collectives/communicator.h"

namespace xla::gpu {

class HostDeviceCommunicator : public DeviceCommunicator {
 public:
  // `host` must outlive this.
  explicit HostDeviceCommunicator(Communicator* host) : host_(host) {}

  int64_t rank() const override { return host_->rank(); }
  int64_t size() const override { return host_->size(); }

  // Each enqueues the Communicator operation of the same name as a host
  // callback on `stream`; the stream's enqueue errors otherwise.
  absl::Status AllReduce(int64_t run_id, ReductionKind kind, PrimitiveType type,
                         stream_executor::DeviceMemoryBase send,
                         stream_executor::DeviceMemoryBase recv, int64_t count,
                         stream_executor::Stream& stream) override;
  absl::Status AllGather(int64_t run_id, stream_executor::DeviceMemoryBase send,
                         stream_executor::DeviceMemoryBase recv, int64_t bytes,
                         stream_executor::Stream& stream) override;
  absl::Status ReduceScatter(int64_t run_id, ReductionKind kind, PrimitiveType type,
                             stream_executor::DeviceMemoryBase send,
                             stream_executor::DeviceMemoryBase recv, int64_t count,
                             stream_executor::Stream& stream) override;
  absl::Status AllToAll(int64_t run_id, stream_executor::DeviceMemoryBase send,
                        stream_executor::DeviceMemoryBase recv, int64_t bytes,
                        stream_executor::Stream& stream) override;
  // The host form needs no targets (every rank contributes): target_ranks
  // is not used.
  absl::Status CollectivePermute(int64_t run_id, stream_executor::DeviceMemoryBase send,
                                 stream_executor::DeviceMemoryBase recv, int64_t bytes,
                                 std::optional<int64_t> source_rank,
                                 absl::Span<const int64_t> target_ranks,
                                 stream_executor::Stream& stream) override;
  absl::Status Broadcast(int64_t run_id, stream_executor::DeviceMemoryBase send,
                         stream_executor::DeviceMemoryBase recv, int64_t bytes, int64_t root_rank,
                         stream_executor::Stream& stream) override;
  // Host memory, kept per stream; ResourceExhausted when it cannot be had.
  absl::StatusOr<stream_executor::DeviceMemoryBase> Scratch(
      int64_t bytes, stream_executor::Stream& stream) override;

 private:
  Communicator* const host_;
  std::mutex mu_;
  // Per stream, every buffer handed out (the current one last); guarded by
  // mu_.
  std::map<const stream_executor::Stream*, std::vector<std::unique_ptr<char[]>>> scratch_;
  std::map<const stream_executor::Stream*, int64_t> scratch_bytes_;  // guarded by mu_
};

class HostDeviceCommunicators {
 public:
  // The DeviceCommunicator over `host` (not null; must outlive this cache).
  DeviceCommunicator* For(Communicator* host);

 private:
  std::mutex mu_;
  std::map<Communicator*, std::unique_ptr<HostDeviceCommunicator>> wrapped_;  // guarded by mu_
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_HOST_DEVICE_COMMUNICATOR_H_
