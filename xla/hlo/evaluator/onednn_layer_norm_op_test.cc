// XLA:CPU's `__onednn$layernorm` in the evaluator against values computed
// by hand (rows whose variance plus epsilon is a perfect square), the
// result rounded once to bf16, epsilon 0 when the config has none, and a
// refused config naming the call.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla/hlo/evaluator/evaluator_test_util.h"
#include "xla/hlo/proto/onednn_layer_norm_test_util.h"

namespace xla {
namespace {

using evaluator_test::EvalText;
using evaluator_test::MakeLiteral;
using evaluator_test::Values;

std::vector<Literal> Args(PrimitiveType x_type, std::vector<int64_t> dims,
                          std::vector<double> x) {
  std::vector<Literal> args;
  args.push_back(MakeLiteral(x_type, std::move(dims), std::move(x)));
  args.push_back(MakeLiteral(PrimitiveType::F32, {4}, {2, 1, -1, 0.5}));
  args.push_back(MakeLiteral(PrimitiveType::F32, {4}, {0.25, 0, 1, -1}));
  return args;
}

TEST(OneDnnLayerNormOp, RowsAreNormalizedScaledAndShifted) {
  // Row 0: mean 3, variance 3.5, + epsilon 0.5 = 4: (x - 3) / 2.
  // Row 1: mean 2, variance 15.5, + 0.5 = 16: (x - 2) / 4.
  absl::StatusOr<Literal> r =
      EvalText(onednn::LayerNormModule("f32[2,4]", "f32[4]", onednn::ScaleAndShift(0.5f)),
               Args(PrimitiveType::F32, {2, 4}, {1, 2, 3, 6, -4, 2, 3, 7}));
  ASSERT_TRUE(r.ok()) << r.status();
  const std::vector<double> want = {-1.75, -0.5, 1, -0.25, -2.75, 0, 0.75, -0.375};
  EXPECT_EQ(Values(*r), want);
}

TEST(OneDnnLayerNormOp, Bf16ResultIsRoundedOnce) {
  // Mean 0, variance 1 (epsilon 0): x itself, scaled by 1/3 in column 1
  // (0.333.. rounds to bf16's 0.333984375) and shifted.
  std::vector<Literal> args;
  args.push_back(MakeLiteral(PrimitiveType::BF16, {1, 4}, {1, -1, 1, -1}));
  args.push_back(MakeLiteral(PrimitiveType::F32, {4}, {1, 1.0 / 3, 1, 1}));
  args.push_back(MakeLiteral(PrimitiveType::F32, {4}, {0, 0, 0.5, 0}));
  absl::StatusOr<Literal> r = EvalText(
      onednn::LayerNormModule("bf16[1,4]", "f32[4]",
                              onednn::NormConfig(R"(\"rescale\":\"SCALE_AND_SHIFT\")")),
      args);
  ASSERT_TRUE(r.ok()) << r.status();
  const Literal want =
      MakeLiteral(PrimitiveType::BF16, {1, 4}, {1, -1.0 / 3, 1.5, -1});
  EXPECT_EQ(Values(*r), Values(want));
  EXPECT_EQ(Values(*r)[1], -0.333984375);
}

TEST(OneDnnLayerNormOp, RefusedConfigNamesTheCall) {
  absl::StatusOr<Literal> r = EvalText(
      onednn::LayerNormModule("f32[2,4]", "f32[4]",
                              onednn::NormConfig(R"(\"rescale\":\"SHIFT\")")),
      Args(PrimitiveType::F32, {2, 4}, {1, 2, 3, 6, -4, 2, 3, 7}));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'ln'"), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find("rescale 'SHIFT'"), std::string::npos) << r.status();
}

}  // namespace
}  // namespace xla
