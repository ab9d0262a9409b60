// BatchNormExpander tests. The oracle is an independent f64 implementation
// of the batch-norm definitions written here (plus hand-computed values for
// a tiny case); the expanded module runs in the evaluator on random inputs
// and is compared against it. (The evaluator's own batch-norm kernels,
// batch_norm_ops.cc, are checked against this expander in their test.)
#include "xla/hlo/transforms/batch_norm_expander.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::CountOpcode;
using pass_test::PassResult;
using pass_test::RunPassOnly;

std::vector<double> Values(const Literal& l) {
  std::vector<double> v(l.element_count());
  for (int64_t i = 0; i < l.element_count(); ++i) v[i] = l.GetDouble(i);
  return v;
}

// Feature of each linear (row-major) element of `shape`.
std::vector<int64_t> FeatureOf(const Shape& shape, int64_t feature_index) {
  int64_t stride = 1, count = 1;
  for (int64_t d = feature_index + 1; d < shape.rank(); ++d) stride *= shape.dimensions()[d];
  for (int64_t d : shape.dimensions()) count *= d;
  const int64_t f = shape.dimensions()[feature_index];
  std::vector<int64_t> out(count);
  for (int64_t i = 0; i < count; ++i) out[i] = (i / stride) % f;
  return out;
}

// Per-feature sums of `v`.
std::vector<double> Sum(const std::vector<double>& v, const std::vector<int64_t>& feat, int64_t f) {
  std::vector<double> s(f, 0.0);
  for (size_t i = 0; i < v.size(); ++i) s[feat[i]] += v[i];
  return s;
}

// Expects `actual` within `tol` of `expected`, relative to the larger of
// the element and the largest magnitude of `expected` (cancellation makes
// small elements of normalized outputs legitimately less precise).
void ExpectNear(const std::vector<double>& expected, const Literal& actual, double tol,
                const std::string& what) {
  ASSERT_EQ(static_cast<int64_t>(expected.size()), actual.element_count()) << what;
  double mag = 0;
  for (double e : expected) mag = std::max(mag, std::fabs(e));
  int64_t bad = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    const double a = actual.GetDouble(i);
    if (std::fabs(a - expected[i]) <= tol * std::max(mag, 1e-30)) continue;
    if (bad++ < 3) ADD_FAILURE() << what << "[" << i << "]: expected " << expected[i] << " got " << a;
  }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << expected.size() << " elements differ";
}

struct Case {
  std::string op;  // "training", "inference", "grad"
  std::string type;
  std::vector<int64_t> dims;
  int64_t feature_index;
  double epsilon;
};

std::string ShapeText(const std::string& type, const std::vector<int64_t>& dims) {
  std::string s = type + "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

std::string ModuleText(const Case& c) {
  const std::string x = ShapeText(c.type, c.dims);
  const std::string f = ShapeText(c.type, {c.dims[c.feature_index]});
  const std::string attrs =
      absl::StrCat("epsilon=", c.epsilon, ", feature_index=", c.feature_index);
  if (c.op == "training") {
    return absl::StrCat("HloModule bn\nENTRY e {\n  x = ", x, " parameter(0)\n  s = ", f,
                        " parameter(1)\n  o = ", f, " parameter(2)\n  ROOT bn = (", x, ", ", f, ", ", f,
                        ") batch-norm-training(x, s, o), ", attrs, "\n}\n");
  }
  if (c.op == "inference") {
    return absl::StrCat("HloModule bn\nENTRY e {\n  x = ", x, " parameter(0)\n  s = ", f,
                        " parameter(1)\n  o = ", f, " parameter(2)\n  m = ", f,
                        " parameter(3)\n  v = ", f, " parameter(4)\n  ROOT bn = ", x,
                        " batch-norm-inference(x, s, o, m, v), ", attrs, "\n}\n");
  }
  return absl::StrCat("HloModule bn\nENTRY e {\n  x = ", x, " parameter(0)\n  s = ", f,
                      " parameter(1)\n  m = ", f, " parameter(2)\n  v = ", f,
                      " parameter(3)\n  g = ", x, " parameter(4)\n  ROOT bn = (", x, ", ", f, ", ", f,
                      ") batch-norm-grad(x, s, m, v, g), ", attrs, "\n}\n");
}

// Runs the pass on `c`'s module, evaluates the result on random inputs
// (variances made positive) and compares with the f64 reference.
void CheckCase(const Case& c, uint64_t seed) {
  SCOPED_TRACE(absl::StrCat(c.op, " ", ShapeText(c.type, c.dims), " feature_index=",
                            c.feature_index, " seed=", seed));
  BatchNormExpander pass;
  PassResult r = RunPassOnly(pass, ModuleText(c));
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kBatchNormTraining) +
                CountOpcode(*r.module, HloOpcode::kBatchNormInference) +
                CountOpcode(*r.module, HloOpcode::kBatchNormGrad),
            0);
  EXPECT_GE(CountOpcode(*r.module, HloOpcode::kReduce), c.op == "inference" ? 0 : 2);

  absl::StatusOr<std::vector<Literal>> args = MakeRandomInputs(*r.module, seed);
  ASSERT_TRUE(args.ok()) << args.status();
  const int var_param = c.op == "inference" ? 4 : c.op == "grad" ? 3 : -1;
  if (var_param >= 0) {
    Literal& v = (*args)[var_param];
    for (int64_t i = 0; i < v.element_count(); ++i) v.SetDouble(i, std::fabs(v.GetDouble(i)) + 0.25);
  }
  absl::StatusOr<Literal> out = HloEvaluator().Evaluate(*r.module, *args);
  ASSERT_TRUE(out.ok()) << out.status();

  const Shape& xs = (*args)[0].shape();
  const int64_t f = c.dims[c.feature_index];
  const std::vector<int64_t> feat = FeatureOf(xs, c.feature_index);
  const double n = static_cast<double>(feat.size()) / f;
  const std::vector<double> x = Values((*args)[0]);
  const std::vector<double> scale = Values((*args)[1]);
  const double tol = c.type == "f32" ? 2e-5 : 2e-2;

  if (c.op == "training" || c.op == "inference") {
    const std::vector<double> offset = Values((*args)[2]);
    std::vector<double> mean(f), var(f, 0.0);
    if (c.op == "training") {
      std::vector<double> s = Sum(x, feat, f);
      for (int64_t k = 0; k < f; ++k) mean[k] = s[k] / n;
      for (size_t i = 0; i < x.size(); ++i) var[feat[i]] += (x[i] - mean[feat[i]]) * (x[i] - mean[feat[i]]) / n;
    } else {
      mean = Values((*args)[3]);
      var = Values((*args)[4]);
    }
    std::vector<double> y(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      const int64_t k = feat[i];
      y[i] = (x[i] - mean[k]) / std::sqrt(var[k] + c.epsilon) * scale[k] + offset[k];
    }
    if (c.op == "inference") {
      ExpectNear(y, *out, tol, "output");
      return;
    }
    ASSERT_EQ(out->tuple_elements().size(), 3u);
    ExpectNear(y, out->tuple_elements()[0], tol, "output");
    ExpectNear(mean, out->tuple_elements()[1], tol, "batch_mean");
    ExpectNear(var, out->tuple_elements()[2], tol, "batch_var");
    return;
  }
  // grad: derivative of y = (x - mean) * scale / sqrt(var + eps) + offset
  // with mean and var the batch statistics, evaluated at the given mean/var.
  const std::vector<double> mean = Values((*args)[2]);
  const std::vector<double> var = Values((*args)[3]);
  const std::vector<double> g = Values((*args)[4]);
  std::vector<double> gc(x.size());
  for (size_t i = 0; i < x.size(); ++i) gc[i] = g[i] * (x[i] - mean[feat[i]]);
  const std::vector<double> sum_g = Sum(g, feat, f);
  const std::vector<double> sum_gc = Sum(gc, feat, f);
  std::vector<double> grad_scale(f), grad_x(x.size());
  for (int64_t k = 0; k < f; ++k) grad_scale[k] = sum_gc[k] / std::sqrt(var[k] + c.epsilon);
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t k = feat[i];
    const double ve = var[k] + c.epsilon;
    grad_x[i] = scale[k] / std::sqrt(ve) *
                (g[i] - sum_g[k] / n - (x[i] - mean[k]) * sum_gc[k] / (n * ve));
  }
  ASSERT_EQ(out->tuple_elements().size(), 3u);
  ExpectNear(grad_x, out->tuple_elements()[0], tol, "grad_operand");
  ExpectNear(grad_scale, out->tuple_elements()[1], tol, "grad_scale");
  ExpectNear(sum_g, out->tuple_elements()[2], tol, "grad_offset");
}

TEST(BatchNormExpander, TrainingMatchesReference) {
  for (const Case& c : {Case{"training", "f32", {3, 5, 7, 11}, 3, 1e-3},
                        Case{"training", "f32", {3, 5, 7, 11}, 1, 1e-5},
                        Case{"training", "f32", {7, 3}, 0, 0.5},
                        Case{"training", "bf16", {3, 5, 7, 11}, 1, 1e-3}}) {
    for (uint64_t seed : {1, 2}) CheckCase(c, seed);
  }
}

TEST(BatchNormExpander, InferenceMatchesReference) {
  for (const Case& c : {Case{"inference", "f32", {3, 5, 7, 11}, 3, 1e-3},
                        Case{"inference", "f32", {3, 5, 7, 11}, 1, 1e-5},
                        Case{"inference", "bf16", {3, 5, 7, 11}, 3, 1e-3},
                        Case{"inference", "f16", {5, 3, 7}, 1, 1e-3}}) {
    for (uint64_t seed : {1, 2}) CheckCase(c, seed);
  }
}

TEST(BatchNormExpander, GradMatchesReference) {
  for (const Case& c : {Case{"grad", "f32", {3, 5, 7, 11}, 3, 1e-3},
                        Case{"grad", "f32", {3, 5, 7, 11}, 1, 1e-5},
                        Case{"grad", "bf16", {3, 5, 7, 11}, 1, 1e-3}}) {
    for (uint64_t seed : {1, 2}) CheckCase(c, seed);
  }
}

// Hand-computed: x = {{1, 2}, {3, 6}}, feature_index=1: mean {2, 4},
// var {1, 4}; with scale {2, 1}, offset {0.5, -1}, epsilon 0:
// out = {{-1.5, -2}, {2.5, 0}}.
TEST(BatchNormExpander, TrainingHandComputed) {
  BatchNormExpander pass;
  PassResult r = RunPassOnly(pass, R"(
HloModule bn
ENTRY e {
  x = f32[2,2] constant({{1, 2}, {3, 6}})
  s = f32[2] constant({2, 1})
  o = f32[2] constant({0.5, -1})
  ROOT bn = (f32[2,2], f32[2], f32[2]) batch-norm-training(x, s, o), epsilon=0, feature_index=1
})");
  ASSERT_NE(r.module, nullptr);
  absl::StatusOr<Literal> out = HloEvaluator().Evaluate(*r.module, {});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->tuple_elements().size(), 3u);
  EXPECT_EQ(Values(out->tuple_elements()[0]), (std::vector<double>{-1.5, -2, 2.5, 0}));
  EXPECT_EQ(Values(out->tuple_elements()[1]), (std::vector<double>{2, 4}));
  EXPECT_EQ(Values(out->tuple_elements()[2]), (std::vector<double>{1, 4}));
}

// The batch-norm result feeding other instructions (get-tuple-element) is
// rewired; a module without batch norms is left unchanged.
TEST(BatchNormExpander, UsersRewiredAndNoOpWithoutBatchNorm) {
  BatchNormExpander pass;
  PassResult r = RunPassOnly(pass, R"(
HloModule bn
ENTRY e {
  x = f32[4,3] parameter(0)
  s = f32[3] parameter(1)
  o = f32[3] parameter(2)
  bn = (f32[4,3], f32[3], f32[3]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1
  y = f32[4,3] get-tuple-element(bn), index=0
  ROOT n = f32[4,3] negate(y)
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kBatchNormTraining), 0);
  EXPECT_TRUE(pass_test::Contains(r.text, "to_apply=batch_norm_add_f32"));

  PassResult none = RunPassOnly(pass, R"(
HloModule nobn
ENTRY e {
  x = f32[4] parameter(0)
  ROOT n = f32[4] negate(x)
})");
  EXPECT_FALSE(none.changed);
}

}  // namespace
}  // namespace xla
