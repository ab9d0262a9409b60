#include "xla/stream_executor/host/host_launch.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "xla/stream_executor/host/block_partition.h"

namespace stream_executor::host {
namespace {

// Shared by the launching thread and its pool helpers. Helpers hold it by
// shared_ptr, so one that starts after the launch finished finds no range
// left and touches nothing else.
struct LaunchState {
  XlaHostKernelFn function = nullptr;
  absl::InlinedVector<void*, 8> buffers;
  int64_t total_blocks = 0;
  int64_t num_ranges = 0;
  std::atomic<int64_t> next_range{0};
  std::mutex mu;
  std::condition_variable all_done;
  int64_t ranges_done = 0;  // guarded by mu

  // Runs ranges until none is left.
  void RunRanges() {
    int64_t ran = 0;
    for (int64_t i = next_range.fetch_add(1); i < num_ranges;
         i = next_range.fetch_add(1)) {
      const BlockRange range = BlockRangeAt(total_blocks, num_ranges, i);
      function(buffers.data(), static_cast<int64_t>(buffers.size()),
               range.begin, range.end);
      ++ran;
    }
    if (ran == 0) return;
    std::lock_guard<std::mutex> lock(mu);
    ranges_done += ran;
    if (ranges_done == num_ranges) all_done.notify_all();
  }

  void AwaitAllRanges() {
    std::unique_lock<std::mutex> lock(mu);
    all_done.wait(lock, [this] { return ranges_done == num_ranges; });
  }
};

}  // namespace

void RunHostKernel(XlaHostKernelFn function, absl::Span<void* const> buffers,
                   int64_t total_blocks, HostThreadPool& pool) {
  const int64_t num_ranges =
      NumBlockRanges(total_blocks, pool.num_threads() + 1);
  if (num_ranges == 0) return;
  if (num_ranges == 1 || total_blocks < kMinSharedBlocks) {  // run it here, touch no pool
    function(buffers.data(), static_cast<int64_t>(buffers.size()), 0,
             total_blocks);
    return;
  }
  auto state = std::make_shared<LaunchState>();
  state->function = function;
  state->buffers.assign(buffers.begin(), buffers.end());
  state->total_blocks = total_blocks;
  state->num_ranges = num_ranges;
  const int64_t helpers =
      std::min<int64_t>(num_ranges - 1, pool.num_threads());
  for (int64_t i = 0; i < helpers; ++i) {
    pool.Schedule([state] { state->RunRanges(); });
  }
  state->RunRanges();
  state->AwaitAllRanges();
}

}  // namespace stream_executor::host
