// DeviceLimits: what one device can do, as the runtime checks launches and
// allocations against it.
//
// Filled in by the platform when it opens a device and constant afterwards.
// For CUDA the values come from the driver's device attributes; for the host
// platform they are fixed (see host_executor.cc). `compute_capability` is
// "<major>.<minor>" for CUDA devices (e.g. "9.0") and "host" for the host.
//
// Thread-safety: a plain value type.
#ifndef XLA_STREAM_EXECUTOR_DEVICE_LIMITS_H_
#define XLA_STREAM_EXECUTOR_DEVICE_LIMITS_H_

#include <cstdint>
#include <string>

namespace stream_executor {

// Three extents (x, y, z) of a grid or a block limit.
struct Dim3Limit {
  int64_t x = 1;
  int64_t y = 1;
  int64_t z = 1;
};

struct DeviceLimits {
  // Upper bound on threads per block (the product block.x*block.y*block.z).
  int64_t max_threads_per_block = 1;
  // Upper bound on each block extent.
  Dim3Limit max_block_dims;
  // Upper bound on each grid extent (blocks per grid in x, y and z).
  Dim3Limit max_grid_dims;
  // Shared (block-local) memory one launch may ask for, in bytes.
  int64_t shared_memory_per_block = 0;
  // Threads that run in lockstep; 1 on the host.
  int64_t warp_size = 1;
  // Total device memory in bytes.
  uint64_t memory_size = 0;
  // "<major>.<minor>" for CUDA, "host" for the host platform.
  std::string compute_capability;

  // One line, for logs and error messages.
  std::string ToString() const;
};

}  // namespace stream_executor

#endif  // XLA_STREAM_EXECUTOR_DEVICE_LIMITS_H_
