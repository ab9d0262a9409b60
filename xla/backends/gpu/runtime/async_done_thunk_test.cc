// Round trip and golden of AsyncDoneThunk, and what its FromProto rejects.
#include "xla/backends/gpu/runtime/async_done_thunk.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"

namespace xla::gpu {
namespace {

using ::xla::gpu::testing::DeserializeError;

TEST(AsyncDoneThunk, RoundTripMatchesGolden) {
  testing::ExpectRoundTripMatchesGolden("async_done_thunk.textproto");
}

TEST(AsyncDoneThunk, RejectsNegativeId) {
  const std::string error = DeserializeError(R"pb(async_done { async_id: -1 })pb");
  EXPECT_TRUE(absl::StrContains(error, "thunk.async_done.async_id: -1 is negative")) << error;
}

}  // namespace
}  // namespace xla::gpu
