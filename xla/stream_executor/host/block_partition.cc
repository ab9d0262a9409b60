#include "xla/stream_executor/host/block_partition.h"

#include <algorithm>

namespace stream_executor::host {

int64_t NumBlockRanges(int64_t total_blocks, int num_workers) {
  if (total_blocks <= 0) return 0;
  const int64_t workers = std::max<int64_t>(num_workers, 1);
  return std::min(total_blocks, workers * kRangesPerWorker);
}

BlockRange BlockRangeAt(int64_t total_blocks, int64_t num_ranges, int64_t i) {
  const int64_t base = total_blocks / num_ranges;
  const int64_t extra = total_blocks % num_ranges;  // first `extra` get +1
  const int64_t begin = i * base + std::min(i, extra);
  return BlockRange{begin, begin + base + (i < extra ? 1 : 0)};
}

std::vector<BlockRange> PartitionBlocks(int64_t total_blocks, int num_workers) {
  const int64_t num_ranges = NumBlockRanges(total_blocks, num_workers);
  std::vector<BlockRange> ranges;
  ranges.reserve(num_ranges);
  for (int64_t i = 0; i < num_ranges; ++i) {
    ranges.push_back(BlockRangeAt(total_blocks, num_ranges, i));
  }
  return ranges;
}

}  // namespace stream_executor::host
