#include "xla/stream_executor/launch_dimensions.h"

#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace stream_executor {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

DeviceLimits TestLimits() {
  DeviceLimits limits;
  limits.max_threads_per_block = 1024;
  limits.max_block_dims = {1024, 1024, 64};
  limits.max_grid_dims = {2147483647, 65535, 65535};
  limits.shared_memory_per_block = 48 * 1024;
  limits.warp_size = 32;
  limits.compute_capability = "9.0";
  return limits;
}

TEST(LaunchDimensionsTest, AcceptsDimensionsAtTheLimits) {
  LaunchDimensions dims;
  dims.grid = {2147483647, 65535, 1};
  dims.block = {32, 32, 1};
  dims.shared_memory_bytes = 48 * 1024;
  EXPECT_TRUE(ValidateLaunchDimensions(dims, TestLimits()).ok());
  EXPECT_EQ(dims.num_blocks(), int64_t{2147483647} * 65535);
  EXPECT_EQ(dims.threads_per_block(), 1024);
  EXPECT_EQ(dims.ToString(),
            "grid={2147483647,65535,1} block={32,32,1} shared_memory_bytes=49152");
}

struct BadCase {
  LaunchDimensions dims;
  const char* message_part1;
  const char* message_part2;
};

TEST(LaunchDimensionsTest, RejectsEachBrokenLimitByName) {
  std::vector<BadCase> cases;
  auto add = [&cases](const char* a, const char* b) {
    cases.push_back({LaunchDimensions(), a, b});
    return &cases.back().dims;
  };
  add("grid.x = 0", "at least 1")->grid.x = 0;
  add("grid.x = 2147483648", "2147483647")->grid.x = 2147483648;
  add("grid.y = 65536", "65535 (max blocks per grid in y)")->grid.y = 65536;
  add("grid.z = -3", "at least 1")->grid.z = -3;
  add("block.x = 1025", "1024")->block.x = 1025;
  add("block.z = 65", "64 (max threads per block in z)")->block.z = 65;
  add("block = {64,32,1}", "1024 (max threads per block)")->block = {64, 32, 1};
  add("shared_memory_bytes = 49153", "[0, 49152]")->shared_memory_bytes = 49153;
  add("shared_memory_bytes = -1", "shared memory")->shared_memory_bytes = -1;
  for (const BadCase& c : cases) {
    absl::Status status = ValidateLaunchDimensions(c.dims, TestLimits());
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument)
        << c.dims.ToString();
    EXPECT_THAT(status.message(),
                AllOf(HasSubstr(c.message_part1), HasSubstr(c.message_part2)));
  }
}

TEST(LaunchDimensionsTest, RejectsGridsWhoseBlockCountOverflows) {
  DeviceLimits limits = TestLimits();
  const int64_t big = std::numeric_limits<int64_t>::max() / 2;
  limits.max_grid_dims = {big, big, big};
  LaunchDimensions dims;
  dims.grid = {big, 4, 1};
  absl::Status status = ValidateLaunchDimensions(dims, limits);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("int64"));
}

// Extents past 2^31 are checked as carefully as small ones: accepted
// within the limits, refused when the block count overflows even though
// each extent is in range.
TEST(LaunchDimensionsTest, LargeExtentsWithinLargeLimits) {
  DeviceLimits limits = TestLimits();
  const int64_t big = std::numeric_limits<int64_t>::max() / 2;
  limits.max_grid_dims = {big, big, big};
  LaunchDimensions dims;
  dims.grid = {int64_t{1} << 40, 3, 5};
  EXPECT_TRUE(ValidateLaunchDimensions(dims, limits).ok());
  dims.grid = {int64_t{1} << 31, int64_t{1} << 31, int64_t{1} << 31};
  absl::Status status = ValidateLaunchDimensions(dims, limits);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("int64"));
}

TEST(DeviceLimitsTest, ToStringNamesEveryLimit) {
  EXPECT_EQ(TestLimits().ToString(),
            "compute_capability=9.0 max_threads_per_block=1024 "
            "max_block_dims={1024,1024,64} max_grid_dims={2147483647,65535,65535} "
            "shared_memory_per_block=49152 warp_size=32 memory_size=0");
}

}  // namespace
}  // namespace stream_executor
