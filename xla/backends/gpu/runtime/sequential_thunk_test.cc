// Round trip and golden of SequentialThunk, and what its FromProto rejects.
#include "xla/backends/gpu/runtime/sequential_thunk.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"

namespace xla::gpu {
namespace {

using ::xla::gpu::testing::DeserializeError;

TEST(SequentialThunk, RoundTripMatchesGolden) {
  testing::ExpectRoundTripMatchesGolden("sequential_thunk.textproto");
}

TEST(SequentialThunk, RejectsUnpairedAsyncDone) {
  const std::string error = DeserializeError(R"pb(sequential { thunks { async_done { async_id: 3 } } })pb");
  EXPECT_TRUE(absl::StrContains(error, "thunk.sequential.thunks[0]: async_done of id 3 has no earlier async_start")) << error;
}

TEST(SequentialThunk, RejectsAsyncStartWithoutDone) {
  const std::string error = DeserializeError(R"pb(sequential { thunks { async_start { async_id: 3 stream_id: 1 } } })pb");
  EXPECT_TRUE(absl::StrContains(error, "async_start of id 3 has no matching async_done")) << error;
}

}  // namespace
}  // namespace xla::gpu
