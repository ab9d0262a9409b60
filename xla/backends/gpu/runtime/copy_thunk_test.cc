// Round trip and golden of CopyThunk, and what its FromProto rejects.
#include "xla/backends/gpu/runtime/copy_thunk.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"

namespace xla::gpu {
namespace {

using ::xla::gpu::testing::DeserializeError;

TEST(CopyThunk, RoundTripMatchesGolden) {
  testing::ExpectRoundTripMatchesGolden("copy_thunk.textproto");
}

TEST(CopyThunk, RejectsSizeMismatch) {
  const std::string error = DeserializeError(R"pb(copy { source { allocation: 0 size: 8 } destination { allocation: 2 size: 16 } })pb");
  EXPECT_TRUE(absl::StrContains(error, "thunk.copy: source size 8 differs from destination size 16")) << error;
}

TEST(CopyThunk, RejectsPartialOverlap) {
  const std::string error = DeserializeError(R"pb(copy { source { allocation: 4 size: 16 } destination { allocation: 4 offset: 8 size: 16 } })pb");
  EXPECT_TRUE(absl::StrContains(error, "overlap partially")) << error;
}

}  // namespace
}  // namespace xla::gpu
