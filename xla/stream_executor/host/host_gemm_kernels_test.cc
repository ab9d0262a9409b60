// The compiled copies of the host GEMM kernels (baseline, AVX2+FMA, AVX-512)
// against a naive double-precision triple loop, on odd sizes, every
// transpose combination, alpha/beta and the direct alpha=1, beta=0 path.
#include "xla/stream_executor/host/host_gemm_kernels.h"

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla/stream_executor/host/host_gemm.h"

namespace stream_executor::host {
namespace {

double Naive(const BlasGemmConfig& c, const std::vector<float>& lhs, const std::vector<float>& rhs,
             double old_out, int64_t i, int64_t j) {
  double sum = 0;
  for (int64_t k = 0; k < c.k; ++k) {
    const double l = lhs[c.transpose_lhs ? k * c.m + i : i * c.k + k];
    const double r = rhs[c.transpose_rhs ? j * c.k + k : k * c.n + j];
    sum += l * r;
  }
  return c.alpha * sum + (c.beta == 0 ? 0 : c.beta * old_out);
}

void CheckTable(const HostGemmKernels& kernels) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (const auto& [alpha, beta] : {std::pair<double, double>{1, 0}, {-0.5, 0.75}}) {
    for (bool tl : {false, true}) {
      for (bool tr : {false, true}) {
        BlasGemmConfig c;
        c.m = 131;
        c.n = 67;
        c.k = 75;
        c.transpose_lhs = tl;
        c.transpose_rhs = tr;
        c.alpha = alpha;
        c.beta = beta;
        std::vector<float> lhs(c.m * c.k), rhs(c.k * c.n), out(c.m * c.n);
        for (float& x : lhs) x = dist(rng);
        for (float& x : rhs) x = dist(rng);
        for (float& x : out) x = dist(rng);
        const std::vector<float> old = out;
        // Four blocks (two row by two column cuts), each written once.
        for (const HostGemmBlock& block :
             {HostGemmBlock{0, 48, 0, 40}, HostGemmBlock{0, 48, 40, c.n - 40},
              HostGemmBlock{48, c.m - 48, 0, 40}, HostGemmBlock{48, c.m - 48, 40, c.n - 40}}) {
          kernels.f32(c, lhs.data(), rhs.data(), out.data(), block);
        }
        for (int64_t i = 0; i < c.m; ++i) {
          for (int64_t j = 0; j < c.n; ++j) {
            ASSERT_NEAR(out[i * c.n + j], Naive(c, lhs, rhs, old[i * c.n + j], i, j), 2e-5)
                << kernels.isa << " tl=" << tl << " tr=" << tr << " alpha=" << alpha << " at ("
                << i << "," << j << ")";
          }
        }
      }
    }
  }
}

TEST(HostGemmKernels, Baseline) {
  EXPECT_EQ(std::string(HostGemmKernelsBaseline().isa), "sse2");
  CheckTable(HostGemmKernelsBaseline());
}

TEST(HostGemmKernels, Avx2Fma) {
  EXPECT_EQ(std::string(HostGemmKernelsAvx2Fma().isa), "avx2+fma");
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    GTEST_SKIP() << "this CPU has no AVX2/FMA; the AVX2 kernels cannot run here";
  }
  CheckTable(HostGemmKernelsAvx2Fma());
}

bool CpuRunsAvx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
}

TEST(HostGemmKernels, Avx512) {
  EXPECT_EQ(std::string(HostGemmKernelsAvx512().isa), "avx512");
  if (!CpuRunsAvx512()) GTEST_SKIP() << "this CPU has no AVX-512 (F, DQ, VL, BW)";
  CheckTable(HostGemmKernelsAvx512());
}

TEST(HostGemmKernels, HostGemmPicksTheWidestTheCpuRuns) {
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const char* env = std::getenv("XLA_HOST_GEMM_ISA");
  if (env != nullptr) GTEST_SKIP() << "XLA_HOST_GEMM_ISA is set";
  EXPECT_EQ(std::string(HostGemmIsa()), CpuRunsAvx512() ? "avx512" : (avx2 ? "avx2+fma" : "sse2"));
}

// The two copies really differ: the AVX2 one fuses multiply-adds, so some
// f32 result differs in the last bits (if they never did, the copies would
// be the same code and the AVX2 build flags would not have taken effect).
TEST(HostGemmKernels, CopiesAreDifferentCode) {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    GTEST_SKIP() << "this CPU has no AVX2/FMA";
  }
  BlasGemmConfig c;
  c.m = 97;
  c.n = 89;
  c.k = 203;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> lhs(c.m * c.k), rhs(c.k * c.n), a(c.m * c.n), b(c.m * c.n);
  for (float& x : lhs) x = dist(rng);
  for (float& x : rhs) x = dist(rng);
  const HostGemmBlock all{0, c.m, 0, c.n};
  HostGemmKernelsBaseline().f32(c, lhs.data(), rhs.data(), a.data(), all);
  HostGemmKernelsAvx2Fma().f32(c, lhs.data(), rhs.data(), b.data(), all);
  EXPECT_NE(a, b);
  if (!CpuRunsAvx512()) return;
  std::vector<float> w(c.m * c.n);
  HostGemmKernelsAvx512().f32(c, lhs.data(), rhs.data(), w.data(), all);
  EXPECT_NE(a, w);
}

}  // namespace
}  // namespace stream_executor::host
