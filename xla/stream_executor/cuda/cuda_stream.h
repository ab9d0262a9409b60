// CudaStream: the CUDA platform's Stream (see stream.h for the semantics) on
// a driver CUstream.
//
// Enqueue methods validate their arguments and push the operation onto a
// host-side queue; one worker thread per stream issues the queued operations
// to the driver in order (cuMemcpy*Async, cuMemset*Async, cuLaunchKernel,
// cuEventRecord, cuStreamWaitEvent), so the device runs them asynchronously
// and in order. The worker is what makes sticky errors exact: once an
// operation fails, later ones are never issued.
//
//  * Host callbacks: the worker issues cuLaunchHostFunc with a function that
//    only signals the worker, waits for that signal (the device reached the
//    callback), then runs the callback itself, on the worker thread, before
//    issuing anything later. So a failing callback skips later work, and the
//    callback may call driver functions (which CUDA forbids inside a host
//    function) and block on other streams.
//  * Timestamps (RecordTimestamp): the first since the stamps were last
//    read is an anchor, a timing event plus a host function that reads the
//    steady clock when the device reaches it (one stall); later ones are
//    timing events only, read with cuEventElapsedTime against the anchor
//    when BlockHostUntilDone has synchronized (those the worker has issued
//    and the device has passed; others wait for the next synchronize), so a
//    trace does not stall the stream between thunks. A stamp whose event cannot be created
//    returns the driver's error and is not taken; the stream is unaffected.
//  * Waiting for an event: the worker waits until the recording stream's
//    worker has issued the awaited record (host-side, not until the device
//    reached it), then issues cuStreamWaitEvent, or takes the event's error
//    as its sticky error.
//  * Launches pass one CUdeviceptr kernel parameter per buffer, in order.
//    The stream keeps the kernel's module loaded until it next synchronizes.
//  * Gemm runs on the BLAS of the executor that created the stream
//    (CudaBlas, implemented by CudaExecutor over its cuBLAS handle).
//  * BlockHostUntilDone waits for the worker to drain, then calls
//    cuStreamSynchronize; a driver error there becomes the sticky error.
//
// Thread-safety: all methods may be called from any thread.
#ifndef XLA_STREAM_EXECUTOR_CUDA_CUDA_STREAM_H_
#define XLA_STREAM_EXECUTOR_CUDA_CUDA_STREAM_H_

#include <cuda.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "xla/stream_executor/cuda/cuda_driver_api.h"
#include "xla/stream_executor/cuda/cuda_kernel_module.h"
#include "xla/stream_executor/blas.h"
#include "xla/stream_executor/device_limits.h"
#include "xla/stream_executor/device_memory.h"
#include "xla/stream_executor/stream.h"

namespace stream_executor::cuda {

class CudaStream;

// The libraries behind CudaStream::Gemm, Convolution and Fft: CudaExecutor
// implements them over its cuBLAS, cuDNN and cuFFT handles (the CUDA
// layer's stream cannot depend on the libraries itself). Implementations
// are thread-safe and outlive the streams using them.
class CudaBlas {
 public:
  virtual ~CudaBlas() = default;
  // Enqueues `config` on `stream`, with the error rules of Stream::Gemm.
  virtual absl::Status Gemm(CudaStream& stream, const BlasGemmConfig& config,
                            const DeviceMemoryBase& lhs,
                            const DeviceMemoryBase& rhs,
                            const DeviceMemoryBase& out) = 0;
  // Enqueues the convolution `plan` on `stream`, with the error rules of
  // Stream::Convolution. This default refuses it (FailedPrecondition).
  virtual absl::Status Convolution(CudaStream& stream, const DnnConvolutionPlan& plan,
                                   const DeviceMemoryBase& x, const DeviceMemoryBase& w,
                                   const DeviceMemoryBase& y, const DeviceMemoryBase& workspace,
                                   const DeviceMemoryBase& bias);
  // Enqueues the FFT `plan` on `stream`, with the error rules of
  // Stream::Fft. This default refuses it (FailedPrecondition).
  virtual absl::Status Fft(CudaStream& stream, const FftPlan& plan, const DeviceMemoryBase& input,
                           const DeviceMemoryBase& output, const DeviceMemoryBase& workspace);
};

class CudaStream : public Stream {
 public:
  // Creates the driver stream (CU_STREAM_NON_BLOCKING) in `context` and
  // starts the worker. `api`, `context`, `limits` and `blas` (may be null:
  // Gemm then fails with FailedPrecondition) must outlive the stream. The
  // driver's error, or ResourceExhausted when no thread starts.
  static absl::StatusOr<std::unique_ptr<CudaStream>> Create(
      const CudaDriverApi& api, CUcontext context, const DeviceLimits& limits,
      CudaBlas* blas = nullptr);
  // Waits for the queued work (host side and device side), then stops the
  // worker and destroys the driver stream.
  ~CudaStream() override;

  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;

  absl::Status Memcpy(DeviceMemoryBase* device_dst, const void* host_src,
                      uint64_t size) override;
  absl::Status Memcpy(void* host_dst, const DeviceMemoryBase& device_src,
                      uint64_t size) override;
  absl::Status Memcpy(DeviceMemoryBase* device_dst,
                      const DeviceMemoryBase& device_src,
                      uint64_t size) override;
  absl::Status Memset32(DeviceMemoryBase* location, uint32_t pattern,
                        uint64_t size) override;
  absl::Status MemZero(DeviceMemoryBase* location, uint64_t size) override;
  absl::Status Launch(const Kernel& kernel, const LaunchDimensions& dims,
                      absl::Span<const DeviceMemoryBase> args) override;
  // Delegates to the CudaBlas given at creation (see Stream::Gemm).
  absl::Status Gemm(const BlasGemmConfig& config, const DeviceMemoryBase& lhs,
                    const DeviceMemoryBase& rhs,
                    const DeviceMemoryBase& out) override;
  // Delegates to the CudaBlas given at creation (see Stream::Convolution).
  absl::Status Convolution(const DnnConvolutionPlan& plan, const DeviceMemoryBase& x,
                           const DeviceMemoryBase& w, const DeviceMemoryBase& y,
                           const DeviceMemoryBase& workspace,
                           const DeviceMemoryBase& bias) override;
  // Delegates to the CudaBlas given at creation (see Stream::Fft).
  absl::Status Fft(const FftPlan& plan, const DeviceMemoryBase& input,
                   const DeviceMemoryBase& output, const DeviceMemoryBase& workspace) override;
  absl::Status RecordEvent(Event* event) override;
  absl::Status WaitFor(Event* event) override;
  absl::Status DoHostCallback(
      absl::AnyInvocable<absl::Status() &&> callback) override;
  absl::Status RecordTimestamp(int64_t* ns) override;
  absl::Status BlockHostUntilDone() override;

  // Queues `work`, run on the worker with the context current and the driver
  // stream as its argument, as one operation named `name` (for library calls
  // such as cuBLAS that take a CUstream). Same error rules as the other
  // enqueue methods.
  absl::Status EnqueueDriverWork(
      std::string name, absl::AnyInvocable<absl::Status(CUstream) &&> work);

  // The enqueue-time error path of the other methods, for library
  // operations that validate their arguments: returns `error` as
  // "<name> failed: <message>" and makes it the stream's sticky error in
  // stream order (or returns the error the stream already knows of).
  absl::Status RejectAtEnqueue(std::string name, absl::Status error);

  // The driver stream (for tests and libraries; issue work on it only
  // through EnqueueDriverWork).
  CUstream handle() const { return stream_; }

 private:
  using Work = absl::AnyInvocable<absl::Status() &&>;
  struct Operation {
    std::string name;  // prefixes the error message when `work` fails
    Work work;
    bool runs_after_error = false;  // event records
  };

  CudaStream(const CudaDriverApi& api, CUcontext context,
             const DeviceLimits& limits, CudaBlas* blas, CUstream stream);

  absl::Status Enqueue(std::string name, Work work);
  absl::Status EnqueueError(std::string name, absl::Status error);
  void PushLocked(Operation operation);
  absl::Status KnownErrorLocked() const;
  void WaitIdleLocked(std::unique_lock<std::mutex>& lock);
  void WorkerLoop();
  absl::Status CurrentStatus();
  // On the worker: launches a host function and waits until the device
  // reaches it.
  absl::Status WaitUntilDeviceReachesHere();
  // A timing event for RecordTimestamp: a spare one, else a new one.
  absl::StatusOr<CUevent> TakeStampEventLocked();
  // After a synchronize: writes the stamps whose events completed and
  // recycles their events (see the file comment).
  void ReadStampsLocked();
  // Forgets the anchor and every pending stamp (their slots stay as they
  // are) and keeps their events for reuse.
  void DropStampsLocked();

  // A timestamp still to be read: its event, where its time goes, and its
  // place in the order of stamps (see issued_stamps_).
  struct PendingStamp {
    CUevent event = nullptr;
    int64_t* slot = nullptr;
    int64_t sequence = 0;
  };

  const CudaDriverApi& api_;
  const CUcontext context_;
  const DeviceLimits& limits_;
  CudaBlas* const blas_;
  const CUstream stream_;

  std::mutex mu_;
  std::condition_variable work_available_;  // queue_ non-empty or shutdown
  std::condition_variable idle_;            // pending_ == 0
  // Guarded by mu_:
  std::deque<Operation> queue_;
  int64_t pending_ = 0;        // queued or running
  absl::Status status_;        // the first error, sticky
  absl::Status queued_error_;  // an enqueue-time error not yet reached
  bool shutting_down_ = false;
  // Modules of launches issued since the last synchronize.
  std::vector<std::shared_ptr<const CudaModuleHandle>> in_flight_modules_;
  // RecordTimestamp's anchor event (null when none is open), its clock
  // reading (-1 until the worker has taken it), the stamps timed against
  // it, and timing events to reuse.
  CUevent stamp_anchor_ = nullptr;
  int64_t stamp_anchor_ns_ = -1;
  std::vector<PendingStamp> stamps_;
  std::vector<CUevent> spare_stamp_events_;
  // Stamps numbered as enqueued; the worker notes the last whose record it
  // issued. A stamp not yet issued is never read: its (reused) event may
  // still hold an earlier round's time.
  int64_t enqueued_stamps_ = 0;
  int64_t issued_stamps_ = 0;
  std::thread worker_;
};

}  // namespace stream_executor::cuda

#endif  // XLA_STREAM_EXECUTOR_CUDA_CUDA_STREAM_H_
