// DeviceMemoryBase: a non-owning view of a range of device memory.
//
// It is a pointer and a size and nothing more: it never frees anything, and
// copying it copies the view. Memory comes from StreamExecutor::Allocate (or
// an OwningDeviceMemory) and stays valid until it is deallocated; a view must
// not be used after that. On the host platform `opaque` is a host pointer; on
// CUDA it is a CUdeviceptr. Code outside the platform must not dereference it.
//
// Thread-safety: a plain value type; concurrent reads are safe.
#ifndef XLA_STREAM_EXECUTOR_DEVICE_MEMORY_H_
#define XLA_STREAM_EXECUTOR_DEVICE_MEMORY_H_

#include <cstdint>

#include "absl/status/statusor.h"

namespace stream_executor {

struct DeviceMemoryBase {
  void* opaque = nullptr;
  uint64_t size = 0;

  DeviceMemoryBase() = default;
  DeviceMemoryBase(void* opaque, uint64_t size) : opaque(opaque), size(size) {}

  // True for the empty view (also what a zero-size allocation returns).
  bool is_null() const { return opaque == nullptr; }

  // The sub-range [offset, offset + size) of this view. Fails with
  // InvalidArgument (naming the offset, the size and this view's size) when
  // the range does not lie inside this view, including on overflow. A slice
  // of size 0 at offset == this->size is allowed.
  absl::StatusOr<DeviceMemoryBase> GetSlice(uint64_t offset,
                                            uint64_t size) const;

  // Two views are equal when they name the same range.
  friend bool operator==(const DeviceMemoryBase& a, const DeviceMemoryBase& b) {
    return a.opaque == b.opaque && a.size == b.size;
  }
  friend bool operator!=(const DeviceMemoryBase& a, const DeviceMemoryBase& b) {
    return !(a == b);
  }
};

}  // namespace stream_executor

#endif  // XLA_STREAM_EXECUTOR_DEVICE_MEMORY_H_
