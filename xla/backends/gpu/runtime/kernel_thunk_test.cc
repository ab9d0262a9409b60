// Round trip and golden of KernelThunk, and what its FromProto rejects.
#include "xla/backends/gpu/runtime/kernel_thunk.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"

namespace xla::gpu {
namespace {

using ::xla::gpu::testing::DeserializeError;

TEST(KernelThunk, RoundTripMatchesGolden) {
  testing::ExpectRoundTripMatchesGolden("kernel_thunk.textproto");
}

TEST(KernelThunk, RejectsSlicePastAllocation) {
  const std::string error = DeserializeError(R"pb(kernel { args { allocation: 0 } args { allocation: 1 offset: 32 size: 64 } launch_dimensions { grid_x: 1 grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 block_z: 1 } })pb");
  EXPECT_TRUE(absl::StrContains(error, "thunk.kernel.args[1]: slice offset 32 + size 64 exceeds allocation 1 of 64 bytes")) << error;
}

TEST(KernelThunk, RejectsUnknownKernel) {
  const std::string error = DeserializeError(R"pb(kernel { kernel_index: 9 launch_dimensions { grid_x: 1 grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 block_z: 1 } })pb");
  EXPECT_TRUE(absl::StrContains(error, "thunk.kernel.kernel_index: kernel index 9 is outside [0, 2)")) << error;
}

TEST(KernelThunk, RejectsZeroGrid) {
  const std::string error = DeserializeError(R"pb(kernel { launch_dimensions { grid_x: 0 grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 block_z: 1 } })pb");
  EXPECT_TRUE(absl::StrContains(error, "thunk.kernel.launch_dimensions: ")) << error;
}

TEST(KernelThunk, RejectsWrongArgCountForRegisteredKernel) {
  const std::string error = DeserializeError(R"pb(kernel { kernel_index: 1 launch_dimensions { grid_x: 1 grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 block_z: 1 } })pb");
  EXPECT_TRUE(absl::StrContains(error, "registered kernel 'xla.runtime.iota_s32' takes 1 arguments, got 0")) << error;
}

}  // namespace
}  // namespace xla::gpu
