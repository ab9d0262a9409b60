// HostStream: the host platform's Stream (see stream.h for the semantics).
//
// Each stream owns one worker thread that runs its operations in order.
// Memory operations are memcpy/memset on host memory; a launch runs the
// kernel's block ranges on the executor's thread pool (the worker takes part
// and waits for the rest), and so does a GEMM (HostGemm); a wait for an
// event blocks the worker.
//
// Cost: queueing a copy, fill, launch (with up to 8 arguments) or event
// operation takes one lock and no heap allocation once the stream has
// queued as many operations at once before; the worker takes everything
// queued under one lock and runs it as a batch, and is woken only when it
// sleeps.
//
// Inline runs: a copy, fill, launch or GEMM enqueued while the stream is
// idle (nothing queued or running, no error) runs on the calling thread
// before the enqueue returns (a launch still spreads its blocks over the
// pool). Nothing could have run before it, so the order is the stream's;
// what it saves is the worker's wake-up and the wake-up of a thread waiting
// in BlockHostUntilDone, twice per iteration of a while loop that reads its
// predicate. A launch (of up to 8 arguments) or GEMM that runs inline
// builds no queue record and no closure: a while loop's body pays only
// the lock, the checks and the call for each. Events, waits and host
// callbacks always go through the worker; so does everything enqueued
// while an earlier operation is queued or running. A failed inline operation returns its error at once (it is
// the stream's sticky error, as if it had failed on the worker).
//
// Thread-safety: all methods may be called from any thread. (std::mutex, not
// absl::Mutex: Debian's abseil is not built for ThreadSanitizer.)
#ifndef XLA_STREAM_EXECUTOR_HOST_HOST_STREAM_H_
#define XLA_STREAM_EXECUTOR_HOST_HOST_STREAM_H_

#include <array>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "xla/stream_executor/device_limits.h"
#include "xla/stream_executor/host/host_event.h"
#include "xla/stream_executor/host/host_kernel_abi.h"
#include "xla/stream_executor/host/host_kernel_module.h"
#include "xla/stream_executor/host/host_thread_pool.h"
#include "xla/stream_executor/stream.h"

namespace stream_executor::host {

class HostStream : public Stream {
 public:
  // `limits` and `pool` belong to the executor and must outlive the stream.
  HostStream(const DeviceLimits& limits, HostThreadPool& pool);
  // Waits for the queued work, then stops the worker thread.
  ~HostStream() override;

  HostStream(const HostStream&) = delete;
  HostStream& operator=(const HostStream&) = delete;

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
  // Runs HostGemm (host_gemm.h) on the worker, spread over the launch pool
  // like a launch; the rules of Stream::Gemm (InvalidArgument at enqueue
  // for a bad config or a buffer smaller than its extents).
  absl::Status Gemm(const BlasGemmConfig& config, const DeviceMemoryBase& lhs,
                    const DeviceMemoryBase& rhs, const DeviceMemoryBase& out) override;
  // Runs the HostFftPlan (host_fft.h) on the worker, spread over the
  // launch pool; the rules of Stream::Fft (InvalidArgument at enqueue for
  // buffers CheckFftBuffers refuses or a plan not made by a HostExecutor).
  absl::Status Fft(const FftPlan& plan, const DeviceMemoryBase& input,
                   const DeviceMemoryBase& output, const DeviceMemoryBase& workspace) override;
  absl::Status RecordEvent(Event* event) override;
  absl::Status WaitFor(Event* event) override;
  absl::Status DoHostCallback(
      absl::AnyInvocable<absl::Status() &&> callback) override;
  absl::Status BlockHostUntilDone() override;

 private:
  using Work = absl::AnyInvocable<absl::Status() &&>;
  // One queued operation. A tagged record rather than a closure, so that
  // queueing the common operations (copies, fills, launches, events) never
  // allocates: the queue's slots are reused, kernel arguments fit inline.
  struct Operation {
    enum class Kind {
      kCopy,         // memmove(dst, src, size)
      kZero,         // memset(dst, 0, size)
      kFill32,       // size / 4 words of `pattern` at dst
      kLaunch,       // RunHostKernel(function, buffers, blocks)
      kRecordEvent,  // completes `event`'s `generation` with the status
      kWaitEvent,    // waits for `event`'s `generation`
      kCallback,     // runs `work`
      kFail,         // fails with `error` (already annotated)
    };
    Kind kind = Kind::kCallback;
    absl::string_view name;  // static text; prefixes the error `work` returns
    void* dst = nullptr;
    const void* src = nullptr;
    uint64_t size = 0;
    uint32_t pattern = 0;
    XlaHostKernelFn function = nullptr;
    int64_t blocks = 0;
    // The kernel's arguments: the first kInlineArgs inline, all of them in
    // `more_buffers` when there are more.
    static constexpr int64_t kInlineArgs = 8;
    std::array<void*, kInlineArgs> inline_buffers{};
    std::vector<void*> more_buffers;
    int64_t num_buffers = 0;
    // Keeps a launched kernel's code loaded until the launch has run.
    std::shared_ptr<const LoadedLibrary> library;
    HostEvent* event = nullptr;
    int64_t generation = 0;
    // Copies, fills, FFTs and launches of more than kInlineArgs arguments:
    // may run on the enqueuing thread when the stream is idle (see above).
    // Other launches and GEMMs try that before they build an Operation
    // (RunInlineLocked), so a queued one never does.
    bool may_run_inline = false;
    Work work;
    absl::Status error;
  };

  // Queues `operation`; returns the known error instead when there is one.
  absl::Status Enqueue(Operation operation);
  // With mu_ held through `lock` and no known error: when the stream is idle
  // (nothing queued or running) and the caller is not the worker, runs `run`
  // on the calling thread with mu_ released, records its error (prefixed
  // with `name`) as the stream's, and returns the stream's status
  // afterwards, lock held again. Otherwise returns nullopt, runs nothing
  // and keeps mu_ held, for the caller to queue the operation. Launches and
  // GEMMs call it before building an Operation, so an idle stream runs them
  // without one (no record to fill, move and destroy, no closure).
  std::optional<absl::Status> RunInlineLocked(std::unique_lock<std::mutex>& lock,
                                              absl::string_view name,
                                              absl::FunctionRef<absl::Status()> run);
  // Queues an operation that fails with `error` in stream order and returns
  // the error as it will be reported.
  absl::Status EnqueueError(absl::string_view name, absl::Status error);
  // The following need mu_ held.
  void PushLocked(Operation operation);
  // The error later enqueues report: the sticky error, else a queued one.
  absl::Status KnownErrorLocked() const;
  void WaitIdleLocked(std::unique_lock<std::mutex>& lock);
  // Runs `operation` on the worker; `status` is the stream's status when it
  // was taken off the queue (what a recorded event reports).
  absl::Status Run(Operation& operation, const absl::Status& status);

  void WorkerLoop();

  const DeviceLimits& limits_;
  HostThreadPool& pool_;

  std::mutex mu_;
  std::condition_variable work_available_;  // queue_ non-empty or shutdown
  std::condition_variable idle_;            // pending_ == 0
  // Guarded by mu_:
  // Queued operations, in order. The worker swaps the whole vector with
  // its (empty) batch_ and runs the batch without the lock; both keep their
  // capacity, so a warm stream queues without allocating.
  std::vector<Operation> queue_;
  bool worker_waiting_ = false;  // the worker sleeps on work_available_
  bool running_inline_ = false;  // an enqueuing thread runs an operation
  int64_t pending_ = 0;          // queued or running
  absl::Status status_;          // the first error, sticky
  absl::Status queued_error_;    // an enqueue-time error not yet reached
  // status_ is written under mu_ by the worker, or by an inline run while
  // the worker runs no batch (pending_ was 0 and running_inline_ keeps it
  // from taking one), so the worker reads it without the lock.
  bool shutting_down_ = false;
  std::vector<Operation> batch_;  // the worker's own
  std::thread worker_;
};

}  // namespace stream_executor::host

#endif  // XLA_STREAM_EXECUTOR_HOST_HOST_STREAM_H_
