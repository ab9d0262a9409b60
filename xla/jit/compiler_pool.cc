#include "xla/jit/compiler_pool.h"

#include <algorithm>
#include <utility>

namespace xla::jit {

CompilerPool::CompilerPool(CompilerPoolOptions options) : options_(options) {
  int n = std::max(1, options_.num_threads);
  threads_.reserve(n);
  for (int i = 0; i < n; ++i) threads_.emplace_back(&CompilerPool::WorkerLoop, this);
}

CompilerPool::~CompilerPool() {
  std::deque<Task> cancelled;
  {
    std::lock_guard<std::mutex> lock(mu_);
    shutting_down_ = true;
    cancelled.swap(queue_);
  }
  cv_.notify_all();
  for (Task& task : cancelled) task(/*cancelled=*/true);
  for (std::thread& t : threads_) t.join();
}

bool CompilerPool::TrySchedule(Task task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    int in_flight = static_cast<int>(queue_.size()) + running_;
    if (shutting_down_ || in_flight >= std::max(1, options_.max_in_flight)) return false;
    queue_.push_back(std::move(task));
    peak_in_flight_ = std::max(peak_in_flight_, in_flight + 1);
  }
  cv_.notify_one();
  return true;
}

void CompilerPool::WorkerLoop() {
  for (;;) {
    Task task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return shutting_down_ || !queue_.empty(); });
      if (queue_.empty()) return;  // shutting down, nothing left to run
      task = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
      peak_running_ = std::max(peak_running_, running_);
    }
    task(/*cancelled=*/false);
    task = nullptr;  // release the task's state before counting it done
    {
      std::lock_guard<std::mutex> lock(mu_);
      --running_;
    }
  }
}

int CompilerPool::in_flight() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(queue_.size()) + running_;
}

int CompilerPool::peak_running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return peak_running_;
}

int CompilerPool::peak_in_flight() const {
  std::lock_guard<std::mutex> lock(mu_);
  return peak_in_flight_;
}

}  // namespace xla::jit
