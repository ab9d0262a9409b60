#include "xla/jit/compiler_pool.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace xla::jit {
namespace {

// A latch the tasks wait on, plus a record of what each task saw.
struct Shared {
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;
  int started = 0;
  std::vector<int> ran;        // task ids run normally, in order
  std::vector<int> cancelled;  // task ids cancelled

  void Open() {
    {
      std::lock_guard<std::mutex> lock(mu);
      open = true;
    }
    cv.notify_all();
  }
  bool WaitStarted(int n) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(10), [this, n] { return started >= n; });
  }
};

// The task: explicit state, no captures.
struct BlockingTask {
  std::shared_ptr<Shared> shared;
  int id;
  void operator()(bool was_cancelled) const {
    std::unique_lock<std::mutex> lock(shared->mu);
    if (was_cancelled) {
      shared->cancelled.push_back(id);
      return;
    }
    ++shared->started;
    shared->cv.notify_all();
    shared->cv.wait(lock, [this] { return shared->open; });
    shared->ran.push_back(id);
  }
};

TEST(CompilerPool, RejectsAboveTheInFlightCap) {
  auto shared = std::make_shared<Shared>();
  CompilerPool pool({/*num_threads=*/1, /*max_in_flight=*/3});
  EXPECT_TRUE(pool.TrySchedule(BlockingTask{shared, 0}));
  EXPECT_TRUE(pool.TrySchedule(BlockingTask{shared, 1}));
  EXPECT_TRUE(pool.TrySchedule(BlockingTask{shared, 2}));
  EXPECT_FALSE(pool.TrySchedule(BlockingTask{shared, 3}));  // 1 running + 2 queued
  EXPECT_EQ(pool.in_flight(), 3);
  shared->Open();
  ASSERT_TRUE(shared->WaitStarted(3));
  for (int i = 0; i < 1000 && pool.in_flight() > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_EQ(pool.in_flight(), 0);
  EXPECT_TRUE(pool.TrySchedule(BlockingTask{shared, 4}));  // room again
  EXPECT_EQ(pool.peak_in_flight(), 3);
}

TEST(CompilerPool, RunsAtMostNumThreadsAtOnce) {
  auto shared = std::make_shared<Shared>();
  {
    CompilerPool pool({/*num_threads=*/2, /*max_in_flight=*/6});
    for (int i = 0; i < 6; ++i) EXPECT_TRUE(pool.TrySchedule(BlockingTask{shared, i}));
    ASSERT_TRUE(shared->WaitStarted(2));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    {
      std::lock_guard<std::mutex> lock(shared->mu);
      EXPECT_EQ(shared->started, 2);  // the other four wait in the queue
    }
    EXPECT_EQ(pool.peak_running(), 2);
    shared->Open();
    ASSERT_TRUE(shared->WaitStarted(6));
  }
  EXPECT_EQ(shared->ran.size(), 6u);
  EXPECT_TRUE(shared->cancelled.empty());
}

TEST(CompilerPool, DestructionCancelsQueuedAndWaitsForRunning) {
  auto shared = std::make_shared<Shared>();
  auto pool = std::make_unique<CompilerPool>(CompilerPoolOptions{1, 4});
  ASSERT_TRUE(pool->TrySchedule(BlockingTask{shared, 0}));
  ASSERT_TRUE(pool->TrySchedule(BlockingTask{shared, 1}));
  ASSERT_TRUE(pool->TrySchedule(BlockingTask{shared, 2}));
  ASSERT_TRUE(shared->WaitStarted(1));
  std::atomic<bool> destroyed{false};
  std::thread destroyer([&pool, &destroyed] {
    pool.reset();
    destroyed = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(destroyed.load());  // task 0 still runs
  shared->Open();
  destroyer.join();
  EXPECT_EQ(shared->ran, std::vector<int>({0}));
  EXPECT_EQ(shared->cancelled, std::vector<int>({1, 2}));
}

}  // namespace
}  // namespace xla::jit
