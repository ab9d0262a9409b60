#include "xla/stream_executor/host/host_launch.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <utility>

#include "xla/stream_executor/host/block_partition.h"

namespace stream_executor::host {
namespace {

// Shared by the launching thread and its pool helpers. Helpers hold it by
// shared_ptr, so one that starts after the launch finished finds no range
// left and touches nothing else.
struct LaunchState {
  XlaHostKernelFn function = nullptr;
  std::vector<void*> buffers;
  std::vector<BlockRange> ranges;
  std::atomic<size_t> next_range{0};
  std::mutex mu;
  std::condition_variable all_done;
  size_t ranges_done = 0;  // guarded by mu

  // Runs ranges until none is left.
  void RunRanges() {
    size_t ran = 0;
    for (size_t i = next_range.fetch_add(1); i < ranges.size();
         i = next_range.fetch_add(1)) {
      function(buffers.data(), static_cast<int64_t>(buffers.size()),
               ranges[i].begin, ranges[i].end);
      ++ran;
    }
    if (ran == 0) return;
    std::lock_guard<std::mutex> lock(mu);
    ranges_done += ran;
    if (ranges_done == ranges.size()) all_done.notify_all();
  }

  void AwaitAllRanges() {
    std::unique_lock<std::mutex> lock(mu);
    all_done.wait(lock, [this] { return ranges_done == ranges.size(); });
  }
};

}  // namespace

void RunHostKernel(XlaHostKernelFn function, std::vector<void*> buffers,
                   int64_t total_blocks, HostThreadPool& pool) {
  auto state = std::make_shared<LaunchState>();
  state->function = function;
  state->buffers = std::move(buffers);
  state->ranges = PartitionBlocks(total_blocks, pool.num_threads() + 1);
  if (state->ranges.empty()) return;
  const size_t helpers = std::min<size_t>(state->ranges.size() - 1,
                                          static_cast<size_t>(pool.num_threads()));
  for (size_t i = 0; i < helpers; ++i) {
    pool.Schedule([state] { state->RunRanges(); });
  }
  state->RunRanges();
  state->AwaitAllRanges();
}

}  // namespace stream_executor::host
