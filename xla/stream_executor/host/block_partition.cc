#include "xla/stream_executor/host/block_partition.h"

#include <algorithm>

namespace stream_executor::host {

std::vector<BlockRange> PartitionBlocks(int64_t total_blocks, int num_workers) {
  std::vector<BlockRange> ranges;
  if (total_blocks <= 0) return ranges;
  const int64_t workers = std::max<int64_t>(num_workers, 1);
  const int64_t num_ranges = std::min(total_blocks, workers * kRangesPerWorker);
  const int64_t base = total_blocks / num_ranges;
  const int64_t extra = total_blocks % num_ranges;  // first `extra` get +1
  ranges.reserve(num_ranges);
  int64_t begin = 0;
  for (int64_t i = 0; i < num_ranges; ++i) {
    const int64_t end = begin + base + (i < extra ? 1 : 0);
    ranges.push_back(BlockRange{begin, end});
    begin = end;
  }
  return ranges;
}

}  // namespace stream_executor::host
