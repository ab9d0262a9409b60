// Tests of XLA:GPU's GEMM custom calls in the evaluator against naive loops
// written here: the corpus's own backend_config text, alpha/beta with c,
// bias plus relu and gelu epilogues, a workspace tuple, and refusals.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla/hlo/evaluator/evaluator_test_util.h"

namespace xla {
namespace {

using evaluator_test::EvalText;
using evaluator_test::Values;

Literal RandomLiteral(PrimitiveType type, std::vector<int64_t> dims, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  Literal l(Shape::Array(type, dims));
  for (int64_t i = 0; i < l.element_count(); ++i) l.SetDouble(i, dist(gen));
  return l;
}

// a [m, k] x b [k, n] in f64.
std::vector<double> MatMul(const Literal& a, const Literal& b, int64_t m, int64_t k, int64_t n) {
  std::vector<double> out;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t x = 0; x < k; ++x) s += a.GetDouble(i * k + x) * b.GetDouble(x * n + j);
      out.push_back(s);
    }
  }
  return out;
}

TEST(GemmCustomCallTest, CorpusLtMatmulIsTheDot) {
  // The text of backends/gpu/tests/kernel_reuse (escaped JSON, wrapped).
  const Literal a = RandomLiteral(PrimitiveType::F32, {5, 5}, 1);
  absl::StatusOr<Literal> r = EvalText(R"(
ENTRY e {
  a = f32[5,5]{1,0} parameter(0)
  ROOT c = f32[5,5]{1,0} custom-call(a, a), custom_call_target="__cublas$lt$matmul", backend_config="{ \"gemm_backend_config\": {\"alpha_real\":1,\"beta\":0,\"dot_dimension_numbers\":{\"lhs_contracting_dimensions\":[\"1\"],\"rhs_contracting_dimensions\":[\"0\"],\"lhs_batch_dimensions\":[],\"rhs_batch_dimensions\":[]},\"alpha_imag\":0,\"precision_config\":{\"operand_precision\":[\"DEFAULT\",\"DEFAULT\"]},\"epilogue\":\"DEFAULT\"}}"
})", {a});
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<double> want;
  for (double v : MatMul(a, a, 5, 5, 5)) want.push_back(static_cast<float>(v));
  EXPECT_EQ(Values(*r), want);
}

TEST(GemmCustomCallTest, Fp8CallScalesTheSum) {
  // a [2, 2] x b [1, 2] (stored [n, k]) with scales 0.25 and 3, by hand:
  //   row 0: (2 * 0.5 + -3 * 448) * 0.75 = -1007.25
  //   row 1: (448 * 0.5 + 0.125 * 448) * 0.75 = 210
  Literal a(Shape::Array(PrimitiveType::F8E4M3FN, {2, 2}));
  Literal b(Shape::Array(PrimitiveType::F8E5M2, {1, 2}));
  Literal sa(Shape::Array(PrimitiveType::F32, {}));
  Literal sb(Shape::Array(PrimitiveType::F32, {}));
  const double av[] = {2, -3, 448, 0.125};
  for (int64_t i = 0; i < 4; ++i) a.SetDouble(i, av[i]);
  b.SetDouble(0, 0.5);
  b.SetDouble(1, 448);
  sa.SetDouble(0, 0.25);
  sb.SetDouble(0, 3);
  absl::StatusOr<Literal> r = EvalText(R"(
ENTRY e {
  a = f8e4m3fn[2,2] parameter(0)
  b = f8e5m2[1,2] parameter(1)
  sa = f32[] parameter(2)
  sb = f32[] parameter(3)
  ROOT g = f32[2,1] custom-call(a, b, sa, sb), custom_call_target="__cublas$lt$matmul$f8", backend_config={"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["1"]},"epilogue":"DEFAULT"}
})", {a, b, sa, sb});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values(*r), (std::vector<double>{-1007.25, 210}));
}

TEST(GemmCustomCallTest, AlphaBetaBiasReluWithWorkspaceTuple) {
  // Unwrapped config; b transposed ([n, k], contracting 1); c and bias.
  const Literal a = RandomLiteral(PrimitiveType::F32, {3, 7}, 2);
  const Literal b = RandomLiteral(PrimitiveType::F32, {5, 7}, 3);
  const Literal c = RandomLiteral(PrimitiveType::F32, {3, 5}, 4);
  const Literal bias = RandomLiteral(PrimitiveType::F32, {5}, 5);
  absl::StatusOr<Literal> r = EvalText(R"(
ENTRY e {
  a = f32[3,7] parameter(0)
  b = f32[5,7] parameter(1)
  c = f32[3,5] parameter(2)
  bias = f32[5] parameter(3)
  ROOT g = (f32[3,5], s8[33]) custom-call(a, b, c, bias), custom_call_target="__cublas$lt$matmul", backend_config={"alpha_real":0.5,"alpha_imag":0,"beta":2,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["1"]},"epilogue":"BIAS_RELU"}
})", {a, b, c, bias});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->shape().IsTuple());
  std::vector<double> want;
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 5; ++j) {
      double s = 0;
      for (int64_t x = 0; x < 7; ++x) s += a.GetDouble(i * 7 + x) * b.GetDouble(j * 7 + x);
      const double v = 0.5 * s + 2 * c.GetDouble(i * 5 + j) + bias.GetDouble(j);
      want.push_back(static_cast<float>(v > 0 ? v : 0));
    }
  }
  EXPECT_EQ(Values(r->tuple_elements()[0]), want);
}

TEST(GemmCustomCallTest, GeluEpilogueOnGemm) {
  const Literal a = RandomLiteral(PrimitiveType::F64, {3, 4}, 6);
  const Literal b = RandomLiteral(PrimitiveType::F64, {4, 5}, 7);
  absl::StatusOr<Literal> r = EvalText(R"(
ENTRY e {
  a = f64[3,4] parameter(0)
  b = f64[4,5] parameter(1)
  ROOT g = f64[3,5] custom-call(a, b), custom_call_target="__cublas$gemm", backend_config={"gemm_backend_config":{"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"]},"epilogue":"GELU"}}
})", {a, b});
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<double> want;
  for (double x : MatMul(a, b, 3, 4, 5)) {
    want.push_back(0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x))));
  }
  const std::vector<double> got = Values(*r);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-15) << i;
}

TEST(GemmCustomCallTest, UnknownEpilogueIsRefusedByName) {
  const Literal a = RandomLiteral(PrimitiveType::F32, {2, 2}, 8);
  absl::StatusOr<Literal> r = EvalText(R"(
ENTRY e {
  a = f32[2,2] parameter(0)
  ROOT g = f32[2,2] custom-call(a, a), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"alpha_real":1,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"]},"epilogue":"BIAS_GELU_AUX"}}
})", {a});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message()).find("'BIAS_GELU_AUX'"), std::string::npos)
      << r.status();
}

TEST(GemmCustomCallTest, MissingCOperandIsAnError) {
  const Literal a = RandomLiteral(PrimitiveType::F32, {2, 2}, 9);
  absl::StatusOr<Literal> r = EvalText(R"(
ENTRY e {
  a = f32[2,2] parameter(0)
  ROOT g = f32[2,2] custom-call(a, a), custom_call_target="__cublas$gemm", backend_config={"gemm_backend_config":{"alpha_real":1,"beta":1,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"]}}}
})", {a});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message()).find("expects 3 operands"), std::string::npos)
      << r.status();
}

}  // namespace
}  // namespace xla
