// Round trip and golden of ConditionalThunk, and what its FromProto rejects.
#include "xla/backends/gpu/runtime/conditional_thunk.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"

namespace xla::gpu {
namespace {

using ::xla::gpu::testing::DeserializeError;

TEST(ConditionalThunk, RoundTripMatchesGolden) {
  testing::ExpectRoundTripMatchesGolden("conditional_thunk.textproto");
}

TEST(ConditionalThunk, RejectsPredWithThreeBranches) {
  const std::string error = DeserializeError(R"pb(conditional { branch_index { allocation: 3 size: 1 } branch_index_type: PRIMITIVE_TYPE_PRED branches {} branches {} branches {} })pb");
  EXPECT_TRUE(absl::StrContains(error, "thunk.conditional.branches: 3 branches; a pred index needs exactly 2")) << error;
}

TEST(ConditionalThunk, RejectsF32Index) {
  const std::string error = DeserializeError(R"pb(conditional { branch_index { allocation: 3 size: 4 } branch_index_type: PRIMITIVE_TYPE_F32 branches {} })pb");
  EXPECT_TRUE(absl::StrContains(error, "must be pred or s32, not f32")) << error;
}

}  // namespace
}  // namespace xla::gpu
