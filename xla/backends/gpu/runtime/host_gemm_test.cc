// HostGemm against a naive triple loop in double precision: odd sizes,
// random data, transposes, batch strides, alpha and beta, f32/f64/f16/bf16.
#include "xla/backends/gpu/runtime/host_gemm.h"

#include <random>
#include <vector>

#include "Eigen/Core"
#include "gtest/gtest.h"

namespace xla::gpu {
namespace {

template <typename T>
std::vector<T> Random(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(dist(rng));
  return v;
}

// Reference: out[b] = alpha * op(lhs[b]) op(rhs[b]) + beta * out[b].
template <typename T>
std::vector<double> Naive(const GemmConfig& c, const std::vector<T>& lhs, const std::vector<T>& rhs,
                          const std::vector<T>& out) {
  std::vector<double> result(out.begin(), out.end());
  for (int64_t b = 0; b < c.batch_size; ++b) {
    for (int64_t i = 0; i < c.m; ++i) {
      for (int64_t j = 0; j < c.n; ++j) {
        double sum = 0;
        for (int64_t k = 0; k < c.k; ++k) {
          const double l = static_cast<double>(lhs[b * c.lhs_batch_stride + (c.transpose_lhs ? k * c.m + i : i * c.k + k)]);
          const double r = static_cast<double>(rhs[b * c.rhs_batch_stride + (c.transpose_rhs ? j * c.k + k : k * c.n + j)]);
          sum += l * r;
        }
        double& o = result[b * c.output_batch_stride + i * c.n + j];
        o = c.alpha * sum + (c.beta == 0 ? 0 : c.beta * o);
      }
    }
  }
  return result;
}

template <typename T>
void Check(PrimitiveType type, bool tl, bool tr, int64_t batch, double alpha, double beta, double tol) {
  std::mt19937 rng(static_cast<unsigned>(batch * 7 + tl * 2 + tr));
  GemmConfig c;
  c.element_type = type;
  c.m = 33;
  c.n = 17;
  c.k = 9;
  c.transpose_lhs = tl;
  c.transpose_rhs = tr;
  c.batch_size = batch;
  c.lhs_batch_stride = c.m * c.k + 3;  // padding between batches
  c.rhs_batch_stride = c.k * c.n;
  c.output_batch_stride = c.m * c.n + 1;
  c.alpha = alpha;
  c.beta = beta;
  auto lhs = Random<T>(batch * c.lhs_batch_stride, rng);
  auto rhs = Random<T>(batch * c.rhs_batch_stride, rng);
  auto out = Random<T>(batch * c.output_batch_stride, rng);
  std::vector<double> expected = Naive(c, lhs, rhs, out);
  ASSERT_TRUE(HostGemm(c, lhs.data(), rhs.data(), out.data()).ok());
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t e = 0; e < c.m * c.n; ++e) {
      const int64_t i = b * c.output_batch_stride + e;
      ASSERT_NEAR(static_cast<double>(out[i]), expected[i], tol) << "batch " << b << " element " << e;
    }
  }
}

TEST(HostGemm, F32AllTransposes) {
  for (bool tl : {false, true}) {
    for (bool tr : {false, true}) Check<float>(PrimitiveType::F32, tl, tr, 3, 1.5, 0.25, 1e-5);
  }
}

TEST(HostGemm, F64BetaZeroIgnoresOutput) { Check<double>(PrimitiveType::F64, true, false, 2, -2, 0, 1e-12); }

TEST(HostGemm, F16AccumulatesInF32) {
  Check<Eigen::half>(PrimitiveType::F16, false, true, 2, 1, 0.5, 2e-2);
}

TEST(HostGemm, BF16AccumulatesInF32) {
  Check<Eigen::bfloat16>(PrimitiveType::BF16, true, true, 1, 0.5, 1, 6e-2);
}

TEST(HostGemm, RejectsIntegers) {
  GemmConfig c;
  c.element_type = PrimitiveType::S32;
  EXPECT_EQ(HostGemm(c, nullptr, nullptr, nullptr).code(), absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace xla::gpu
