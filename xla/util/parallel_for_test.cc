#include "xla/util/parallel_for.h"

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace xla {
namespace {

TEST(ParallelForEachTest, EveryIndexExactlyOnceForAnyThreadCount) {
  for (int threads : {0, 1, 2, 3, 7, 64}) {
    for (int64_t count : {0, 1, 5, 97}) {
      std::vector<std::atomic<int>> calls(count);
      ParallelForEach(count, threads, [&](int64_t i) { ++calls[i]; });
      for (int64_t i = 0; i < count; ++i) {
        EXPECT_EQ(calls[i].load(), 1) << "index " << i << " threads " << threads;
      }
    }
  }
}

TEST(ParallelForEachTest, UsesSeveralThreadsWhenAsked) {
  std::mutex mu;
  std::set<std::thread::id> seen;
  std::atomic<int> inside{0};
  std::atomic<int> most{0};
  ParallelForEach(16, 4, [&](int64_t) {
    const int now = ++inside;
    int prev = most.load();
    while (now > prev && !most.compare_exchange_weak(prev, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    --inside;
    std::lock_guard<std::mutex> lock(mu);
    seen.insert(std::this_thread::get_id());
  });
  EXPECT_GT(seen.size(), 1u);
  EXPECT_LE(seen.size(), 4u);
  EXPECT_GT(most.load(), 1);
  EXPECT_TRUE(seen.count(std::this_thread::get_id()) == 1) << "the caller works too";
}

TEST(ThreadCountTest, RequestedOrHardwareCapped) {
  EXPECT_EQ(ThreadCount(5, 16), 5);
  const int hardware = static_cast<int>(std::thread::hardware_concurrency());
  EXPECT_EQ(ThreadCount(0, 1), 1);
  EXPECT_EQ(ThreadCount(0, 1000), std::max(1, hardware));
}

}  // namespace
}  // namespace xla
