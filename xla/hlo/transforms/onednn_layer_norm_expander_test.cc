// OneDnnLayerNormExpander: each `__onednn$layernorm` call, rewritten,
// computes what the evaluator computes for the call itself (f64, one
// rounding) on random inputs at odd sizes, within the compiled-program
// tolerance; no custom call remains; a call the reader refuses fails the
// pass naming it.
#include "xla/hlo/transforms/onednn_layer_norm_expander.h"

#include <string>

#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/proto/onednn_layer_norm_test_util.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::CountOpcode;

// Runs the pass on `hlo` (`calls` layer norms) and checks the result
// against the evaluator; each call leaves two reductions and an rsqrt.
pass_test::PassResult ExpectExpanded(const std::string& hlo, int calls = 1) {
  OneDnnLayerNormExpander pass;
  pass_test::CheckOptions options;
  options.output_scale_tolerance = true;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, hlo, options);
  EXPECT_TRUE(r.changed);
  if (r.module == nullptr) return r;
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kCustomCall), 0) << r.text;
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kReduce), 2 * calls) << r.text;
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kRsqrt), calls) << r.text;
  return r;
}

TEST(OneDnnLayerNormExpander, CorpusCall) {
  // backends/cpu/tests/thunk_coverage/cpu.hlo: rows of 2, no epsilon.
  ExpectExpanded(onednn::LayerNormModule(
      "f32[2,15,15,2]", "f32[2]", onednn::NormConfig(R"(\"rescale\":\"SCALE_AND_SHIFT\")")));
}

TEST(OneDnnLayerNormExpander, Bf16OddRowsWithF32ScaleAndShift) {
  ExpectExpanded(onednn::LayerNormModule("bf16[3,5,33]", "f32[33]", onednn::ScaleAndShift(1e-5f)));
}

TEST(OneDnnLayerNormExpander, RankOneF16) {
  ExpectExpanded(onednn::LayerNormModule("f16[257]", "f16[257]", onednn::ScaleAndShift(0.125f)));
}

TEST(OneDnnLayerNormExpander, TwoCallsShareTheReducer) {
  const std::string hlo = R"(
HloModule m
ENTRY e {
  x = f32[7,9] parameter(0)
  s = f32[9] parameter(1)
  b = f32[9] parameter(2)
  a = f32[7,9] custom-call(x, s, b), custom_call_target="__onednn$layernorm", backend_config=)" +
                          onednn::ScaleAndShift(1e-3f) + R"(
  ROOT c = f32[7,9] custom-call(a, b, s), custom_call_target="__onednn$layernorm", backend_config=)" +
                          onednn::ScaleAndShift(0.5f) + "\n}\n";
  pass_test::PassResult r = ExpectExpanded(hlo, /*calls=*/2);
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(r.module->computations().size(), 2u) << r.text;  // entry + one add reducer
}

TEST(OneDnnLayerNormExpander, RefusedCallFailsThePassNamingIt) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(onednn::LayerNormModule(
      "f32[3,5]", "f32[5]",
      onednn::NormConfig(R"(\"rescale\":\"SCALE_AND_SHIFT\",\"fusions\":{\"ops\":[\"GELU_TANH\"]})")));
  ASSERT_TRUE(module.ok()) << module.status();
  OneDnnLayerNormExpander pass;
  absl::StatusOr<bool> changed = pass.Run(module->get());
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(changed.status().message().find("'ln'"), std::string::npos) << changed.status();
  EXPECT_NE(changed.status().message().find("GELU_TANH"), std::string::npos) << changed.status();
}

TEST(OneDnnLayerNormExpander, KeptTargetStaysACall) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(
      onednn::LayerNormModule("f32[3,5]", "f32[5]", onednn::ScaleAndShift(1e-5f)));
  ASSERT_TRUE(module.ok()) << module.status();
  OneDnnLayerNormExpander pass({"__onednn$layernorm"});
  absl::StatusOr<bool> changed = pass.Run(module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kCustomCall), 1);
}

}  // namespace
}  // namespace xla
