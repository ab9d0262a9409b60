// OwningDeviceMemory: an RAII handle that owns one allocation of a
// StreamExecutor and frees it when destroyed.
//
// Move-only. The executor must outlive the handle, and work that uses the
// memory must have finished before the handle is destroyed or reset (the
// handle cannot know about queued stream work).
//
// Thread-safety: like a std::unique_ptr; one owner at a time.
#ifndef XLA_STREAM_EXECUTOR_OWNING_DEVICE_MEMORY_H_
#define XLA_STREAM_EXECUTOR_OWNING_DEVICE_MEMORY_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "xla/stream_executor/device_memory.h"
#include "xla/stream_executor/stream_executor.h"

namespace stream_executor {

class OwningDeviceMemory {
 public:
  OwningDeviceMemory() = default;
  // Takes ownership of `memory`, which `executor` allocated.
  OwningDeviceMemory(DeviceMemoryBase memory, StreamExecutor* executor)
      : memory_(memory), executor_(executor) {}
  ~OwningDeviceMemory() { Reset(); }

  OwningDeviceMemory(OwningDeviceMemory&& other) noexcept;
  OwningDeviceMemory& operator=(OwningDeviceMemory&& other) noexcept;
  OwningDeviceMemory(const OwningDeviceMemory&) = delete;
  OwningDeviceMemory& operator=(const OwningDeviceMemory&) = delete;

  // Allocates `size` bytes on `executor`; fails as StreamExecutor::Allocate.
  static absl::StatusOr<OwningDeviceMemory> Allocate(StreamExecutor* executor,
                                                     uint64_t size);

  // The owned range (a non-owning view); the null view when empty.
  const DeviceMemoryBase& get() const { return memory_; }
  DeviceMemoryBase* ptr() { return &memory_; }
  uint64_t size() const { return memory_.size; }
  bool is_null() const { return memory_.is_null(); }
  StreamExecutor* executor() const { return executor_; }

  // Frees the memory now; the handle becomes empty.
  void Reset();
  // Gives up ownership without freeing; the caller must Deallocate.
  DeviceMemoryBase Release();

 private:
  DeviceMemoryBase memory_;
  StreamExecutor* executor_ = nullptr;
};

}  // namespace stream_executor

#endif  // XLA_STREAM_EXECUTOR_OWNING_DEVICE_MEMORY_H_
