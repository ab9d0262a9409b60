// Stream: an ordered queue of device work.
//
// Every enqueue method returns as soon as the operation is queued; operations
// of one stream run one after another in the order they were enqueued. Work
// on different streams may run concurrently; use events to order it.
//
// Sticky errors: once an operation fails, the stream keeps that first error.
// Every later operation on the stream is skipped (records of events still
// complete, carrying the error), BlockHostUntilDone returns the error from
// then on, and the stream cannot be reset: create a new one. The error
// message starts with the operation that failed ("memcpy host-to-device",
// "kernel launch 'name'", "host callback", ...).
//
// Return values of the enqueue methods: invalid arguments (a size larger than
// a buffer, launch dimensions past the device limits, a kernel or event of
// another platform) are detected at enqueue time. They are returned at once
// and also become the stream's sticky error, in stream order (earlier work
// still runs; later work is skipped). When the stream already knows of an
// error at enqueue time (an operation failed, or an earlier enqueue returned
// an error), the method returns that error and enqueues nothing, except that
// RecordEvent still records so that waiters wake up and see the error. An OK
// return only means "queued": failures while running are reported by
// BlockHostUntilDone.
//
// Host pointers passed to Memcpy must stay valid until the copy has run
// (BlockHostUntilDone, or an event recorded after it). Device memory must
// belong to the stream's executor.
//
// Ownership: created by StreamExecutor::CreateStream; the caller owns it, and
// it must not outlive its executor. Destroying a stream waits for its queued
// work to finish.
//
// Thread-safety: all methods may be called from any thread, concurrently;
// operations enqueued concurrently are ordered in some serial order. A host
// callback must not call BlockHostUntilDone on its own stream (it returns
// FailedPrecondition there instead of deadlocking).
#ifndef XLA_STREAM_EXECUTOR_STREAM_H_
#define XLA_STREAM_EXECUTOR_STREAM_H_

#include <chrono>
#include <cstdint>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "xla/stream_executor/blas.h"
#include "xla/stream_executor/device_memory.h"
#include "xla/stream_executor/dnn.h"
#include "xla/stream_executor/event.h"
#include "xla/stream_executor/fft.h"
#include "xla/stream_executor/kernel.h"
#include "xla/stream_executor/launch_dimensions.h"

namespace stream_executor {

// The clock of Stream::RecordTimestamp and of traces: std::chrono's steady
// clock in nanoseconds since its epoch. Thread-safe.
inline int64_t SteadyClockNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

class Stream {
 public:
  virtual ~Stream() = default;

  // Host to device: copies `size` bytes from `host_src` to the start of
  // `*device_dst`. InvalidArgument when size > device_dst->size or a pointer
  // is null with size > 0.
  virtual absl::Status Memcpy(DeviceMemoryBase* device_dst,
                              const void* host_src, uint64_t size) = 0;
  // Device to host: copies `size` bytes from the start of `device_src` to
  // `host_dst`. Same checks.
  virtual absl::Status Memcpy(void* host_dst, const DeviceMemoryBase& device_src,
                              uint64_t size) = 0;
  // Device to device. `size` must fit both buffers; the ranges must not
  // overlap partially (identical ranges are fine).
  virtual absl::Status Memcpy(DeviceMemoryBase* device_dst,
                              const DeviceMemoryBase& device_src,
                              uint64_t size) = 0;

  // Fills the first `size` bytes of `*location` with the 32-bit `pattern`.
  // InvalidArgument when size is not a multiple of 4 or exceeds the buffer.
  virtual absl::Status Memset32(DeviceMemoryBase* location, uint32_t pattern,
                                uint64_t size) = 0;
  // Sets the first `size` bytes of `*location` to zero (any size up to the
  // buffer's).
  virtual absl::Status MemZero(DeviceMemoryBase* location, uint64_t size) = 0;

  // Launches `kernel` over `dims` with `args` as its buffers, in order.
  // InvalidArgument when `dims` break the device limits (see
  // ValidateLaunchDimensions) or the kernel belongs to another platform.
  // `args` is copied; the kernel object may be destroyed after this returns.
  virtual absl::Status Launch(const Kernel& kernel,
                              const LaunchDimensions& dims,
                              absl::Span<const DeviceMemoryBase> args) = 0;

  // Enqueues the GEMM `config` (see blas.h) reading `lhs` and `rhs` and
  // updating `out`, all memory of this stream's executor. The executor's
  // InitializeBlas must have succeeded first (FailedPrecondition otherwise,
  // saying so). InvalidArgument at enqueue when the config is invalid or a
  // buffer is smaller than its extents; failures of the BLAS library become
  // the sticky error ("gemm failed: ..."). `out` must not overlap an
  // operand. This default returns Unimplemented: platforms without a BLAS
  // library (host runs GEMMs as host callbacks) do not override it.
  virtual absl::Status Gemm(const BlasGemmConfig& /*config*/,
                            const DeviceMemoryBase& /*lhs*/,
                            const DeviceMemoryBase& /*rhs*/,
                            const DeviceMemoryBase& /*out*/) {
    return absl::UnimplementedError(
        "gemm: this platform's streams have no BLAS support");
  }

  // Enqueues the convolution `plan` (dnn.h; made by this stream's
  // executor's PrepareConvolution) on x, w and y, writing the one its kind
  // names, with `workspace` (at least plan.workspace_bytes(), memory of
  // this executor) as scratch and, when the plan's config has an epilogue,
  // `bias` (K elements; ignored otherwise). InvalidArgument at enqueue when
  // a buffer is smaller than its tensor or the workspace than the plan
  // needs; the
  // library's failures become the sticky error ("convolution failed: ...").
  // This default returns Unimplemented: platforms without a DNN library
  // (host) do not override it.
  virtual absl::Status Convolution(const DnnConvolutionPlan& /*plan*/,
                                   const DeviceMemoryBase& /*x*/,
                                   const DeviceMemoryBase& /*w*/,
                                   const DeviceMemoryBase& /*y*/,
                                   const DeviceMemoryBase& /*workspace*/,
                                   const DeviceMemoryBase& /*bias*/) {
    return absl::UnimplementedError(
        "convolution: this platform's streams have no DNN library");
  }

  // Enqueues the FFT `plan` (fft.h; made by this stream's executor's
  // PrepareFft) from `input` into `output`, with `workspace` (at least
  // FftWorkspaceBytes of the plan's config, memory of this executor) as
  // scratch. InvalidArgument at enqueue when a buffer is smaller than its
  // array, buffers overlap (CheckFftBuffers) or the plan belongs to another
  // platform; the library's failures become the sticky error ("fft failed:
  // ..."). This default returns Unimplemented: platforms without an FFT
  // library do not override it.
  virtual absl::Status Fft(const FftPlan& /*plan*/, const DeviceMemoryBase& /*input*/,
                           const DeviceMemoryBase& /*output*/,
                           const DeviceMemoryBase& /*workspace*/) {
    return absl::UnimplementedError("fft: this platform's streams have no FFT library");
  }

  // Records `event` after all work enqueued so far (see event.h).
  virtual absl::Status RecordEvent(Event* event) = 0;
  // Makes later work on this stream wait for the latest record of `event`.
  virtual absl::Status WaitFor(Event* event) = 0;

  // Runs `callback` on a host thread once all earlier work is done; later
  // work waits for it. A non-OK return becomes the stream's sticky error. It
  // must not block on this stream.
  virtual absl::Status DoHostCallback(
      absl::AnyInvocable<absl::Status() &&> callback) = 0;

  // Stamps the time at which the stream gets here, for traces: once all
  // earlier work has run, `*ns` receives SteadyClockNs()'s reading then. `*ns` must stay
  // valid until a BlockHostUntilDone of this stream returns, and holds the
  // stamp once one has returned OK; when the stream fails first it may be
  // left unwritten. A null `ns` is InvalidArgument and leaves the stream
  // as it was (a trace never fails the work it watches); otherwise the
  // errors of the other enqueue methods. This
  // default reads the clock in a host callback (exact on the host, where
  // the callback runs on the stream's thread); platforms with device timers
  // override it so that a stamp does not stall the device (CUDA: timing
  // events, see cuda_stream.h).
  virtual absl::Status RecordTimestamp(int64_t* ns) {
    if (ns == nullptr) return absl::InvalidArgumentError("timestamp: the slot is null");
    return DoHostCallback([ns]() -> absl::Status {
      *ns = SteadyClockNs();
      return absl::OkStatus();
    });
  }

  // Blocks until all work enqueued so far has run. Returns the stream's
  // first error, if any (every call after a failure returns it again).
  virtual absl::Status BlockHostUntilDone() = 0;
};

}  // namespace stream_executor

#endif  // XLA_STREAM_EXECUTOR_STREAM_H_
