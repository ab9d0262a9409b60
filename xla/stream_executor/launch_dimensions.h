// LaunchDimensions: the grid, block and shared-memory size of one kernel
// launch, and their validation against a device's limits.
//
// BlockDim counts blocks in the grid; ThreadDim counts threads in a block.
// They are distinct types so the two cannot be swapped by accident. Every
// extent must be at least 1.
//
// On the host platform a kernel is called once per contiguous range of block
// indices (see host/host_kernel_abi.h); the threads of a block are a loop the
// code generator bakes into the kernel, so ThreadDim is validated but not
// passed to the kernel.
//
// Thread-safety: plain value types and a pure function.
#ifndef XLA_STREAM_EXECUTOR_LAUNCH_DIMENSIONS_H_
#define XLA_STREAM_EXECUTOR_LAUNCH_DIMENSIONS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "xla/stream_executor/device_limits.h"

namespace stream_executor {

// Blocks per grid in x, y and z.
struct BlockDim {
  int64_t x = 1;
  int64_t y = 1;
  int64_t z = 1;
};

// Threads per block in x, y and z.
struct ThreadDim {
  int64_t x = 1;
  int64_t y = 1;
  int64_t z = 1;
};

struct LaunchDimensions {
  BlockDim grid;
  ThreadDim block;
  int64_t shared_memory_bytes = 0;

  // grid.x * grid.y * grid.z. Only meaningful for validated dimensions
  // (validation rejects products that overflow int64).
  int64_t num_blocks() const { return grid.x * grid.y * grid.z; }
  // block.x * block.y * block.z, likewise.
  int64_t threads_per_block() const { return block.x * block.y * block.z; }

  // "grid={x,y,z} block={x,y,z} shared_memory_bytes=N".
  std::string ToString() const;
};

// OK when every extent is >= 1 and within `limits`, the threads per block are
// within limits.max_threads_per_block, and shared_memory_bytes is in
// [0, limits.shared_memory_per_block]. Otherwise InvalidArgument naming the
// dimension (e.g. "grid.y"), its value and the limit it broke.
absl::Status ValidateLaunchDimensions(const LaunchDimensions& dims,
                                      const DeviceLimits& limits);

}  // namespace stream_executor

#endif  // XLA_STREAM_EXECUTOR_LAUNCH_DIMENSIONS_H_
