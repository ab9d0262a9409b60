// Reads a small value (a loop predicate, a branch index) from device memory
// to the host, waiting for the stream. Used by control-flow thunks.
//
// Thread-safety: safe to call concurrently on different streams.
#ifndef XLA_BACKENDS_GPU_RUNTIME_DEVICE_VALUE_H_
#define XLA_BACKENDS_GPU_RUNTIME_DEVICE_VALUE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "xla/stream_executor/device_memory.h"
#include "xla/stream_executor/stream.h"

namespace xla::gpu {

// Copies `memory` (1 byte for a PRED, 4 for an S32) to the host after the
// work enqueued so far on `stream` and returns it as int64 (PRED: 0 or 1,
// any nonzero byte counts as true). Fails with the stream's error.
absl::StatusOr<int64_t> ReadDeviceScalar(stream_executor::Stream* stream,
                                         const stream_executor::DeviceMemoryBase& memory);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_DEVICE_VALUE_H_
