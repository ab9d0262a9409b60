// Round trip and golden of GemmThunk, and what its FromProto rejects.
#include "xla/backends/gpu/runtime/gemm_thunk.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"

namespace xla::gpu {
namespace {

using ::xla::gpu::testing::DeserializeError;

TEST(GemmThunk, RoundTripMatchesGolden) {
  testing::ExpectRoundTripMatchesGolden("gemm_thunk.textproto");
}

TEST(GemmThunk, RejectsOperandTooSmall) {
  const std::string error = DeserializeError(R"pb(gemm { lhs { allocation: 0 size: 64 } rhs { allocation: 1 size: 64 } output { allocation: 4 size: 256 } element_type: PRIMITIVE_TYPE_F32 m: 8 n: 8 k: 4 })pb");
  EXPECT_TRUE(absl::StrContains(error, "thunk.gemm.lhs: needs 32 elements")) << error;
}

TEST(GemmThunk, RejectsIntegerType) {
  const std::string error = DeserializeError(R"pb(gemm { element_type: PRIMITIVE_TYPE_S32 m: 1 n: 1 k: 1 })pb");
  EXPECT_TRUE(absl::StrContains(error, "thunk.gemm.element_type: GEMM supports f16, bf16, f32 and f64, not s32")) << error;
}

TEST(GemmThunk, RejectsUnknownEnumValue) {
  const std::string error = DeserializeError(R"pb(gemm { element_type: 999 m: 1 n: 1 k: 1 })pb");
  EXPECT_TRUE(absl::StrContains(error, "thunk.gemm.element_type")) << error;
}

TEST(GemmThunk, RejectsOutputOverlappingInput) {
  const std::string error = DeserializeError(R"pb(gemm { lhs { allocation: 4 size: 64 } rhs { allocation: 1 size: 64 } output { allocation: 4 offset: 32 size: 64 } element_type: PRIMITIVE_TYPE_F32 m: 4 n: 4 k: 4 })pb");
  EXPECT_TRUE(absl::StrContains(error, "overlaps an operand")) << error;
}

}  // namespace
}  // namespace xla::gpu
