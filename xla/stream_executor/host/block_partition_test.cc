#include "xla/stream_executor/host/block_partition.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace stream_executor::host {
namespace {

// Ranges are contiguous, in order, non-empty, and cover [0, total).
void ExpectExactCover(const std::vector<BlockRange>& ranges, int64_t total) {
  ASSERT_FALSE(ranges.empty());
  EXPECT_EQ(ranges.front().begin, 0);
  EXPECT_EQ(ranges.back().end, total);
  int64_t smallest = total, largest = 0;
  for (size_t i = 0; i < ranges.size(); ++i) {
    EXPECT_LT(ranges[i].begin, ranges[i].end) << i;
    if (i > 0) {
      EXPECT_EQ(ranges[i].begin, ranges[i - 1].end) << i;
    }
    smallest = std::min(smallest, ranges[i].end - ranges[i].begin);
    largest = std::max(largest, ranges[i].end - ranges[i].begin);
  }
  EXPECT_LE(largest - smallest, 1);
}

TEST(BlockPartitionTest, SmallGridsGetOneRangePerBlock) {
  std::vector<BlockRange> ranges = PartitionBlocks(3, 8);
  ASSERT_EQ(ranges.size(), 3u);
  ExpectExactCover(ranges, 3);
  EXPECT_EQ(PartitionBlocks(1, 8).size(), 1u);
}

TEST(BlockPartitionTest, GrainGrowsWithTheWork) {
  for (int64_t total : std::vector<int64_t>{33, 257, 1000, 1001, 1 << 20,
                                            (int64_t{1} << 40) + 7}) {
    std::vector<BlockRange> ranges = PartitionBlocks(total, 4);
    EXPECT_EQ(ranges.size(), static_cast<size_t>(4 * kRangesPerWorker)) << total;
    ExpectExactCover(ranges, total);
  }
  EXPECT_EQ(PartitionBlocks(1000, 4).front().end, 63);  // 1000 / 16, +1 spill
}

TEST(BlockPartitionTest, DegenerateInputs) {
  EXPECT_TRUE(PartitionBlocks(0, 4).empty());
  EXPECT_TRUE(PartitionBlocks(-5, 4).empty());
  std::vector<BlockRange> ranges = PartitionBlocks(100, 0);
  EXPECT_EQ(ranges.size(), static_cast<size_t>(kRangesPerWorker));
  ExpectExactCover(ranges, 100);
}

}  // namespace
}  // namespace stream_executor::host
