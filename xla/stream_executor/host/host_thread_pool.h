// HostThreadPool: a fixed set of worker threads that run queued tasks in FIFO
// order. The host platform runs kernel block ranges on it.
//
// Tasks must not block waiting for other tasks of the same pool (the launcher
// never does: the stream thread that launches also runs ranges itself and only
// waits for ranges that a pool thread has already started).
//
// The destructor runs every task already scheduled, then joins the threads.
//
// Thread-safety: Schedule may be called from any thread, including from a
// task. Synchronization uses std::mutex (not absl::Mutex): Debian's abseil is
// not built for ThreadSanitizer, which then cannot see absl::Mutex.
#ifndef XLA_STREAM_EXECUTOR_HOST_HOST_THREAD_POOL_H_
#define XLA_STREAM_EXECUTOR_HOST_HOST_THREAD_POOL_H_

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/functional/any_invocable.h"

namespace stream_executor::host {

class HostThreadPool {
 public:
  // Starts `num_threads` threads (at least 1).
  explicit HostThreadPool(int num_threads);
  ~HostThreadPool();

  HostThreadPool(const HostThreadPool&) = delete;
  HostThreadPool& operator=(const HostThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(threads_.size()); }

  // Queues `task` to run on some pool thread.
  void Schedule(absl::AnyInvocable<void() &&> task);

 private:
  void WorkerLoop();

  std::mutex mu_;
  std::condition_variable work_available_;
  std::deque<absl::AnyInvocable<void() &&>> tasks_;  // guarded by mu_
  bool shutting_down_ = false;                        // guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace stream_executor::host

#endif  // XLA_STREAM_EXECUTOR_HOST_HOST_THREAD_POOL_H_
