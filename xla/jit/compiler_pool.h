// A bounded pool of compiler threads with a cap on the tasks in flight
// (queued plus running), for asynchronous JIT compilation.
//
// TrySchedule never blocks and never queues past the cap: above it the
// caller is told no, and takes its fallback path instead.
//
// Destruction: queued tasks that have not started are cancelled (called
// with cancelled = true, on the destroying thread, in FIFO order); tasks
// already running are waited for. A task must therefore hold, by value or
// shared ownership, everything it touches.
//
// Thread-safety: all methods are thread-safe. A task must not call back
// into its own pool's destructor.
#ifndef XLA_JIT_COMPILER_POOL_H_
#define XLA_JIT_COMPILER_POOL_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace xla::jit {

struct CompilerPoolOptions {
  // Worker threads; at least 1.
  int num_threads = 2;
  // Tasks queued or running at once; at least 1.
  int max_in_flight = 4;
};

class CompilerPool {
 public:
  // Runs the task; `cancelled` is true when the pool is destroyed before the
  // task started.
  using Task = std::function<void(bool cancelled)>;

  explicit CompilerPool(CompilerPoolOptions options);
  ~CompilerPool();
  CompilerPool(const CompilerPool&) = delete;
  CompilerPool& operator=(const CompilerPool&) = delete;

  // Queues `task` and returns true, or returns false (dropping the task
  // without calling it) when max_in_flight tasks are already queued or
  // running.
  bool TrySchedule(Task task);

  // Tasks queued or running now.
  int in_flight() const;
  // The most tasks ever running at the same moment.
  int peak_running() const;
  // The most tasks ever in flight at the same moment.
  int peak_in_flight() const;
  const CompilerPoolOptions& options() const { return options_; }

 private:
  void WorkerLoop();

  const CompilerPoolOptions options_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Task> queue_;
  int running_ = 0;
  int peak_running_ = 0;
  int peak_in_flight_ = 0;
  bool shutting_down_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace xla::jit

#endif  // XLA_JIT_COMPILER_POOL_H_
