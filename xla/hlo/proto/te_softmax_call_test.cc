// ReadTeSoftmaxCall: the six targets' meanings, the scale rounded to f32,
// and the refusals (attribute, operand count, types, mask and causal
// shapes), each naming the instruction.
#include "xla/hlo/proto/te_softmax_call.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/proto/te_softmax_test_util.h"

namespace xla::te_softmax {
namespace {

// The root of `hlo`'s entry computation read as a softmax call.
absl::StatusOr<TeSoftmaxCall> ReadRoot(const std::string& hlo) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  if (!module.ok()) return module.status();
  return ReadTeSoftmaxCall(*(*module)->entry_computation()->root_instruction());
}

using Shapes = std::vector<std::string>;

// The root call of SoftmaxModule(...), read.
absl::StatusOr<TeSoftmaxCall> Read(
    const std::string& target, const Shapes& params,
    const std::string& config = "{scale_factor = 2.000000e-01 : f64}",
    const std::string& result = "bf16[2,3,5,7]") {
  return ReadRoot(SoftmaxModule(target, params, result, config));
}

const Shapes kX = {"bf16[2,3,5,7]"};
const Shapes kDyY = {"bf16[2,3,5,7]", "bf16[2,3,5,7]"};

TEST(TeSoftmaxCall, KnowsTheSixTargets) {
  for (const char* t : {"te_scaled_softmax_forward_ffi", "te_scaled_softmax_backward_ffi",
                        "te_scaled_masked_softmax_forward_ffi",
                        "te_scaled_masked_softmax_backward_ffi",
                        "te_scaled_upper_triang_masked_softmax_forward_ffi",
                        "te_scaled_upper_triang_masked_softmax_backward_ffi"}) {
    EXPECT_TRUE(IsTeSoftmaxTarget(t)) << t;
  }
  EXPECT_FALSE(IsTeSoftmaxTarget("te_scaled_softmax_ffi"));
  EXPECT_FALSE(IsTeSoftmaxTarget("te_fused_attn_forward_ffi"));
}

TEST(TeSoftmaxCall, ForwardReadsTheScaleAsF32) {
  absl::StatusOr<TeSoftmaxCall> c = Read("te_scaled_softmax_forward_ffi", kX);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE(c->backward);
  EXPECT_EQ(c->mask, TeSoftmaxMask::kNone);
  EXPECT_EQ(c->scale, static_cast<double>(0.2f));
}

TEST(TeSoftmaxCall, MaskedBackwardIsThePlainBackward) {
  absl::StatusOr<TeSoftmaxCall> c =
      Read("te_scaled_masked_softmax_backward_ffi", kDyY);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->backward);
  EXPECT_EQ(c->mask, TeSoftmaxMask::kNone);
}

TEST(TeSoftmaxCall, MaskedForwardTakesASharedOrPerBatchMask) {
  for (const char* mask : {"u8[1,1,5,7]", "u8[2,1,5,7]", "pred[1,1,5,7]"}) {
    absl::StatusOr<TeSoftmaxCall> c = Read("te_scaled_masked_softmax_forward_ffi", {kX[0], mask});
    ASSERT_TRUE(c.ok()) << mask << ": " << c.status();
    EXPECT_EQ(c->mask, TeSoftmaxMask::kOperand);
  }
}

TEST(TeSoftmaxCall, MaskOfTheWrongShapeIsRefused) {
  absl::StatusOr<TeSoftmaxCall> c =
      Read("te_scaled_masked_softmax_forward_ffi", {kX[0], "u8[3,1,5,7]"});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("custom-call 'sm'"), std::string::npos) << c.status();
  EXPECT_NE(c.status().message().find("product 1 or 2"), std::string::npos) << c.status();
}

TEST(TeSoftmaxCall, MissingScaleNamesTheAttribute) {
  absl::StatusOr<TeSoftmaxCall> c =
      Read("te_scaled_softmax_forward_ffi", kX, "{other = 1 : i64}");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(c.status().message().find("missing attribute 'scale_factor'"), std::string::npos)
      << c.status();
  EXPECT_NE(c.status().message().find("'sm'"), std::string::npos) << c.status();
}

TEST(TeSoftmaxCall, IntegerScaleIsRefused) {
  absl::StatusOr<TeSoftmaxCall> c =
      Read("te_scaled_softmax_forward_ffi", kX, "{scale_factor = 2 : i64}");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("'scale_factor' must be a float (f64), is i64"),
            std::string::npos)
      << c.status();
}

TEST(TeSoftmaxCall, MalformedConfigIsAnError) {
  absl::StatusOr<TeSoftmaxCall> c =
      Read("te_scaled_softmax_forward_ffi", kX, "{scale_factor = }");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("backend_config offset"), std::string::npos) << c.status();
}

TEST(TeSoftmaxCall, BackwardNeedsTwoOperands) {
  absl::StatusOr<TeSoftmaxCall> c = Read("te_scaled_softmax_backward_ffi", kX);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("takes 2 operands (dy, y), got 1"), std::string::npos)
      << c.status();
}

TEST(TeSoftmaxCall, IntegerValuesAreRefused) {
  absl::StatusOr<TeSoftmaxCall> c =
      Read("te_scaled_softmax_forward_ffi", {"s32[4,6]"}, "{scale_factor = 1.0 : f64}", "s32[4,6]");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("f16, bf16 or f32"), std::string::npos) << c.status();
}

TEST(TeSoftmaxCall, CausalNeedsSquareRows) {
  absl::StatusOr<TeSoftmaxCall> c =
      Read("te_scaled_upper_triang_masked_softmax_forward_ffi", kX);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("[..., S, S]"), std::string::npos) << c.status();
}

}  // namespace
}  // namespace xla::te_softmax
