#include "xla/stream_executor/host/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>

namespace stream_executor::host {

void ParallelFor(HostThreadPool& pool, int64_t units, absl::FunctionRef<void(int64_t)> run) {
  if (units <= 0) return;
  if (units == 1) {
    run(0);
    return;
  }
  struct Shared {
    std::atomic<int64_t> next{0};
    std::mutex mu;
    std::condition_variable all_done;
    int64_t finished = 0;  // guarded by mu
  };
  auto shared = std::make_shared<Shared>();
  const int64_t total = units;
  // `run` lives on the caller's stack; a helper only calls it for a claimed
  // unit, and the caller waits for every claimed unit.
  auto work = [shared, total, run]() {
    int64_t done = 0;
    for (int64_t i = shared->next.fetch_add(1); i < total; i = shared->next.fetch_add(1)) {
      run(i);
      ++done;
    }
    if (done == 0) return;
    std::lock_guard<std::mutex> lock(shared->mu);
    shared->finished += done;
    if (shared->finished == total) shared->all_done.notify_all();
  };
  const int64_t helpers = std::min<int64_t>(units - 1, pool.num_threads());
  for (int64_t h = 0; h < helpers; ++h) pool.Schedule(work);
  work();
  std::unique_lock<std::mutex> lock(shared->mu);
  shared->all_done.wait(lock, [&] { return shared->finished == total; });
}

}  // namespace stream_executor::host
