// Tests of XLA's xla_builder.matrix.Einsum custom call in the evaluator
// against loops written here: a matrix product, the corpus's diagonal
// forms (a repeated label in an operand and in the output), a transpose, a
// full sum, and refusals.
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

Literal RandomLiteral(std::vector<int64_t> dims, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  Literal l(Shape::Array(PrimitiveType::F32, dims));
  for (int64_t i = 0; i < l.element_count(); ++i) l.SetDouble(i, dist(gen));
  return l;
}

Literal Eval(const std::string& hlo, const std::vector<Literal>& args) {
  absl::StatusOr<Literal> r = EvalText(hlo, args);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? std::move(*r) : Literal();
}

TEST(EinsumTest, MatrixProduct) {
  const Literal a = RandomLiteral({3, 5}, 1), b = RandomLiteral({5, 7}, 2);
  const Literal r = Eval(R"(
ENTRY e {
  a = f32[3,5] parameter(0)
  b = f32[5,7] parameter(1)
  ROOT c = f32[3,7] custom-call(a, b), custom_call_target="xla_builder.matrix.Einsum", backend_config="ij,jk->ik"
})", {a, b});
  std::vector<double> want;
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t k = 0; k < 7; ++k) {
      double s = 0;
      for (int64_t j = 0; j < 5; ++j) s += a.GetDouble(i * 5 + j) * b.GetDouble(j * 7 + k);
      want.push_back(static_cast<float>(s));
    }
  }
  EXPECT_EQ(Values(r), want);
}

TEST(EinsumTest, DiagonalOfAProduct) {
  // "ii,ii->i": out[i] = a[i,i] * b[i,i] (the corpus's einsum_diag).
  const Literal a = RandomLiteral({5, 5}, 3), b = RandomLiteral({5, 5}, 4);
  const Literal r = Eval(R"(
ENTRY e {
  a = f32[5,5] parameter(0)
  b = f32[5,5] parameter(1)
  ROOT c = f32[5] custom-call(a, b), custom_call_target="xla_builder.matrix.Einsum", backend_config="ii,ii->i"
})", {a, b});
  std::vector<double> want;
  for (int64_t i = 0; i < 5; ++i) {
    want.push_back(static_cast<float>(a.GetDouble(i * 6) * b.GetDouble(i * 6)));
  }
  EXPECT_EQ(Values(r), want);
}

TEST(EinsumTest, RepeatedOutputLabelWritesTheDiagonal) {
  // "i,ij->ii": out[i,i] = v[i] * m[i,i]; zeros elsewhere.
  const Literal v = RandomLiteral({3}, 5), m = RandomLiteral({3, 3}, 6);
  const Literal r = Eval(R"(
ENTRY e {
  v = f32[3] parameter(0)
  m = f32[3,3] parameter(1)
  ROOT c = f32[3,3] custom-call(v, m), custom_call_target="xla_builder.matrix.Einsum", backend_config="i,ij->ii"
})", {v, m});
  std::vector<double> want(9, 0.0);
  for (int64_t i = 0; i < 3; ++i) {
    double s = 0;
    for (int64_t j = 0; j < 3; ++j) s += v.GetDouble(i) * m.GetDouble(i * 3 + j);
    want[i * 4] = static_cast<float>(s);
  }
  EXPECT_EQ(Values(r), want);
}

TEST(EinsumTest, TransposeAndFullSum) {
  const Literal a = RandomLiteral({3, 4}, 7);
  const Literal t = Eval(R"(
ENTRY e {
  a = f32[3,4] parameter(0)
  ROOT c = f32[4,3] custom-call(a), custom_call_target="xla_builder.matrix.Einsum", backend_config="ij->ji"
})", {a});
  const Literal s = Eval(R"(
ENTRY e {
  a = f32[3,4] parameter(0)
  ROOT c = f32[] custom-call(a), custom_call_target="xla_builder.matrix.Einsum", backend_config="ij->"
})", {a});
  std::vector<double> want;
  double sum = 0;
  for (int64_t j = 0; j < 4; ++j) {
    for (int64_t i = 0; i < 3; ++i) want.push_back(a.GetDouble(i * 4 + j));
  }
  for (int64_t i = 0; i < 12; ++i) sum += a.GetDouble(i);
  EXPECT_EQ(Values(t), want);
  EXPECT_EQ(Values(s), std::vector<double>{static_cast<float>(sum)});
}

TEST(EinsumTest, EllipsisAndMismatchedLabelsAreRefused) {
  const Literal a = RandomLiteral({3, 4}, 8);
  absl::StatusOr<Literal> ellipsis = EvalText(R"(
ENTRY e {
  a = f32[3,4] parameter(0)
  ROOT c = f32[3,4] custom-call(a), custom_call_target="xla_builder.matrix.Einsum", backend_config="...->..."
})", {a});
  ASSERT_FALSE(ellipsis.ok());
  EXPECT_NE(std::string(ellipsis.status().message()).find("ellipses"), std::string::npos);
  absl::StatusOr<Literal> diag = EvalText(R"(
ENTRY e {
  a = f32[3,4] parameter(0)
  ROOT c = f32[3] custom-call(a), custom_call_target="xla_builder.matrix.Einsum", backend_config="ii->i"
})", {a});
  ASSERT_FALSE(diag.ok());
  EXPECT_NE(std::string(diag.status().message()).find("has sizes 3 and 4"), std::string::npos)
      << diag.status();
}

}  // namespace
}  // namespace xla
