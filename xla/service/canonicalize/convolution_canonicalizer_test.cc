#include "xla/service/canonicalize/convolution_canonicalizer.h"

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

// Runs the pass (checked against the evaluator) and a second time (which
// must change nothing); every convolution must be canonical.
PassResult Canonicalize(const std::string& hlo, bool expect_changed) {
  ConvolutionCanonicalizer pass;
  PassResult r = RunPassAndCheck(pass, hlo);
  EXPECT_EQ(r.changed, expect_changed) << r.text;
  if (r.module == nullptr) return r;
  absl::StatusOr<bool> again = pass.Run(r.module.get());
  EXPECT_TRUE(again.ok() && !*again) << "second run changed the module";
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kConvolution), 1);
  for (const auto& comp : r.module->computations()) {
    for (const auto& instr : comp->instructions()) {
      if (instr->opcode() == HloOpcode::kConvolution) {
        EXPECT_TRUE(IsCanonicalConvolution(*instr)) << instr->ToString();
      }
    }
  }
  return r;
}

TEST(ConvolutionCanonicalizer, CanonicalLabels) {
  EXPECT_EQ(CanonicalConvDimLabels(0), "bf_io->bf");
  EXPECT_EQ(CanonicalConvDimLabels(1), "b0f_0io->b0f");
  EXPECT_EQ(CanonicalConvDimLabels(2), "b01f_01io->b01f");
  EXPECT_EQ(CanonicalConvDimLabels(3), "b012f_012io->b012f");
}

TEST(ConvolutionCanonicalizer, NhwcIsLeftAlone) {
  PassResult r = Canonicalize(Module("f32[2,9,7,3]", "f32[3,2,3,4]",
                                     "f32[2,7,6,4] convolution(x, k), window={size=3x2}, "
                                     "dim_labels=b01f_01io->b01f"),
                              false);
  EXPECT_TRUE(Contains(r.text, "dim_labels=b01f_01io->b01f"));
}

TEST(ConvolutionCanonicalizer, NchwOihw) {
  PassResult r = Canonicalize(Module("f32[2,3,9,7]", "f32[4,3,3,2]",
                                     "f32[2,4,8,6] convolution(x, k), window={size=3x2 pad=1_0x0_0}, "
                                     "dim_labels=bf01_oi01->bf01"),
                              true);
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kTranspose), 3) << r.text;
}

TEST(ConvolutionCanonicalizer, FeatureGroups) {
  Canonicalize(Module("f32[2,3,9,7]", "f32[6,1,3,2]",
                      "f32[2,6,7,6] convolution(x, k), window={size=3x2}, "
                      "dim_labels=bf01_oi01->bf01, feature_group_count=3"),
               true);
}

TEST(ConvolutionCanonicalizer, BatchGroups) {
  Canonicalize(Module("f32[4,3,9,7]", "f32[4,3,3,2]",
                      "f32[2,4,7,3] convolution(x, k), window={size=3x2 stride=1x2}, "
                      "dim_labels=bf01_oi01->bf01, batch_group_count=2"),
               true);
}

TEST(ConvolutionCanonicalizer, OneSpatialDim) {
  Canonicalize(Module("f32[2,3,11]", "f32[4,3,3]",
                      "f32[2,4,9] convolution(x, k), window={size=3}, dim_labels=bf0_oi0->bf0"),
               true);
}

TEST(ConvolutionCanonicalizer, ThreeSpatialDims) {
  Canonicalize(Module("f32[1,2,5,4,3]", "f32[3,2,2,2,2]",
                      "f32[1,3,4,3,2] convolution(x, k), window={size=2x2x2}, "
                      "dim_labels=bf012_oi012->bf012"),
               true);
}

TEST(ConvolutionCanonicalizer, ScrambledOrderWithSpatialSwap) {
  Canonicalize(Module("f32[3,9,7,2]", "f32[3,2,3,4]",
                      "f32[7,5,2,4] convolution(x, k), window={size=3x2 rhs_dilate=1x2}, "
                      "dim_labels=f01b_i10o->01bf"),
               true);
}

TEST(ConvolutionCanonicalizer, NoSpatialDims) {
  Canonicalize(Module("f32[3,5]", "f32[3,4]", "f32[5,4] convolution(x, k), dim_labels=fb_io->bf"),
               true);
}

}  // namespace
}  // namespace xla
