// TeSoftmaxExpander: each TE softmax call, rewritten, computes what the
// evaluator computes for the call itself (f64, one rounding) on random
// inputs, within the compiled-program tolerance; no custom call remains;
// a call the reader refuses fails the pass naming it.
#include "xla/hlo/transforms/te_softmax_expander.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/proto/te_softmax_test_util.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::CountOpcode;

std::string Module(const std::string& target, const std::vector<std::string>& params,
                   const std::string& result, double scale) {
  return te_softmax::SoftmaxModule(target, params, result,
                                   absl::StrCat("{scale_factor = ", scale, " : f64}"));
}

void ExpectExpanded(const std::string& hlo, const pass_test::CheckOptions& base = {}) {
  TeSoftmaxExpander pass;
  pass_test::CheckOptions options = base;
  options.output_scale_tolerance = true;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, hlo, options);
  EXPECT_TRUE(r.changed);
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kCustomCall), 0) << r.text;
  EXPECT_GE(CountOpcode(*r.module, HloOpcode::kReduce), 1) << r.text;
}

TEST(TeSoftmaxExpander, CorpusModule) {
  // tools/multihost_hlo_runner/data/transformer_engine_softmax.hlo.
  ExpectExpanded(R"(
HloModule f
ENTRY f {
  %arg1 = bf16[4,1,16,32] parameter(0)
  ROOT %custom-call = bf16[4,1,16,32] custom-call(bf16[4,1,16,32] %arg1), custom_call_target="te_scaled_softmax_forward_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={scale_factor = 0.200000e+00 : f64}
})");
}

TEST(TeSoftmaxExpander, ForwardF32OddRows) {
  ExpectExpanded(Module("te_scaled_softmax_forward_ffi", {"f32[3,5,33]"}, "f32[3,5,33]", 3.5));
}

TEST(TeSoftmaxExpander, ForwardRankOne) {
  ExpectExpanded(Module("te_scaled_softmax_forward_ffi", {"bf16[37]"}, "bf16[37]", 2.0));
}

// Mask bytes 1 (masked) in a pattern, 0 and 2 (kept) elsewhere, and the
// whole first row masked (TE gives it zeros).
void FillMask(std::vector<Literal>* inputs) {
  Literal& mask = (*inputs)[1];
  const int64_t row = mask.shape().dimensions(mask.shape().rank() - 1);
  for (int64_t i = 0; i < mask.element_count(); ++i) {
    mask.SetInt(i, i < row ? 1 : (i * 7) % 3);
  }
}

// The masked forward of x and mask (shapes), its mask bytes from FillMask.
void ExpectMaskedExpanded(const std::string& x, const std::string& mask, double scale) {
  pass_test::CheckOptions options;
  options.adjust_inputs = FillMask;
  ExpectExpanded(Module("te_scaled_masked_softmax_forward_ffi", {x, mask}, x, scale), options);
}

TEST(TeSoftmaxExpander, MaskedForwardPerBatchMask) {
  ExpectMaskedExpanded("bf16[2,3,5,7]", "u8[2,1,5,7]", 1.5);
}

TEST(TeSoftmaxExpander, MaskedForwardSharedMaskRankFive) {
  ExpectMaskedExpanded("f32[2,3,2,5,9]", "u8[1,1,1,5,9]", 2.5);
}

TEST(TeSoftmaxExpander, MaskedForwardPredMask) {
  ExpectMaskedExpanded("f16[3,4,7,11]", "pred[3,1,7,11]", 0.5);
}

TEST(TeSoftmaxExpander, UpperTriangularForward) {
  ExpectExpanded(Module("te_scaled_upper_triang_masked_softmax_forward_ffi", {"f16[3,9,9]"},
                        "f16[3,9,9]", 4.0));
}

TEST(TeSoftmaxExpander, Backward) {
  ExpectExpanded(Module("te_scaled_softmax_backward_ffi", {"f32[5,17]", "f32[5,17]"}, "f32[5,17]",
                        0.75));
  ExpectExpanded(Module("te_scaled_masked_softmax_backward_ffi",
                        {"bf16[2,3,5,7]", "bf16[2,3,5,7]"}, "bf16[2,3,5,7]", 1.25));
}

TEST(TeSoftmaxExpander, UpperTriangularBackward) {
  ExpectExpanded(Module("te_scaled_upper_triang_masked_softmax_backward_ffi",
                        {"bf16[2,7,7]", "bf16[2,7,7]"}, "bf16[2,7,7]", 0.5));
}

TEST(TeSoftmaxExpander, KeptTargetsStayCalls) {
  // The forward is kept (--allow_custom_calls names it), the backward not.
  TeSoftmaxExpander pass({"te_scaled_softmax_forward_ffi"});
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
ENTRY e {
  x = f32[3,9] parameter(0)
  dy = f32[3,9] parameter(1)
  y = f32[3,9] custom-call(x), custom_call_target="te_scaled_softmax_forward_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={scale_factor = 1.5 : f64}
  ROOT dx = f32[3,9] custom-call(dy, y), custom_call_target="te_scaled_softmax_backward_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={scale_factor = 1.5 : f64}
})");
  EXPECT_TRUE(r.changed);
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kCustomCall), 1) << r.text;
  EXPECT_TRUE(pass_test::Contains(r.text, "te_scaled_softmax_forward_ffi"));
  EXPECT_TRUE(pass_test::Lacks(r.text, "te_scaled_softmax_backward_ffi"));
}

TEST(TeSoftmaxExpander, MissingScaleFailsNamingTheCallAndAttribute) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(R"(
HloModule m
ENTRY e {
  x = bf16[2,8] parameter(0)
  ROOT sm = bf16[2,8] custom-call(x), custom_call_target="te_scaled_softmax_forward_ffi", api_version=API_VERSION_TYPED_FFI
})");
  ASSERT_TRUE(module.ok()) << module.status();
  TeSoftmaxExpander pass;
  absl::StatusOr<bool> changed = pass.Run(module->get());
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(changed.status().message().find("custom-call 'sm'"), std::string::npos)
      << changed.status();
  EXPECT_NE(changed.status().message().find("'scale_factor'"), std::string::npos)
      << changed.status();
}

}  // namespace
}  // namespace xla
