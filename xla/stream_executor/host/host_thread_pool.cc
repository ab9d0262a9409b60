#include "xla/stream_executor/host/host_thread_pool.h"

#include <algorithm>
#include <utility>

namespace stream_executor::host {

HostThreadPool::HostThreadPool(int num_threads) {
  num_threads = std::max(num_threads, 1);
  threads_.reserve(num_threads);
  for (int i = 0; i < num_threads; ++i) {
    threads_.emplace_back([this] { WorkerLoop(); });
  }
}

HostThreadPool::~HostThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    shutting_down_ = true;
  }
  work_available_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

void HostThreadPool::Schedule(absl::AnyInvocable<void() &&> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    tasks_.push_back(std::move(task));
  }
  work_available_.notify_one();
}

void HostThreadPool::WorkerLoop() {
  while (true) {
    absl::AnyInvocable<void() &&> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      work_available_.wait(lock,
                           [this] { return shutting_down_ || !tasks_.empty(); });
      // Drain the queue before exiting so scheduled work always runs.
      if (tasks_.empty()) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    std::move(task)();
  }
}

}  // namespace stream_executor::host
