// cudnn-convolution-rewriter on inline HLO: every convolution layout of the
// corpus (grep `convolution(` under ../shared/hlo_corpus for dim_labels)
// becomes a cuDNN custom call with the filter transposed only where the
// legacy filter descriptor cannot read it, backward data reuses a
// reverse(w) kernel, and each refused form names its reason. The numbers
// are checked end to end on the fake cuDNN (xla/aot/cudnn_convolution_test).
#include "xla/service/canonicalize/cudnn_convolution_rewriter.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/parser/hlo_printer.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::Contains;
using pass_test::CountOpcode;

std::string Module(const std::string& input, const std::string& kernel, const std::string& conv) {
  return absl::StrCat("HloModule m\n\nENTRY main {\n  x = ", input, " parameter(0)\n  k = ", kernel,
                      " parameter(1)\n  ROOT c = ", conv, "\n}\n");
}

struct Rewritten {
  bool changed = false;
  std::string text;
  int64_t transposes = 0, reverses = 0, convolutions = 0;
};

Rewritten RunRewriter(const std::string& hlo) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return {};
  CudnnConvolutionRewriter pass;
  absl::StatusOr<bool> changed = pass.Run(module->get());
  EXPECT_TRUE(changed.ok()) << changed.status();
  absl::StatusOr<bool> again = pass.Run(module->get());
  EXPECT_TRUE(again.ok() && !*again) << "a second run changed the module";
  Rewritten r;
  r.changed = changed.ok() && *changed;
  r.text = PrintModule(**module);
  r.transposes = CountOpcode(**module, HloOpcode::kTranspose);
  r.reverses = CountOpcode(**module, HloOpcode::kReverse);
  r.convolutions = CountOpcode(**module, HloOpcode::kConvolution);
  return r;
}

// The corpus's forward layouts: the filter is transposed to [o, 0, 1, i]
// (channel-last input) or [o, i, 0, 1] unless it already is.
TEST(CudnnConvolutionRewriter, CorpusForwardLayouts) {
  struct Case {
    std::string input, kernel, conv, labels;
    int64_t transposes;
  };
  const Case cases[] = {
      // ResNet-50 (keras, JAX): NHWC x HWIO.
      {"f32[3,7,5,3]", "f32[3,3,3,5]",
       "f32[3,4,5,5] convolution(x, k), window={size=3x3 stride=2x1 pad=1_1x1_1}, dim_labels=b01f_01io->b01f",
       "dim_labels=b01f_o01i->b01f", 1},
      // MobileNet v2 forward, and the depthwise benchmark: NCHW x OIHW.
      {"f32[3,4,7,5]", "f32[4,1,3,3]",
       "f32[3,4,7,5] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=4",
       "dim_labels=bf01_oi01->bf01", 0},
      // isolated_convolution: NHWC x HWOI.
      {"f32[3,7,5,3]", "f32[3,3,5,3]",
       "f32[3,7,5,5] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01oi->b01f",
       "dim_labels=b01f_o01i->b01f", 1},
      // 1-D: NWC x WIO.
      {"f32[3,9,3]", "f32[3,3,5]",
       "f32[3,7,5] convolution(x, k), window={size=3}, dim_labels=b0f_0io->b0f", "dim_labels=b0f_o0i->b0f", 1},
      // NHWC in, CHWN out (layout_assignment tests).
      {"f32[3,7,5,3]", "f32[3,3,3,5]",
       "f32[5,7,5,3] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->f01b",
       "dim_labels=b01f_o01i->f01b", 1},
      // MobileNet's weight gradient (window over the activations): CNHW x
      // IOHW -> HWNC, a forward convolution to cuDNN.
      {"f32[3,2,7,5]", "f32[3,4,5,3]",
       "f32[3,3,2,4] convolution(x, k), window={size=5x3}, dim_labels=fb01_io01->01bf",
       "dim_labels=fb01_oi01->01bf", 1},
  };
  for (const Case& c : cases) {
    const Rewritten r = RunRewriter(Module(c.input, c.kernel, c.conv));
    EXPECT_TRUE(r.changed) << c.conv;
    EXPECT_EQ(r.convolutions, 0) << r.text;
    EXPECT_TRUE(Contains(r.text, "custom_call_target=\"__xla_aot$cudnn_conv_forward\"")) << r.text;
    EXPECT_TRUE(Contains(r.text, c.labels)) << c.labels << "\n" << r.text;
    EXPECT_EQ(r.transposes, c.transposes) << r.text;
    EXPECT_EQ(r.reverses, 0) << r.text;
  }
}

TEST(CudnnConvolutionRewriter, KeepsWindowGroupsAndPrecision) {
  const Rewritten r = RunRewriter(Module(
      "f32[3,4,7,5]", "f32[4,2,3,3]",
      "f32[3,4,4,2] convolution(x, k), window={size=3x3 stride=2x2 pad=1_1x1_1 rhs_dilate=1x2}, "
      "dim_labels=bf01_oi01->bf01, feature_group_count=2, operand_precision={highest,highest}"));
  EXPECT_TRUE(Contains(r.text, "window={size=3x3 stride=2x2 pad=1_1x1_1 rhs_dilate=1x2}")) << r.text;
  EXPECT_TRUE(Contains(r.text, "feature_group_count=2")) << r.text;
  EXPECT_TRUE(Contains(r.text, "operand_precision={highest,highest}")) << r.text;
}

// A transposed convolution as JAX writes it: conv(dy, reverse(w)) with base
// dilation. The existing reverse is reused (no new one), the kernel becomes
// [i, 0, 1, o].
TEST(CudnnConvolutionRewriter, BackwardDataReusesTheReverse) {
  const std::string hlo = R"(HloModule m

ENTRY main {
  dy = f32[3,4,3,5] parameter(0)
  w = f32[3,3,5,3] parameter(1)
  r = f32[3,3,5,3] reverse(w), dimensions={0,1}
  ROOT dx = f32[3,7,3,3] convolution(dy, r), window={size=3x3 pad=1_1x1_1 lhs_dilate=2x1}, dim_labels=b01f_01io->b01f
})";
  const Rewritten r = RunRewriter(hlo);
  EXPECT_TRUE(Contains(r.text, "__xla_aot$cudnn_conv_backward_data")) << r.text;
  EXPECT_TRUE(Contains(r.text, "dim_labels=b01f_i01o->b01f")) << r.text;
  EXPECT_EQ(r.reverses, 1) << r.text;  // only the module's own, now unused
  EXPECT_TRUE(Contains(r.text, "transpose(w)")) << r.text;
}

// MobileNet's weight gradient (CNHW x IOHW -> HWNC, a window as large as
// the activations): cuDNN's backward filter reads x and dy as they are and
// writes dw as [f, 0, 1, b], transposed back to HWNC.
TEST(CudnnConvolutionRewriter, WeightGradientIsBackwardFilter) {
  const Rewritten r = RunRewriter(Module(
      "f32[3,2,7,7]", "f32[3,4,5,5]",
      "f32[3,3,2,4] convolution(x, k), window={size=5x5}, dim_labels=fb01_io01->01bf"));
  EXPECT_TRUE(Contains(r.text, "__xla_aot$cudnn_conv_backward_filter")) << r.text;
  EXPECT_TRUE(Contains(r.text, "dim_labels=fb01_io01->f01b")) << r.text;
  EXPECT_TRUE(Contains(r.text, "custom-call(x, k)")) << r.text;
  EXPECT_EQ(r.transposes, 1) << r.text;
  // Already [f, b, 0, 1]: nothing to transpose.
  const Rewritten packed = RunRewriter(Module(
      "f32[3,2,7,7]", "f32[3,4,5,5]",
      "f32[4,2,3,3] convolution(x, k), window={size=5x5}, dim_labels=fb01_io01->fb01"));
  EXPECT_TRUE(Contains(packed.text, "__xla_aot$cudnn_conv_backward_filter")) << packed.text;
  EXPECT_EQ(packed.transposes, 0) << packed.text;
}

TEST(CudnnConvolutionRewriter, RefusalsNameTheReason) {
  struct Case {
    std::string input, kernel, conv, reason;
  };
  const Case cases[] = {
      {"f32[3,7,5,3]", "f32[3,3,3,5]",
       "f32[3,4,2,5] convolution(x, k), window={size=3x3 stride=2x2 pad=0_1x0_0}, dim_labels=b01f_01io->b01f",
       "asymmetric padding 0_1 in spatial dimension 0"},
      {"f32[3,7,5,3]", "f32[3,3,3,5]",
       "f32[3,5,3,5] convolution(x, k), window={size=3x3 rhs_reversal=1x0}, dim_labels=b01f_01io->b01f",
       "window reversal in spatial dimension 0"},
      {"f64[3,7,5,3]", "f64[3,3,3,5]",
       "f64[3,5,3,5] convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f",
       "cuDNN convolutions take one of f16, bf16, f32"},
      {"f32[4,7,5,3]", "f32[3,3,3,4]",
       "f32[2,5,3,4] convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f, batch_group_count=2",
       "batch_group_count 2"},
      {"f32[3,4,3,5]", "f32[3,3,5,3]",
       "f32[3,7,3,3] convolution(x, k), window={size=3x3 pad=0_2x1_1 lhs_dilate=2x1}, dim_labels=b01f_01io->b01f",
       "is not the transposed-convolution shape"},
      {"f32[3,5]", "f32[5,4]", "f32[3,4] convolution(x, k), dim_labels=bf_io->bf", "0 spatial dimensions"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(Module(c.input, c.kernel, c.conv));
    ASSERT_TRUE(module.ok()) << module.status() << "\n" << c.conv;
    const HloInstruction* conv = (*module)->entry_computation()->root_instruction();
    const std::optional<std::string> reason = CudnnConvolutionRefusal(*conv);
    ASSERT_TRUE(reason.has_value()) << c.conv;
    EXPECT_TRUE(Contains(*reason, c.reason)) << *reason;
    const Rewritten r = RunRewriter(Module(c.input, c.kernel, c.conv));
    EXPECT_FALSE(r.changed) << r.text;
  }
}

}  // namespace
}  // namespace xla
