#include "xla/backends/gpu/codegen/nvptx/launch_dimensions_choice.h"

#include "gtest/gtest.h"

namespace xla::gpu {
namespace {

LaunchChoice Choose(LaunchProblem p, const char* target = "sm_90") {
  absl::StatusOr<LaunchChoice> c = ChooseLaunchDimensions(p, *FindNvptxTarget(target));
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : LaunchChoice{};
}

TEST(LaunchDimensionsChoice, LoopIsThreadIndexedThenGridStride) {
  LaunchProblem p;
  p.elements = 37 * 129;  // 4773: 19 blocks of 256, odd count -> scalar
  p.vectorizable = true;
  LaunchChoice c = Choose(p);
  EXPECT_EQ(c.threads_per_block, 256);
  EXPECT_EQ(c.blocks, 19);
  EXPECT_EQ(c.vector_width, 1);
  EXPECT_FALSE(c.grid_stride);
  p.elements = 4000;  // divisible by 4: 1000 vectors -> 4 blocks
  c = Choose(p);
  EXPECT_EQ(c.vector_width, 4);
  EXPECT_EQ(c.blocks, 4);
  p.vectorizable = false;
  EXPECT_EQ(Choose(p).vector_width, 1);
  EXPECT_EQ(Choose(p).blocks, 16);
  // 2^30 elements would need 4M blocks: capped at 32 waves per SM.
  p.elements = int64_t{1} << 30;
  c = Choose(p, "sm_90");
  EXPECT_TRUE(c.grid_stride);
  EXPECT_EQ(c.blocks, 32 * 132);
  EXPECT_EQ(Choose(p, "sm_80").blocks, 32 * 108);
  p.elements = 0;
  EXPECT_EQ(Choose(p).blocks, 0);
}

TEST(LaunchDimensionsChoice, RowsShortAndLong) {
  LaunchProblem p;
  p.kind = NvptxKernelKind::kRowReduction;
  p.rows = 37;
  p.row_length = 129;
  LaunchChoice c = Choose(p);
  EXPECT_TRUE(c.warp_per_row);
  EXPECT_EQ(c.rows_per_block, 8);
  EXPECT_EQ(c.threads_per_block, 256);
  EXPECT_EQ(c.blocks, 5);  // ceil(37 / 8)
  p.rows = 3;              // fewer rows than warps: 3 warps
  c = Choose(p);
  EXPECT_EQ(c.threads_per_block, 96);
  EXPECT_EQ(c.blocks, 1);
  p.kind = NvptxKernelKind::kRowNormalization;
  p.rows = 13;
  p.row_length = 1000;  // ceil(1000/4) = 250 -> 256 threads, a block per row
  c = Choose(p);
  EXPECT_FALSE(c.warp_per_row);
  EXPECT_EQ(c.threads_per_block, 256);
  EXPECT_EQ(c.blocks, 13);
  p.row_length = 100000;  // capped at 512
  EXPECT_EQ(Choose(p).threads_per_block, 512);
  p.kind = NvptxKernelKind::kWholeReduction;
  c = Choose(p);
  EXPECT_EQ(c.blocks, 1);
  EXPECT_EQ(c.threads_per_block, 1024);
}

TEST(LaunchDimensionsChoice, TilesAndSerial) {
  LaunchProblem p;
  p.kind = NvptxKernelKind::kTranspose;
  p.rows = 37;
  p.columns = 129;
  p.batch = 3;
  LaunchChoice c = Choose(p);
  EXPECT_EQ(c.tile, 32);
  EXPECT_EQ(c.threads_per_block, 256);
  EXPECT_EQ(c.blocks, 3 * 2 * 5);
  p.kind = NvptxKernelKind::kColumnReduction;
  p.row_length = 129;
  p.columns = 37;
  p.batch = 5;
  EXPECT_EQ(Choose(p).blocks, 5 * 2);
  p.kind = NvptxKernelKind::kScatterSerial;
  c = Choose(p);
  EXPECT_EQ(c.blocks, 1);
  EXPECT_EQ(c.threads_per_block, 1);
  p.kind = NvptxKernelKind::kSelectAndScatter;
  p.elements = 12;
  c = Choose(p);
  EXPECT_EQ(c.blocks, 1);
  EXPECT_EQ(c.threads_per_block, 1);
  p.elements = 0;
  EXPECT_EQ(Choose(p).blocks, 0);
}

TEST(LaunchDimensionsChoice, SortIsABlockPerRowInSharedOrGlobalMemory) {
  LaunchProblem p;
  p.kind = NvptxKernelKind::kSort;
  p.rows = 7;
  p.row_length = 1000;  // padded to 1024: 512 pairs
  p.sort_shared_bytes = 1000 * 8;
  LaunchChoice c = Choose(p);
  EXPECT_TRUE(c.sort_in_shared);
  EXPECT_EQ(c.blocks, 7);
  EXPECT_EQ(c.threads_per_block, 512);
  p.row_length = 5;  // 4 pairs: still a whole warp
  EXPECT_EQ(Choose(p).threads_per_block, 32);
  p.row_length = 6001;  // 8192 padded: 4096 pairs, capped at 1024 threads
  p.sort_shared_bytes = 48 * 1024;
  c = Choose(p);
  EXPECT_TRUE(c.sort_in_shared);
  EXPECT_EQ(c.threads_per_block, 1024);
  p.sort_shared_bytes = 48 * 1024 + 8;  // does not fit: odd-even in global memory
  c = Choose(p, "sm_80");
  EXPECT_FALSE(c.sort_in_shared);
  EXPECT_EQ(c.blocks, 7);
  EXPECT_EQ(c.threads_per_block, 1024);
  p.row_length = 99;  // global: 50 pairs -> 64 threads
  EXPECT_EQ(Choose(p).threads_per_block, 64);
  p.row_length = 0;
  EXPECT_EQ(Choose(p).blocks, 0);
  p.row_length = 3;
  p.rows = int64_t{1} << 32;
  EXPECT_FALSE(ChooseLaunchDimensions(p, *FindNvptxTarget("sm_90")).ok());
  EXPECT_EQ(NvptxKernelKindName(NvptxKernelKind::kSort), "sort");
}

TEST(LaunchDimensionsChoice, NegativeSizesAreErrors) {
  LaunchProblem p;
  p.elements = -1;
  absl::StatusOr<LaunchChoice> c = ChooseLaunchDimensions(p, *FindNvptxTarget("sm_80"));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("negative size"), std::string::npos);
  EXPECT_EQ(NvptxKernelKindName(NvptxKernelKind::kColumnReduction), "column_reduction");
}

}  // namespace
}  // namespace xla::gpu
