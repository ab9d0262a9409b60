// The argument checks every platform's Stream runs before it enqueues a copy
// or a fill (host/host_stream.cc, cuda/cuda_stream.cc), and the wording of
// the sticky error a failed operation leaves on a stream. One place, so the
// platforms refuse the same arguments with the same messages.
//
// Every check returns OK or InvalidArgument naming the buffer ("the
// destination buffer is null", "8 bytes do not fit in the source buffer of
// 4 bytes", "the host source pointer is null"); the first failing check
// wins. They read only their arguments (never device memory).
//
// Thread-safety: pure functions; thread-safe.
#ifndef XLA_STREAM_EXECUTOR_STREAM_CHECKS_H_
#define XLA_STREAM_EXECUTOR_STREAM_CHECKS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "xla/stream_executor/device_memory.h"

namespace stream_executor {

// The names the copy operations carry in stream errors.
inline constexpr absl::string_view kMemcpyHostToDevice = "memcpy host-to-device";
inline constexpr absl::string_view kMemcpyDeviceToHost = "memcpy device-to-host";
inline constexpr absl::string_view kMemcpyDeviceToDevice = "memcpy device-to-device";

// The error a failed operation leaves on the stream: `error`'s code, and
// "<operation> failed: <error's message>".
absl::Status AnnotateStreamError(absl::string_view operation,
                                 const absl::Status& error);

// `size` bytes must fit in the `what` buffer of `capacity` bytes at
// `pointer`, and `pointer` may be null only when `size` is 0.
absl::Status CheckBuffer(absl::string_view what, const void* pointer,
                         uint64_t capacity, uint64_t size);

// A host buffer of `size` bytes at `pointer`: null only when `size` is 0.
absl::Status CheckHostBuffer(absl::string_view what, const void* pointer,
                             uint64_t size);

// `memory` must be given (not null) and hold `size` bytes (CheckBuffer of
// its opaque pointer and size).
absl::Status CheckDeviceBuffer(absl::string_view what,
                               const DeviceMemoryBase* memory, uint64_t size);

// The checks of Stream::Memcpy in each direction: the device side first,
// then the other ("destination" / "source", "host destination" / "host
// source"). A partial overlap of two device ranges is the platform's to
// check.
absl::Status CheckMemcpyHostToDevice(const DeviceMemoryBase* device_dst,
                                     const void* host_src, uint64_t size);
absl::Status CheckMemcpyDeviceToHost(const void* host_dst,
                                     const DeviceMemoryBase& device_src,
                                     uint64_t size);
absl::Status CheckMemcpyDeviceToDevice(const DeviceMemoryBase* device_dst,
                                       const DeviceMemoryBase& device_src,
                                       uint64_t size);

// Stream::Memset32: the destination holds `size` bytes and `size` is a
// multiple of 4 ("size 6 is not a multiple of 4").
absl::Status CheckMemset32(const DeviceMemoryBase* location, uint64_t size);

}  // namespace stream_executor

#endif  // XLA_STREAM_EXECUTOR_STREAM_CHECKS_H_
