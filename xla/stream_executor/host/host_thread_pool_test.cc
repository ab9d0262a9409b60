#include "xla/stream_executor/host/host_thread_pool.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace stream_executor::host {
namespace {

TEST(HostThreadPoolTest, RunsEveryTaskBeforeDestruction) {
  std::atomic<int> sum{0};
  {
    HostThreadPool pool(4);
    EXPECT_EQ(pool.num_threads(), 4);
    for (int i = 1; i <= 1000; ++i) {
      pool.Schedule([&sum, i] { sum.fetch_add(i); });
    }
  }
  EXPECT_EQ(sum.load(), 1000 * 1001 / 2);
}

TEST(HostThreadPoolTest, UsesSeveralThreads) {
  HostThreadPool pool(3);
  std::mutex mu;
  std::condition_variable cv;
  std::set<std::thread::id> ids;
  int arrived = 0;
  // Each task waits until all three have started, so three threads must run.
  for (int i = 0; i < 3; ++i) {
    pool.Schedule([&] {
      std::unique_lock<std::mutex> lock(mu);
      ids.insert(std::this_thread::get_id());
      ++arrived;
      cv.notify_all();
      cv.wait(lock, [&arrived] { return arrived == 3; });
    });
  }
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&arrived] { return arrived == 3; });
  EXPECT_EQ(ids.size(), 3u);
}

TEST(HostThreadPoolTest, TasksMayScheduleTasks) {
  std::atomic<int> count{0};
  {
    HostThreadPool pool(2);
    pool.Schedule([&] {
      for (int i = 0; i < 10; ++i) pool.Schedule([&count] { count.fetch_add(1); });
    });
    // Destruction drains tasks scheduled by tasks as well.
  }
  EXPECT_EQ(count.load(), 10);
}

TEST(HostThreadPoolTest, AtLeastOneThread) {
  HostThreadPool pool(0);
  EXPECT_EQ(pool.num_threads(), 1);
}

}  // namespace
}  // namespace stream_executor::host
