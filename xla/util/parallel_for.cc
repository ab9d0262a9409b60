#include "xla/util/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <system_error>
#include <thread>
#include <vector>

namespace xla {

void ParallelForEach(int64_t count, int threads, absl::FunctionRef<void(int64_t)> fn) {
  if (count <= 0) return;
  std::atomic<int64_t> next{0};
  auto work = [&]() {
    for (int64_t i = next++; i < count; i = next++) fn(i);
  };
  const int64_t helpers = std::min<int64_t>(std::max(threads, 1), count) - 1;
  std::vector<std::thread> pool;
  for (int64_t t = 0; t < helpers; ++t) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // the running threads take its share
    }
  }
  work();
  for (std::thread& t : pool) t.join();
}

int ThreadCount(int requested, int max_default) {
  if (requested > 0) return requested;
  const int hardware = static_cast<int>(std::thread::hardware_concurrency());
  return std::max(1, std::min(hardware, max_default));
}

}  // namespace xla
