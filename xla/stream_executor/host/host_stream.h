// HostStream: the host platform's Stream (see stream.h for the semantics).
//
// Each stream owns one worker thread that runs its operations in order.
// Memory operations are memcpy/memset on host memory; a launch runs the
// kernel's block ranges on the executor's thread pool (the worker takes part
// and waits for the rest); a wait for an event blocks the worker.
//
// Thread-safety: all methods may be called from any thread. (std::mutex, not
// absl::Mutex: Debian's abseil is not built for ThreadSanitizer.)
#ifndef XLA_STREAM_EXECUTOR_HOST_HOST_STREAM_H_
#define XLA_STREAM_EXECUTOR_HOST_HOST_STREAM_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "xla/stream_executor/device_limits.h"
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
  absl::Status RecordEvent(Event* event) override;
  absl::Status WaitFor(Event* event) override;
  absl::Status DoHostCallback(
      absl::AnyInvocable<absl::Status() &&> callback) override;
  absl::Status BlockHostUntilDone() override;

 private:
  using Work = absl::AnyInvocable<absl::Status() &&>;
  struct Operation {
    std::string name;  // prefixes the error message when `work` fails
    Work work;
    bool runs_after_error = false;  // event records
  };

  // Queues `work`; returns the known error instead when there is one.
  absl::Status Enqueue(std::string name, Work work);
  // Queues an operation that fails with `error` in stream order and returns
  // the error as it will be reported.
  absl::Status EnqueueError(std::string name, absl::Status error);
  // The following need mu_ held.
  void PushLocked(Operation operation);
  // The error later enqueues report: the sticky error, else a queued one.
  absl::Status KnownErrorLocked() const;
  void WaitIdleLocked(std::unique_lock<std::mutex>& lock);

  void WorkerLoop();
  absl::Status CurrentStatus();

  const DeviceLimits& limits_;
  HostThreadPool& pool_;

  std::mutex mu_;
  std::condition_variable work_available_;  // queue_ non-empty or shutdown
  std::condition_variable idle_;            // pending_ == 0
  // Guarded by mu_:
  std::deque<Operation> queue_;
  int64_t pending_ = 0;          // queued or running
  absl::Status status_;          // the first error, sticky
  absl::Status queued_error_;    // an enqueue-time error not yet reached
  bool shutting_down_ = false;
  std::thread worker_;
};

}  // namespace stream_executor::host

#endif  // XLA_STREAM_EXECUTOR_HOST_HOST_STREAM_H_
