// Round trip and golden of AsyncStartThunk, and what its FromProto rejects.
#include "xla/backends/gpu/runtime/async_start_thunk.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"

namespace xla::gpu {
namespace {

using ::xla::gpu::testing::DeserializeError;

TEST(AsyncStartThunk, RoundTripMatchesGolden) {
  testing::ExpectRoundTripMatchesGolden("async_start_thunk.textproto");
}

TEST(AsyncStartThunk, RejectsStreamOutOfRange) {
  const std::string error = DeserializeError(R"pb(async_start { async_id: 1 stream_id: 5 })pb");
  EXPECT_TRUE(absl::StrContains(error, "thunk.async_start.stream_id: stream id 5 is outside [0, 2)")) << error;
}

TEST(AsyncStartThunk, RejectsNestedThunkOnWrongStream) {
  const std::string error = DeserializeError(R"pb(async_start { async_id: 1 stream_id: 1 thunks { thunks { memset { destination { allocation: 4 size: 4 } } } } })pb");
  EXPECT_TRUE(absl::StrContains(error, "thunk.async_start.thunks.thunks[0].execution_stream_id: stream 0 differs from the enclosing stream 1")) << error;
}

}  // namespace
}  // namespace xla::gpu
