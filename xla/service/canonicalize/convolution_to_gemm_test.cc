#include "xla/service/canonicalize/convolution_to_gemm.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::Contains;
using pass_test::CountOpcode;
using pass_test::PassResult;
using pass_test::RunPassAndCheck;

std::string Module(const std::string& input, const std::string& kernel, const std::string& conv) {
  return absl::StrCat("HloModule m\n\nENTRY main {\n  x = ", input, " parameter(0)\n  k = ", kernel,
                      " parameter(1)\n  ROOT c = ", conv, "\n}\n");
}

// Runs the pass against the evaluator (random inputs, three seeds) and
// expects every convolution to have become one dot; a second run must
// change nothing.
PassResult ExpectGemm(const std::string& hlo) {
  ConvolutionToGemm pass;
  PassResult r = RunPassAndCheck(pass, hlo);
  EXPECT_TRUE(r.changed) << r.text;
  if (r.module == nullptr) return r;
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kConvolution), 0) << r.text;
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kDot), 1) << r.text;
  absl::StatusOr<bool> again = pass.Run(r.module.get());
  EXPECT_TRUE(again.ok() && !*again) << "second run changed the module";
  return r;
}

void ExpectKept(const std::string& hlo, ConvolutionToGemmOptions options = {}) {
  ConvolutionToGemm pass(options);
  PassResult r = RunPassAndCheck(pass, hlo);
  EXPECT_FALSE(r.changed) << r.text;
  if (r.module == nullptr) return;
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kDot), 0);
}

TEST(ConvolutionToGemm, ThreeByThreeSamePadding) {
  PassResult r = ExpectGemm(Module("f32[2,9,7,3]", "f32[3,3,3,5]",
                                   "f32[2,9,7,5] convolution(x, k), window={size=3x3 pad=1_1x1_1}, "
                                   "dim_labels=b01f_01io->b01f"));
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kPad), 1) << r.text;
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kSlice), 9) << r.text;
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kConcatenate), 1) << r.text;
  // The GEMM is [2*9*7, 9*3] x [9*3, 5].
  EXPECT_TRUE(Contains(r.text, "f32[126,27]")) << r.text;
  EXPECT_TRUE(Contains(r.text, "f32[27,5]")) << r.text;
}

TEST(ConvolutionToGemm, StridesAndAsymmetricPadding) {
  ExpectGemm(Module("f32[2,9,7,3]", "f32[3,2,3,4]",
                    "f32[2,4,3,4] convolution(x, k), window={size=3x2 stride=2x3 pad=1_0x0_1}, "
                    "dim_labels=b01f_01io->b01f"));
}

TEST(ConvolutionToGemm, BaseAndWindowDilation) {
  ExpectGemm(Module("f32[1,6,5,2]", "f32[3,3,2,3]",
                    "f32[1,12,3,3] convolution(x, k), window={size=3x3 pad=2_1x1_1 lhs_dilate=2x1 "
                    "rhs_dilate=1x2}, dim_labels=b01f_01io->b01f"));
}

TEST(ConvolutionToGemm, NegativePaddingOneSpatialDim) {
  ExpectGemm(Module("f32[2,8,3]", "f32[3,3,5]",
                    "f32[2,7,5] convolution(x, k), window={size=3 pad=-1_2}, "
                    "dim_labels=b0f_0io->b0f"));
}

TEST(ConvolutionToGemm, ThreeSpatialDims) {
  ExpectGemm(Module("f64[1,4,5,3,2]", "f64[2,3,2,2,3]",
                    "f64[1,4,5,2,3] convolution(x, k), window={size=2x3x2 pad=0_1x1_1x0_0}, "
                    "dim_labels=b012f_012io->b012f"));
}

TEST(ConvolutionToGemm, PointwiseIsReshapeAndDot) {
  PassResult r = ExpectGemm(Module("f32[3,5,7,6]", "f32[1,1,6,4]",
                                   "f32[3,5,7,4] convolution(x, k), window={size=1x1}, "
                                   "dim_labels=b01f_01io->b01f"));
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kSlice), 0) << r.text;
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kPad), 0) << r.text;
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kConcatenate), 0) << r.text;
}

TEST(ConvolutionToGemm, StridedPointwiseIsOneSlice) {
  PassResult r = ExpectGemm(Module("f32[1,9,7,4]", "f32[1,1,4,3]",
                                   "f32[1,5,4,3] convolution(x, k), window={size=1x1 stride=2x2}, "
                                   "dim_labels=b01f_01io->b01f"));
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kSlice), 1) << r.text;
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kConcatenate), 0) << r.text;
}

TEST(ConvolutionToGemm, Bf16) {
  ExpectGemm(Module("bf16[1,5,5,3]", "bf16[2,2,3,2]",
                    "bf16[1,4,4,2] convolution(x, k), window={size=2x2}, "
                    "dim_labels=b01f_01io->b01f"));
}

TEST(ConvolutionToGemm, FeatureGroupsAreKept) {
  ExpectKept(Module("f32[2,9,7,6]", "f32[3,3,2,6]",
                    "f32[2,7,5,6] convolution(x, k), window={size=3x3}, "
                    "dim_labels=b01f_01io->b01f, feature_group_count=3"));
}

TEST(ConvolutionToGemm, IntegerIsKept) {
  ExpectKept(Module("s32[1,5,5,3]", "s32[2,2,3,2]",
                    "s32[1,4,4,2] convolution(x, k), window={size=2x2}, "
                    "dim_labels=b01f_01io->b01f"));
}

TEST(ConvolutionToGemm, ReversalIsKept) {
  ExpectKept(Module("f32[1,5,5,3]", "f32[2,2,3,2]",
                    "f32[1,4,4,2] convolution(x, k), window={size=2x2 rhs_reversal=1x0}, "
                    "dim_labels=b01f_01io->b01f"));
}

TEST(ConvolutionToGemm, NonCanonicalIsKept) {
  ExpectKept(Module("f32[2,3,9,7]", "f32[4,3,3,2]",
                    "f32[2,4,8,6] convolution(x, k), window={size=3x2 pad=1_0x0_0}, "
                    "dim_labels=bf01_oi01->bf01"));
}

// A weight-gradient convolution (as JAX writes one for a 3x3 filter over
// 13x11 activations): the window spans the activations and the output is
// the filter, so im2col would copy the input 143 times for 9 output
// positions. The cost estimate keeps it direct.
TEST(ConvolutionToGemm, WeightGradientWindowIsKept) {
  ExpectKept(Module("f32[3,15,13,2]", "f32[13,11,2,5]",
                    "f32[3,3,3,5] convolution(x, k), window={size=13x11}, "
                    "dim_labels=b01f_01io->b01f"));
}

// More kernel positions than max_kernel_positions stay direct even when
// the output is large; at the limit im2col is taken.
TEST(ConvolutionToGemm, KernelPositionLimit) {
  const std::string hlo = Module("f32[1,17,16,2]", "f32[5,5,2,3]",
                                 "f32[1,13,12,3] convolution(x, k), window={size=5x5}, "
                                 "dim_labels=b01f_01io->b01f");
  ConvolutionToGemmOptions options;
  options.max_kernel_positions = 24;
  ExpectKept(hlo, options);
  options.max_kernel_positions = 25;
  ConvolutionToGemm pass(options);
  PassResult r = RunPassAndCheck(pass, hlo);
  EXPECT_TRUE(r.changed) << r.text;
}

TEST(ConvolutionToGemm, LargeIm2colIsKept) {
  // im2col would be [2*9*7, 27] f32 = 13608 bytes.
  ConvolutionToGemmOptions options;
  options.max_im2col_bytes = 13607;
  const std::string hlo = Module("f32[2,9,7,3]", "f32[3,3,3,5]",
                                 "f32[2,9,7,5] convolution(x, k), window={size=3x3 pad=1_1x1_1}, "
                                 "dim_labels=b01f_01io->b01f");
  ExpectKept(hlo, options);
  options.max_im2col_bytes = 13608;
  ConvolutionToGemm pass(options);
  EXPECT_TRUE(RunPassAndCheck(pass, hlo).changed);
}

}  // namespace
}  // namespace xla
