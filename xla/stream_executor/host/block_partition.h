// PartitionBlocks: how a host launch splits its linear block indices into
// contiguous ranges for the thread pool.
//
// The grain (blocks per range) scales with the work: a launch is cut into at
// most kRangesPerWorker ranges per worker, so small grids make few calls and
// large grids make ranges of many blocks; every range has at least one block.
// Ranges are returned in order, cover [0, total_blocks) exactly once and
// differ in size by at most one block.
//
// Thread-safety: a pure function.
#ifndef XLA_STREAM_EXECUTOR_HOST_BLOCK_PARTITION_H_
#define XLA_STREAM_EXECUTOR_HOST_BLOCK_PARTITION_H_

#include <cstdint>
#include <vector>

namespace stream_executor::host {

struct BlockRange {
  int64_t begin = 0;
  int64_t end = 0;  // exclusive
};

// Ranges per worker: enough to balance uneven blocks without paying a call
// per block.
inline constexpr int64_t kRangesPerWorker = 4;

// Splits [0, total_blocks) for `num_workers` workers (values below 1 count as
// 1). Returns no ranges when total_blocks <= 0.
std::vector<BlockRange> PartitionBlocks(int64_t total_blocks, int num_workers);

// The same partition without building it (no allocation): how many ranges
// PartitionBlocks returns, and range `i` of them (0 <= i < num_ranges,
// num_ranges = NumBlockRanges(total_blocks, ...)).
int64_t NumBlockRanges(int64_t total_blocks, int num_workers);
BlockRange BlockRangeAt(int64_t total_blocks, int64_t num_ranges, int64_t i);

}  // namespace stream_executor::host

#endif  // XLA_STREAM_EXECUTOR_HOST_BLOCK_PARTITION_H_
