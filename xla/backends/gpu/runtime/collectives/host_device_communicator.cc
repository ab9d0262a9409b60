#include "xla/backends/gpu/runtime/collectives/host_device_communicator.h"

#include <new>

#include "absl/strings/str_cat.h"

namespace xla::gpu {

namespace se = ::stream_executor;

absl::Status HostDeviceCommunicator::AllReduce(int64_t run_id, ReductionKind kind,
                                               PrimitiveType type, se::DeviceMemoryBase send,
                                               se::DeviceMemoryBase recv, int64_t count,
                                               se::Stream& stream) {
  return stream.DoHostCallback([c = host_, run_id, kind, type, send, recv, count]() {
    return c->AllReduce(run_id, kind, type, send.opaque, recv.opaque, count);
  });
}

absl::Status HostDeviceCommunicator::AllGather(int64_t run_id, se::DeviceMemoryBase send,
                                               se::DeviceMemoryBase recv, int64_t bytes,
                                               se::Stream& stream) {
  return stream.DoHostCallback([c = host_, run_id, send, recv, bytes]() {
    return c->AllGather(run_id, send.opaque, recv.opaque, bytes);
  });
}

absl::Status HostDeviceCommunicator::ReduceScatter(int64_t run_id, ReductionKind kind,
                                                   PrimitiveType type, se::DeviceMemoryBase send,
                                                   se::DeviceMemoryBase recv, int64_t count,
                                                   se::Stream& stream) {
  return stream.DoHostCallback([c = host_, run_id, kind, type, send, recv, count]() {
    return c->ReduceScatter(run_id, kind, type, send.opaque, recv.opaque, count);
  });
}

absl::Status HostDeviceCommunicator::AllToAll(int64_t run_id, se::DeviceMemoryBase send,
                                              se::DeviceMemoryBase recv, int64_t bytes,
                                              se::Stream& stream) {
  return stream.DoHostCallback([c = host_, run_id, send, recv, bytes]() {
    return c->AllToAll(run_id, send.opaque, recv.opaque, bytes);
  });
}

absl::Status HostDeviceCommunicator::CollectivePermute(
    int64_t run_id, se::DeviceMemoryBase send, se::DeviceMemoryBase recv, int64_t bytes,
    std::optional<int64_t> source_rank, absl::Span<const int64_t> /*target_ranks*/,
    se::Stream& stream) {
  return stream.DoHostCallback([c = host_, run_id, send, recv, bytes, source_rank]() {
    return c->CollectivePermute(run_id, send.opaque, recv.opaque, bytes, source_rank);
  });
}

absl::Status HostDeviceCommunicator::Broadcast(int64_t run_id, se::DeviceMemoryBase send,
                                               se::DeviceMemoryBase recv, int64_t bytes,
                                               int64_t root_rank, se::Stream& stream) {
  return stream.DoHostCallback([c = host_, run_id, send, recv, bytes, root_rank]() {
    return c->Broadcast(run_id, send.opaque, recv.opaque, bytes, root_rank);
  });
}

absl::StatusOr<se::DeviceMemoryBase> HostDeviceCommunicator::Scratch(int64_t bytes,
                                                                     se::Stream& stream) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::unique_ptr<char[]>>& buffers = scratch_[&stream];
  int64_t& size = scratch_bytes_[&stream];
  if (buffers.empty() || size < bytes) {
    std::unique_ptr<char[]> buffer(new (std::nothrow) char[bytes > 0 ? bytes : 1]);
    if (buffer == nullptr) {
      return absl::ResourceExhaustedError(
          absl::StrCat("collective scratch memory of ", bytes, " bytes"));
    }
    buffers.push_back(std::move(buffer));
    size = bytes;
  }
  return se::DeviceMemoryBase(buffers.back().get(), static_cast<uint64_t>(size));
}

DeviceCommunicator* HostDeviceCommunicators::For(Communicator* host) {
  std::lock_guard<std::mutex> lock(mu_);
  std::unique_ptr<HostDeviceCommunicator>& wrapped = wrapped_[host];
  if (wrapped == nullptr) wrapped = std::make_unique<HostDeviceCommunicator>(host);
  return wrapped.get();
}

}  // namespace xla::gpu
