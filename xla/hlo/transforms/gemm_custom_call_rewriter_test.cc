#include "xla/hlo/transforms/gemm_custom_call_rewriter.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::CountOpcode;

// Compares the evaluator before (the custom call evaluated from its
// definition, in f64 with one rounding) and after (dot and elementwise ops,
// each rounded to f32) on random inputs, within the compiled-program
// tolerance (CompareOutputLeaf): the steps round separately.
void ExpectRewritten(const std::string& hlo) {
  GemmCustomCallRewriter pass;
  pass_test::CheckOptions options;
  options.output_scale_tolerance = true;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, hlo, options);
  EXPECT_TRUE(r.changed);
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kCustomCall), 0) << r.text;
  EXPECT_GE(CountOpcode(*r.module, HloOpcode::kDot), 1) << r.text;
}

TEST(GemmCustomCallRewriter, CorpusLtMatmulChain) {
  // backends/gpu/tests/kernel_reuse: the escaped, wrapped config text.
  ExpectRewritten(R"(
HloModule m
ENTRY e {
  a = f32[5,5]{1,0} parameter(0)
  c0 = f32[5,5]{1,0} custom-call(a, a), custom_call_target="__cublas$lt$matmul", backend_config="{ \"gemm_backend_config\": {\"alpha_real\":1,\"beta\":0,\"dot_dimension_numbers\":{\"lhs_contracting_dimensions\":[\"1\"],\"rhs_contracting_dimensions\":[\"0\"],\"lhs_batch_dimensions\":[],\"rhs_batch_dimensions\":[]},\"alpha_imag\":0,\"precision_config\":{\"operand_precision\":[\"DEFAULT\",\"DEFAULT\"]},\"epilogue\":\"DEFAULT\"}}"
  s = f32[5,5]{1,0} sine(c0)
  ROOT c1 = f32[5,5]{1,0} custom-call(s, s), custom_call_target="__cublas$lt$matmul", backend_config="{ \"gemm_backend_config\": {\"alpha_real\":1,\"beta\":0,\"dot_dimension_numbers\":{\"lhs_contracting_dimensions\":[\"1\"],\"rhs_contracting_dimensions\":[\"0\"],\"lhs_batch_dimensions\":[],\"rhs_batch_dimensions\":[]},\"alpha_imag\":0,\"precision_config\":{\"operand_precision\":[\"DEFAULT\",\"DEFAULT\"]},\"epilogue\":\"DEFAULT\"}}"
})");
}

TEST(GemmCustomCallRewriter, BatchedAlphaBetaBiasReluWorkspaceTuple) {
  ExpectRewritten(R"(
HloModule m
ENTRY e {
  a = f32[3,7,9] parameter(0)
  b = f32[3,5,9] parameter(1)
  c = f32[3,7,5] parameter(2)
  bias = f32[5] parameter(3)
  g = (f32[3,7,5], s8[65]) custom-call(a, b, c, bias), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"alpha_real":0.75,"alpha_imag":0,"beta":1.5,"dot_dimension_numbers":{"lhs_batch_dimensions":["0"],"rhs_batch_dimensions":["0"],"lhs_contracting_dimensions":["2"],"rhs_contracting_dimensions":["2"]},"precision_config":{"operand_precision":["HIGHEST","HIGHEST"]},"epilogue":"BIAS_RELU"}}
  ROOT r = f32[3,7,5] get-tuple-element(g), index=0
})");
}

TEST(GemmCustomCallRewriter, GemmWithGelu) {
  ExpectRewritten(R"(
HloModule m
ENTRY e {
  a = f32[11,6] parameter(0)
  b = f32[6,13] parameter(1)
  ROOT g = f32[11,13] custom-call(a, b), custom_call_target="__cublas$gemm", backend_config={"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"]},"epilogue":"GELU"}
})");
}

TEST(GemmCustomCallRewriter, Fp8CallScalesTheF32SumBeforeRounding) {
  // XLA's FP8 form: a, b, a_scale, b_scale; bf16 result; odd sizes.
  ExpectRewritten(R"(
HloModule m
ENTRY e {
  a = f8e4m3fn[7,9] parameter(0)
  b = f8e5m2[5,9] parameter(1)
  sa = f32[] parameter(2)
  sb = f32[] parameter(3)
  ROOT g = bf16[7,5] custom-call(a, b, sa, sb), custom_call_target="__cublas$lt$matmul$f8", backend_config={"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["1"]},"epilogue":"DEFAULT"}
})");
}

TEST(GemmCustomCallRewriter, Fp8CallWithANonScalarScaleIsRefused) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(R"(
HloModule m
ENTRY e {
  a = f8e4m3fn[4,4] parameter(0)
  sa = f32[4] parameter(1)
  ROOT g = f32[4,4] custom-call(a, a, sa, sa), custom_call_target="__cublas$lt$matmul$f8", backend_config={"alpha_real":1,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["1"]}}
})");
  ASSERT_TRUE(module.ok()) << module.status();
  GemmCustomCallRewriter pass;
  absl::StatusOr<bool> changed = pass.Run(module->get());
  ASSERT_FALSE(changed.ok());
  EXPECT_NE(std::string(changed.status().message()).find("must be an f32 scalar"),
            std::string::npos)
      << changed.status();
}

TEST(GemmCustomCallRewriter, UnknownEpilogueIsRefusedByName) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(R"(
HloModule m
ENTRY e {
  a = f32[2,2] parameter(0)
  ROOT g = f32[2,2] custom-call(a, a), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"alpha_real":1,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"]},"epilogue":"SILU"}}
})");
  ASSERT_TRUE(module.ok()) << module.status();
  GemmCustomCallRewriter pass;
  absl::StatusOr<bool> changed = pass.Run(module->get());
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(std::string(changed.status().message()).find("'SILU'"), std::string::npos)
      << changed.status();
}

}  // namespace
}  // namespace xla
