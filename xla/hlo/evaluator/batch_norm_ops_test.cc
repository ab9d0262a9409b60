// Tests of batch-norm-training, -inference and -grad in the evaluator:
// hand-computed values (a tiny case worked out on paper, and [3,5,7]
// operands built so that each feature's mean and variance are known in
// closed form), and agreement with BatchNormExpander (an independent
// implementation in HLO ops) on random inputs for every float type.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "xla/hlo/evaluator/evaluator_test_util.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/batch_norm_expander.h"
#include "xla/hlo/verifier/hlo_verifier.h"

namespace xla {
namespace {

using evaluator_test::EvalText;
using evaluator_test::MakeLiteral;
using evaluator_test::Values;

void ExpectValues(const Literal& l, const std::vector<double>& want, double tol,
                  const std::string& what) {
  const std::vector<double> got = Values(l);
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], tol) << what << " element " << i;
  }
}

// x = {{0,2},{3,5},{6,8}}, feature_index=1, epsilon=3: both features have
// variance 6 (mean 3 and 5), so 1/sqrt(var + epsilon) = 1/3 and the
// centred values are {-3, 0, 3}.
constexpr char kTiny[] = R"(
HloModule m
ENTRY e {
  x = f32[3,2] parameter(0)
  scale = f32[2] parameter(1)
  offset = f32[2] parameter(2)
  mean = f32[2] parameter(3)
  var = f32[2] parameter(4)
  g = f32[3,2] parameter(5)
  tr = (f32[3,2], f32[2], f32[2]) batch-norm-training(x, scale, offset), epsilon=3, feature_index=1
  inf = f32[3,2] batch-norm-inference(x, scale, offset, mean, var), epsilon=3, feature_index=1
  gr = (f32[3,2], f32[2], f32[2]) batch-norm-grad(x, scale, mean, var, g), epsilon=3, feature_index=1
  ROOT t = ((f32[3,2], f32[2], f32[2]), f32[3,2], (f32[3,2], f32[2], f32[2])) tuple(tr, inf, gr)
})";

TEST(BatchNormOps, HandComputedTinyCase) {
  std::vector<Literal> args;
  args.push_back(MakeLiteral(PrimitiveType::F32, {3, 2}, {0, 2, 3, 5, 6, 8}));
  args.push_back(MakeLiteral(PrimitiveType::F32, {2}, {2, -1}));
  args.push_back(MakeLiteral(PrimitiveType::F32, {2}, {0.5, 10}));
  args.push_back(MakeLiteral(PrimitiveType::F32, {2}, {3, 5}));
  args.push_back(MakeLiteral(PrimitiveType::F32, {2}, {6, 6}));
  args.push_back(MakeLiteral(PrimitiveType::F32, {3, 2}, {1, 0, 2, 0, 6, 3}));
  absl::StatusOr<Literal> r = EvalText(kTiny, args);
  ASSERT_TRUE(r.ok()) << r.status();
  const auto& tr = r->tuple_elements()[0].tuple_elements();
  // out = (x - mean) / 3 * scale + offset.
  ExpectValues(tr[0], {-1.5, 11, 0.5, 10, 2.5, 9}, 1e-6, "training out");
  ExpectValues(tr[1], {3, 5}, 1e-6, "training mean");
  ExpectValues(tr[2], {6, 6}, 1e-6, "training var");
  ExpectValues(r->tuple_elements()[1], {-1.5, 11, 0.5, 10, 2.5, 9}, 1e-6, "inference");
  // Feature 0: g = {1,2,6}, c = {-3,0,3}: grad_offset 9, sum(g c) = 15,
  // grad_scale 15/3 = 5, grad_operand = 2/3 (g - 3 - c 15/27) =
  // {-2/9, -2/3, 8/9}. Feature 1: g = {0,0,3}: grad_offset 3, sum(g c) = 9,
  // grad_scale 3, grad_operand = -1/3 (g - 1 - c/3) = {0, 1/3, -1/3}.
  const auto& gr = r->tuple_elements()[2].tuple_elements();
  ExpectValues(gr[0], {-2.0 / 9, 0, -2.0 / 3, 1.0 / 3, 8.0 / 9, -1.0 / 3}, 1e-6, "grad_operand");
  ExpectValues(gr[1], {5, 3}, 1e-6, "grad_scale");
  ExpectValues(gr[2], {9, 3}, 1e-6, "grad_offset");
}

// Training on a [3,5,7] operand whose feature f holds m_f + s_f z with
// z = (r mod 3) - 1, r the element's row-major index among the dimensions
// other than feature_index (1 or 2). Both odd counts (21 and 15) are multiples of 3,
// so each feature has mean m_f and variance s_f^2 * 2/3 exactly, and
// out = z s_f / sqrt(s_f^2 2/3 + epsilon) * scale_f + offset_f.
void CheckClosedFormTraining(int64_t feature_index, PrimitiveType type, double tol) {
  const std::vector<int64_t> dims = {3, 5, 7};
  const int64_t features = dims[feature_index];
  std::vector<double> m(features), s(features), scale(features), offset(features);
  for (int64_t f = 0; f < features; ++f) {
    m[f] = 0.25 * f - 0.75;
    s[f] = 0.5 + 0.125 * f;
    scale[f] = 1.5 - 0.25 * f;
    offset[f] = 0.125 * f;
  }
  std::vector<double> x, z;
  for (int64_t a = 0; a < dims[0]; ++a) {
    for (int64_t b = 0; b < dims[1]; ++b) {
      for (int64_t c = 0; c < dims[2]; ++c) {
        const int64_t idx[3] = {a, b, c};
        int64_t r = 0;
        for (int d = 0; d < 3; ++d) {
          if (d != feature_index) r = r * dims[d] + idx[d];
        }
        const int64_t f = idx[feature_index];
        z.push_back(static_cast<double>(r % 3) - 1);
        x.push_back(m[f] + s[f] * z.back());
      }
    }
  }
  const double epsilon = 0.001;
  std::vector<double> out, var;
  for (int64_t f = 0; f < features; ++f) var.push_back(s[f] * s[f] * 2 / 3);
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t f = feature_index == 1 ? (i / 7) % 5 : i % 7;
    out.push_back(z[i] * s[f] / std::sqrt(var[f] + epsilon) * scale[f] + offset[f]);
  }
  const std::string t(PrimitiveTypeName(type));
  const std::string f = absl::StrCat(features);
  const std::string hlo = absl::StrReplaceAll(R"(
HloModule m
ENTRY e {
  x = $T[3,5,7] parameter(0)
  scale = $T[$F] parameter(1)
  offset = $T[$F] parameter(2)
  ROOT tr = ($T[3,5,7], $T[$F], $T[$F]) batch-norm-training(x, scale, offset), epsilon=0.001, feature_index=$K
})", {{"$T", t}, {"$K", absl::StrCat(feature_index)}, {"$F", f}});
  std::vector<Literal> args;
  args.push_back(MakeLiteral(type, dims, x));
  args.push_back(MakeLiteral(type, {features}, scale));
  args.push_back(MakeLiteral(type, {features}, offset));
  absl::StatusOr<Literal> r = EvalText(hlo, args);
  ASSERT_TRUE(r.ok()) << r.status();
  const std::string what = absl::StrCat(t, " feature_index=", feature_index);
  ExpectValues(r->tuple_elements()[0], out, tol, what + " out");
  ExpectValues(r->tuple_elements()[1], m, tol, what + " mean");
  ExpectValues(r->tuple_elements()[2], var, tol, what + " var");
}

TEST(BatchNormOps, ClosedFormTrainingOnOddShapes) {
  for (int64_t fi : {1, 2}) {
    CheckClosedFormTraining(fi, PrimitiveType::F64, 1e-12);
    CheckClosedFormTraining(fi, PrimitiveType::F32, 1e-6);
  }
}

// Results are rounded to the nearest value of the element type: 1/3 in
// bf16 is 0x3EAB (0x3EAA would be truncation).
TEST(BatchNormOps, RoundsToTheNearestElementValue) {
  const std::string hlo = R"(
HloModule m
ENTRY e {
  x = bf16[3] parameter(0)
  s = bf16[1] parameter(1)
  o = bf16[1] parameter(2)
  m = bf16[1] parameter(3)
  v = bf16[1] parameter(4)
  x2 = bf16[3,1] reshape(x)
  ROOT r = bf16[3,1] batch-norm-inference(x2, s, o, m, v), epsilon=0, feature_index=1
})";
  std::vector<Literal> args;
  args.push_back(MakeLiteral(PrimitiveType::BF16, {3}, {1, 2, -1}));
  args.push_back(MakeLiteral(PrimitiveType::BF16, {1}, {1}));
  args.push_back(MakeLiteral(PrimitiveType::BF16, {1}, {0}));
  args.push_back(MakeLiteral(PrimitiveType::BF16, {1}, {0}));
  args.push_back(MakeLiteral(PrimitiveType::BF16, {1}, {9}));
  absl::StatusOr<Literal> r = EvalText(hlo, args);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->GetBits(0), 0x3EABu);  // 1/3
  EXPECT_EQ(r->GetBits(1), 0x3F2Bu);  // 2/3
  EXPECT_EQ(r->GetBits(2), 0xBEABu);  // -1/3
}

TEST(BatchNormOps, ErrorsNameTheInstruction) {
  const std::string hlo = R"(
HloModule m
ENTRY e {
  x = f32[3,5] parameter(0)
  s = f32[3] parameter(1)
  ROOT tr = (f32[3,5], f32[5], f32[5]) batch-norm-training(x, s, s), epsilon=0.001, feature_index=1
})";
  std::vector<Literal> args;
  args.push_back(MakeLiteral(PrimitiveType::F32, {3, 5}, std::vector<double>(15, 1.5)));
  args.push_back(MakeLiteral(PrimitiveType::F32, {3}, {1, 2, 3}));
  absl::StatusOr<Literal> r = EvalText(hlo, args);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'tr'"), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find("f32[5]"), std::string::npos) << r.status();
}

// All three ops on one operand; the variance is v^2 + 0.5 so it is positive.
std::string ExpanderModule(const std::string& type, const std::vector<int64_t>& dims,
                           int64_t feature_index) {
  std::string shape = absl::StrCat(type, "[", dims[0]);
  for (size_t d = 1; d < dims.size(); ++d) absl::StrAppend(&shape, ",", dims[d]);
  shape += "]";
  const std::string vec = absl::StrCat(type, "[", dims[feature_index], "]");
  return absl::StrReplaceAll(R"(
HloModule m
ENTRY e {
  x = $X parameter(0)
  scale = $V parameter(1)
  offset = $V parameter(2)
  mean = $V parameter(3)
  v = $V parameter(4)
  g = $X parameter(5)
  v2 = $V multiply(v, v)
  half = $T[] constant(0.5)
  halves = $V broadcast(half), dimensions={}
  var = $V add(v2, halves)
  tr = ($X, $V, $V) batch-norm-training(x, scale, offset), epsilon=0.001, feature_index=$K
  inf = $X batch-norm-inference(x, scale, offset, mean, var), epsilon=0.001, feature_index=$K
  gr = ($X, $V, $V) batch-norm-grad(x, scale, mean, var, g), epsilon=0.001, feature_index=$K
  ROOT t = (($X, $V, $V), $X, ($X, $V, $V)) tuple(tr, inf, gr)
})", {{"$X", shape}, {"$V", vec}, {"$T", type}, {"$K", absl::StrCat(feature_index)}});
}

void Flatten(const Literal& l, std::vector<const Literal*>* out) {
  if (!l.shape().IsTuple()) {
    out->push_back(&l);
    return;
  }
  for (const Literal& e : l.tuple_elements()) Flatten(e, out);
}

// Each leaf within `tol` relative to the leaf's largest magnitude.
void ExpectClose(const Literal& expected, const Literal& actual, double tol, const std::string& what) {
  std::vector<const Literal*> e, a;
  Flatten(expected, &e);
  Flatten(actual, &a);
  ASSERT_EQ(e.size(), a.size()) << what;
  for (size_t k = 0; k < e.size(); ++k) {
    const std::vector<double> ev = Values(*e[k]), av = Values(*a[k]);
    ASSERT_EQ(ev.size(), av.size());
    double mag = 1e-30;
    for (double v : ev) mag = std::max(mag, std::fabs(v));
    int bad = 0;
    for (size_t i = 0; i < ev.size(); ++i) {
      if (!(std::fabs(ev[i] - av[i]) <= tol * mag) && ++bad <= 3) {
        ADD_FAILURE() << what << " leaf " << k << " element " << i << ": expander " << ev[i]
                      << ", evaluator " << av[i];
      }
    }
  }
}

TEST(BatchNormOps, AgreesWithBatchNormExpander) {
  struct TypeTol {
    const char* type;
    double tol;
  };
  // The expander computes f16/bf16 in f32 and rounds the result: one
  // rounding step of the element type apart at most.
  const TypeTol types[] = {{"f64", 1e-12}, {"f32", 1e-5}, {"f16", 2e-3}, {"bf16", 1.6e-2}};
  const std::vector<std::pair<std::vector<int64_t>, int64_t>> cases = {
      {{3, 5, 7}, 0}, {{3, 5, 7}, 1}, {{3, 5, 7}, 2}, {{7}, 0}, {{2, 3, 1, 5}, 3}};
  int compared = 0;
  for (const TypeTol& tt : types) {
    for (const auto& [dims, fi] : cases) {
      const std::string hlo = ExpanderModule(tt.type, dims, fi);
      SCOPED_TRACE(hlo);
      absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
      ASSERT_TRUE(module.ok()) << module.status();
      ASSERT_TRUE(VerifyModule(**module).ok()) << VerifyModule(**module);
      for (uint64_t seed : {1, 2}) {
        absl::StatusOr<std::vector<Literal>> args = MakeRandomInputs(**module, seed);
        ASSERT_TRUE(args.ok()) << args.status();
        absl::StatusOr<Literal> direct = HloEvaluator().Evaluate(**module, *args);
        ASSERT_TRUE(direct.ok()) << direct.status();
        absl::StatusOr<std::unique_ptr<HloModule>> expanded = ParseHloModule(hlo);
        ASSERT_TRUE(expanded.ok());
        BatchNormExpander pass;
        ASSERT_TRUE(pass.Run(expanded->get()).ok());
        absl::StatusOr<Literal> reference = HloEvaluator().Evaluate(**expanded, *args);
        ASSERT_TRUE(reference.ok()) << reference.status();
        ExpectClose(*reference, *direct, tt.tol, absl::StrCat(tt.type, " seed ", seed));
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 4 * 5 * 2);
}

}  // namespace
}  // namespace xla
