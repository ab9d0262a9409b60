// cudnn-epilogue-fuser on inline HLO, after cudnn-convolution-rewriter: the
// bias of ResNet-50's convolution layers (NHWC, broadcast(f32[1,K])) and
// of NCHW layers (broadcast(f32[K])) fuses, then max(., 0) in either
// order; and each form it must leave alone stays as it was. The numbers
// are checked end to end on the fake cuDNN (xla/aot/cudnn_convolution_test).
#include "xla/service/canonicalize/cudnn_epilogue_fuser.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/parser/hlo_printer.h"
#include "xla/hlo/transforms/pass_test_util.h"
#include "xla/service/canonicalize/cudnn_convolution_rewriter.h"

namespace xla {
namespace {

using pass_test::Contains;

constexpr char kBiasTarget[] = "custom_call_target=\"__xla_aot$cudnn_conv_forward_bias\"";
constexpr char kReluTarget[] = "custom_call_target=\"__xla_aot$cudnn_conv_forward_bias_relu\"";
constexpr char kPlainTarget[] = "custom_call_target=\"__xla_aot$cudnn_conv_forward\"";

// A ResNet-50 layer at odd sizes: x NHWC, w HWIO, y [3, 4, 5, 5].
constexpr char kNhwcConv[] =
    "  x = f32[3,7,5,3] parameter(0)\n  k = f32[3,3,3,5] parameter(1)\n"
    "  c = f32[3,4,5,5] convolution(x, k), window={size=3x3 stride=2x1 pad=1_1x1_1}, "
    "dim_labels=b01f_01io->b01f\n";

std::string Module(const std::string& body) {
  return absl::StrCat("HloModule m\n\nENTRY main {\n", body, "}\n");
}

struct Fused {
  bool changed = false;
  std::string text;
};

// The rewriter, then the fuser (twice: the second run changes nothing).
Fused RunFuser(const std::string& hlo) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  EXPECT_TRUE(module.ok()) << module.status() << "\n" << hlo;
  if (!module.ok()) return {};
  EXPECT_TRUE(CudnnConvolutionRewriter().Run(module->get()).ok());
  absl::StatusOr<bool> changed = CudnnEpilogueFuser().Run(module->get());
  EXPECT_TRUE(changed.ok()) << changed.status();
  absl::StatusOr<bool> again = CudnnEpilogueFuser().Run(module->get());
  EXPECT_TRUE(again.ok() && !*again) << "a second run changed the module";
  return {changed.ok() && *changed, PrintModule(**module)};
}

TEST(CudnnEpilogueFuser, ResnetBiasAsJaxPrintsIt) {
  const Fused f = RunFuser(Module(
      "  x = f32[1,7,5,3] parameter(0)\n  k = f32[3,3,3,5] parameter(1)\n"
      "  c = f32[1,4,5,5] convolution(x, k), window={size=3x3 stride=2x1 pad=1_1x1_1}, "
      "dim_labels=b01f_01io->b01f\n"
      "  p = f32[5] parameter(2)\n  r = f32[1,5] reshape(p)\n"
      "  b = f32[1,4,5,5] broadcast(r), dimensions={0,3}\n  ROOT a = f32[1,4,5,5] add(c, b)\n"));
  EXPECT_TRUE(f.changed);
  EXPECT_TRUE(Contains(f.text, kBiasTarget)) << f.text;
  EXPECT_FALSE(Contains(f.text, kPlainTarget)) << f.text;
  EXPECT_FALSE(Contains(f.text, " add(")) << f.text;
  // The bias operand is [K]: the [1, K] reshaped back.
  EXPECT_TRUE(Contains(f.text, "f32[5]{0} reshape(r)")) << f.text;
  EXPECT_TRUE(Contains(f.text, "window={size=3x3 stride=2x1 pad=1_1x1_1}")) << f.text;
}

TEST(CudnnEpilogueFuser, ReluInEitherOrderAndNchwBias) {
  const std::string nchw =
      "  x = f16[3,4,7,5] parameter(0)\n  k = f16[6,2,3,3] parameter(1)\n"
      "  c = f16[3,6,7,5] convolution(x, k), window={size=3x3 pad=1_1x1_1}, "
      "dim_labels=bf01_oi01->bf01, feature_group_count=2\n"
      "  p = f16[6] parameter(2)\n  b = f16[3,6,7,5] broadcast(p), dimensions={1}\n"
      "  a = f16[3,6,7,5] add(b, c)\n  z = f16[] constant(0)\n"
      "  zb = f16[3,6,7,5] broadcast(z), dimensions={}\n";
  for (const char* relu : {"maximum(a, zb)", "maximum(zb, a)"}) {
    const Fused f = RunFuser(Module(absl::StrCat(nchw, "  ROOT m = f16[3,6,7,5] ", relu, "\n")));
    EXPECT_TRUE(Contains(f.text, kReluTarget)) << f.text;
    EXPECT_FALSE(Contains(f.text, kBiasTarget)) << f.text;
    EXPECT_FALSE(Contains(f.text, " maximum(")) << f.text;
    EXPECT_TRUE(Contains(f.text, "feature_group_count=2")) << f.text;
  }
}

TEST(CudnnEpilogueFuser, LeavesAloneWhatCudnnCannotFuse) {
  const std::string bias =
      "  p = f32[5] parameter(2)\n  b = f32[3,4,5,5] broadcast(p), dimensions={3}\n";
  struct Case {
    const char* what;
    std::string body;
    const char* target;  // the cuDNN call expected afterwards
  };
  const Case cases[] = {
      {"bias along a spatial dimension",
       absl::StrCat(kNhwcConv, "  p = f32[5] parameter(2)\n",
                    "  b = f32[3,4,5,5] broadcast(p), dimensions={2}\n  ROOT a = f32[3,4,5,5] add(c, b)\n"),
       kPlainTarget},
      {"a full tensor, not a broadcast",
       absl::StrCat(kNhwcConv, "  t = f32[3,4,5,5] parameter(2)\n  ROOT a = f32[3,4,5,5] add(c, t)\n"),
       kPlainTarget},
      {"the convolution has a second user",
       absl::StrCat(kNhwcConv, bias,
                    "  a = f32[3,4,5,5] add(c, b)\n  ROOT t = (f32[3,4,5,5], f32[3,4,5,5]) tuple(a, c)\n"),
       kPlainTarget},
      {"a subtract, not an add",
       absl::StrCat(kNhwcConv, bias, "  ROOT a = f32[3,4,5,5] subtract(c, b)\n"), kPlainTarget},
      {"max with a non-zero constant keeps the bias fused only",
       absl::StrCat(kNhwcConv, bias,
                    "  a = f32[3,4,5,5] add(c, b)\n  o = f32[] constant(0.5)\n"
                    "  ob = f32[3,4,5,5] broadcast(o), dimensions={}\n"
                    "  ROOT m = f32[3,4,5,5] maximum(a, ob)\n"),
       kBiasTarget},
      {"bf16",
       "  x = bf16[3,7,5,3] parameter(0)\n  k = bf16[3,3,3,5] parameter(1)\n"
       "  c = bf16[3,4,5,5] convolution(x, k), window={size=3x3 stride=2x1 pad=1_1x1_1}, "
       "dim_labels=b01f_01io->b01f\n  p = bf16[5] parameter(2)\n"
       "  b = bf16[3,4,5,5] broadcast(p), dimensions={3}\n  ROOT a = bf16[3,4,5,5] add(c, b)\n",
       kPlainTarget},
  };
  for (const Case& c : cases) {
    const Fused f = RunFuser(Module(c.body));
    EXPECT_TRUE(Contains(f.text, c.target)) << c.what << "\n" << f.text;
    EXPECT_EQ(f.changed, c.target != kPlainTarget) << c.what;
  }
}

}  // namespace
}  // namespace xla
