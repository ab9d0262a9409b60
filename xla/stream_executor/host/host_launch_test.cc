// RunHostKernel: every block runs exactly once, and launches of fewer than
// kMinSharedBlocks blocks never leave the calling thread.
#include "xla/stream_executor/host/host_launch.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "xla/stream_executor/host/host_thread_pool.h"

namespace stream_executor::host {
namespace {

// What the recording kernel writes: runs per block, and the threads that
// ran any block.
struct Record {
  std::vector<std::atomic<int>> runs;
  std::mutex mu;
  std::set<std::thread::id> threads;
  explicit Record(int64_t blocks) : runs(blocks) {}
};

// A kernel whose buffers[0] is a Record; it spins a little per block so a
// shared launch really reaches the pool.
void RecordingKernel(void* const* buffers, int64_t num_buffers, int64_t begin, int64_t end) {
  Record& record = *static_cast<Record*>(buffers[0]);
  for (int64_t b = begin; b < end; ++b) {
    record.runs[b].fetch_add(1);
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
    while (std::chrono::steady_clock::now() < until) {
    }
  }
  std::lock_guard<std::mutex> lock(record.mu);
  record.threads.insert(std::this_thread::get_id());
}

void ExpectEachBlockOnce(const Record& record) {
  for (size_t b = 0; b < record.runs.size(); ++b) EXPECT_EQ(record.runs[b].load(), 1) << b;
}

TEST(RunHostKernel, FewBlocksStayOnTheCallingThread) {
  HostThreadPool pool(2);
  for (int64_t blocks = 1; blocks < kMinSharedBlocks; ++blocks) {
    SCOPED_TRACE(blocks);
    Record record(blocks);
    void* buffers[] = {&record};
    RunHostKernel(&RecordingKernel, buffers, blocks, pool);
    ExpectEachBlockOnce(record);
    EXPECT_EQ(record.threads, std::set<std::thread::id>{std::this_thread::get_id()});
  }
}

TEST(RunHostKernel, ManyBlocksRunOnceEachAndUseThePool) {
  HostThreadPool pool(2);
  bool pool_helped = false;
  // 64 blocks of 200 us: a pool thread starts within some launch of ten.
  for (int attempt = 0; attempt < 10 && !pool_helped; ++attempt) {
    Record record(64);
    void* buffers[] = {&record};
    RunHostKernel(&RecordingKernel, buffers, 64, pool);
    ExpectEachBlockOnce(record);
    pool_helped = record.threads.size() > 1;
  }
  EXPECT_TRUE(pool_helped);
}

TEST(RunHostKernel, NoBlocksRunsNothing) {
  HostThreadPool pool(1);
  Record record(1);
  void* buffers[] = {&record};
  RunHostKernel(&RecordingKernel, buffers, 0, pool);
  EXPECT_EQ(record.runs[0].load(), 0);
  EXPECT_TRUE(record.threads.empty());
}

}  // namespace
}  // namespace stream_executor::host
