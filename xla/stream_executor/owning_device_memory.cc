#include "xla/stream_executor/owning_device_memory.h"

#include <utility>

#include "xla/util/logging.h"
#include "xla/util/status_macros.h"

namespace stream_executor {

OwningDeviceMemory::OwningDeviceMemory(OwningDeviceMemory&& other) noexcept
    : memory_(other.memory_), executor_(other.executor_) {
  other.memory_ = DeviceMemoryBase();
  other.executor_ = nullptr;
}

OwningDeviceMemory& OwningDeviceMemory::operator=(
    OwningDeviceMemory&& other) noexcept {
  if (this == &other) return *this;
  Reset();
  memory_ = std::exchange(other.memory_, DeviceMemoryBase());
  executor_ = std::exchange(other.executor_, nullptr);
  return *this;
}

absl::StatusOr<OwningDeviceMemory> OwningDeviceMemory::Allocate(
    StreamExecutor* executor, uint64_t size) {
  ASSIGN_OR_RETURN(DeviceMemoryBase memory, executor->Allocate(size));
  return OwningDeviceMemory(memory, executor);
}

void OwningDeviceMemory::Reset() {
  if (executor_ != nullptr && !memory_.is_null()) {
    // The handle owns a live allocation of `executor_`, so a failure here
    // means the ownership invariant was broken by the program itself.
    absl::Status status = executor_->Deallocate(memory_);
    XLA_CHECK(status.ok()) << "OwningDeviceMemory: " << status.ToString();
  }
  memory_ = DeviceMemoryBase();
  executor_ = nullptr;
}

DeviceMemoryBase OwningDeviceMemory::Release() {
  executor_ = nullptr;
  return std::exchange(memory_, DeviceMemoryBase());
}

}  // namespace stream_executor
