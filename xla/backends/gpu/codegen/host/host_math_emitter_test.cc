// HostMathEmitter's f32 exp and tanh in a host loop kernel against the
// reference evaluator (f64, rounded once): special values bit-exact, dense
// sweeps within a few ulp, and (exp) subnormal results.
#include "xla/backends/gpu/codegen/host/host_math_emitter.h"

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/codegen/host/host_fusion_test_util.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/types/literal.h"
#include "xla/types/shape.h"

namespace xla::gpu {
namespace {

// Distance in representable f32 values (both finite or equal).
int64_t UlpDistance(float a, float b) {
  auto key = [](float f) {
    int32_t i;
    std::memcpy(&i, &f, sizeof(i));
    return i < 0 ? -static_cast<int64_t>(i & 0x7fffffff) : static_cast<int64_t>(i);
  };
  return std::llabs(key(a) - key(b));
}

// Runs the unary `op` over `values` in one host loop kernel.
absl::StatusOr<FusionRun> RunUnaryKernel(const std::string& op, const std::vector<float>& values) {
  const int64_t n = static_cast<int64_t>(values.size());
  const std::string text = absl::StrCat(
      "HloModule m\nfused {\n  p = f32[", n, "] parameter(0)\n  ROOT e = f32[", n, "] ", op,
      "(p)\n}\nENTRY e {\n  p = f32[", n, "] parameter(0)\n  ROOT f = f32[", n,
      "] fusion(p), kind=kLoop, calls=fused\n}\n");
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
  if (!m.ok()) return m.status();
  Literal input(Shape::Array(PrimitiveType::F32, {n}));
  for (int64_t i = 0; i < n; ++i) input.SetDouble(i, values[i]);
  FusionRunOptions options;
  options.inputs.push_back(std::move(input));
  return RunFusionOnHost(**m, options);
}

// RunUnaryKernel's results: {evaluator, kernel}.
std::pair<std::vector<float>, std::vector<float>> RunUnary(const std::string& op,
                                                           const std::vector<float>& values) {
  absl::StatusOr<FusionRun> run = RunUnaryKernel(op, values);
  EXPECT_TRUE(run.ok()) << run.status();
  if (!run.ok()) return {};
  std::pair<std::vector<float>, std::vector<float>> out;
  for (size_t i = 0; i < values.size(); ++i) {
    out.first.push_back(static_cast<float>(run->expected.GetDouble(i)));
    out.second.push_back(static_cast<float>(run->actual.GetDouble(i)));
  }
  return out;
}

TEST(HostMathEmitter, ExpSpecialValuesAreExact) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> values = {0.0f,   -0.0f, inf,     -inf,    89.0f,  88.73f, 100.0f,
                                     -104.0f, -200.0f, 1.0f, -1.0f, 1e-30f, -1e-30f};
  auto [want, got] = RunUnary("exponential", values);
  ASSERT_EQ(got.size(), values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(want[i], got[i]) << "exp(" << values[i] << ")";
    EXPECT_EQ(std::signbit(want[i]), std::signbit(got[i])) << values[i];
  }
  auto [nan_want, nan_got] = RunUnary("exponential", {std::numeric_limits<float>::quiet_NaN(), -std::nanf("")});
  ASSERT_EQ(nan_got.size(), 2u);
  EXPECT_TRUE(std::isnan(nan_got[0]));
  EXPECT_TRUE(std::isnan(nan_got[1]));
}

TEST(HostMathEmitter, ExpWithinTwoUlpOverTheFiniteRange) {
  // 100,003 points (an odd count: the vectorized loop's remainder runs too)
  // spread over [-104, 89], where the result is neither 0 nor infinity,
  // then the subnormal results [-103.9, -87.4].
  std::vector<float> values;
  const int64_t count = 100003;
  for (int64_t i = 0; i < count; ++i) values.push_back(-104.0f + 193.0f * i / (count - 1));
  for (int64_t i = 0; i < 1001; ++i) values.push_back(-103.9f + 16.5f * i / 1000);
  auto [want, got] = RunUnary("exponential", values);
  ASSERT_EQ(got.size(), values.size());
  int64_t worst = 0, exact = 0;
  size_t worst_at = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const int64_t d = UlpDistance(want[i], got[i]);
    exact += d == 0;
    if (d > worst) {
      worst = d;
      worst_at = i;
    }
  }
  EXPECT_LE(worst, 2) << "exp(" << values[worst_at] << "): want " << want[worst_at] << " got "
                      << got[worst_at];
  // Most results are the correctly rounded ones.
  EXPECT_GT(exact, static_cast<int64_t>(values.size()) * 7 / 10);
  std::printf("exp f32: worst %lld ulp at %g; %lld of %zu exact\n",
              static_cast<long long>(worst), values[worst_at], static_cast<long long>(exact),
              values.size());
}

TEST(HostMathEmitter, ExpNeverComputesASubnormalValue) {
  // Results from 0 through the subnormal range to just above FLT_MIN: an
  // instruction with a subnormal (tiny, inexact) result raises FE_UNDERFLOW
  // and costs a microcode assist on x86-64 (3x the whole softmax exp loop,
  // docs/perf.md). The subnormal results themselves are built from their
  // bits, so the flag stays clear and they are still within 1 ulp.
  std::vector<float> values;
  for (int64_t i = 0; i < 4099; ++i) values.push_back(-110.0f + 23.0f * i / 4098);
  const int64_t n = static_cast<int64_t>(values.size());
  absl::StatusOr<FusionRun> r = RunUnaryKernel("exponential", values);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->raised_fp_exceptions & FE_UNDERFLOW, 0);
  int64_t subnormal = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float want = static_cast<float>(r->expected.GetDouble(i));
    const float got = static_cast<float>(r->actual.GetDouble(i));
    subnormal += want != 0 && std::fpclassify(want) == FP_SUBNORMAL;
    EXPECT_LE(UlpDistance(want, got), 1) << "exp(" << values[i] << "): want " << want << " got " << got;
  }
  EXPECT_GT(subnormal, n / 2);
}

TEST(HostMathEmitter, TanhSpecialValuesAreExact) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> values = {0.0f, -0.0f, inf, -inf, 50.0f, -50.0f, 1e-30f, -1e-30f};
  auto [want, got] = RunUnary("tanh", values);
  ASSERT_EQ(got.size(), values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(want[i], got[i]) << "tanh(" << values[i] << ")";
    EXPECT_EQ(std::signbit(want[i]), std::signbit(got[i])) << values[i];
  }
  auto [nan_want, nan_got] = RunUnary("tanh", {std::nanf("")});
  ASSERT_EQ(nan_got.size(), 1u);
  EXPECT_TRUE(std::isnan(nan_got[0]));
}

TEST(HostMathEmitter, TanhWithinThreeUlp) {
  // An odd count over [-12, 12] (both branches and the switch at |x| = 0.5),
  // plus tiny arguments where the series must keep relative accuracy.
  std::vector<float> values;
  const int64_t count = 50001;
  for (int64_t i = 0; i < count; ++i) values.push_back(-12.0f + 24.0f * i / (count - 1));
  for (int64_t i = 0; i < 999; ++i) values.push_back(std::ldexp(1.0f, -(static_cast<int>(i) % 60)) * 0.37f);
  auto [want, got] = RunUnary("tanh", values);
  ASSERT_EQ(got.size(), values.size());
  int64_t worst = 0;
  size_t worst_at = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const int64_t d = UlpDistance(want[i], got[i]);
    if (d > worst) {
      worst = d;
      worst_at = i;
    }
  }
  EXPECT_LE(worst, 3) << "tanh(" << values[worst_at] << "): want " << want[worst_at] << " got "
                      << got[worst_at];
  std::printf("tanh f32: worst %lld ulp at %g\n", static_cast<long long>(worst),
              values[worst_at]);
}

}  // namespace
}  // namespace xla::gpu
