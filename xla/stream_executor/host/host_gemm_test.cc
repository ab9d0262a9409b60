// HostGemm against a naive triple loop in double precision: odd sizes,
// random data, transposes, batch strides, alpha and beta, f32/f64/f16/bf16.
#include "xla/stream_executor/host/host_gemm.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <thread>
#include <vector>

#include "Eigen/Core"
#include "gtest/gtest.h"
#include "xla/stream_executor/host/host_thread_pool.h"

namespace stream_executor::host {
namespace {

template <typename T>
std::vector<T> Random(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(dist(rng));
  return v;
}

// A GEMM of `type` with these sizes and transposes (strides and scalars
// left for the caller).
BlasGemmConfig Config(BlasElementType type, int64_t m, int64_t n, int64_t k, int64_t batch,
                      bool tl, bool tr) {
  BlasGemmConfig c;
  c.element_type = type;
  c.m = m;
  c.n = n;
  c.k = k;
  c.transpose_lhs = tl;
  c.transpose_rhs = tr;
  c.batch_size = batch;
  return c;
}

// Reference: out[b] = alpha * op(lhs[b]) op(rhs[b]) + beta * out[b].
template <typename T>
std::vector<double> Naive(const BlasGemmConfig& c, const std::vector<T>& lhs, const std::vector<T>& rhs,
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
void Check(BlasElementType type, bool tl, bool tr, int64_t batch, double alpha, double beta, double tol) {
  std::mt19937 rng(static_cast<unsigned>(batch * 7 + tl * 2 + tr));
  BlasGemmConfig c;
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
    for (bool tr : {false, true}) Check<float>(BlasElementType::kF32, tl, tr, 3, 1.5, 0.25, 1e-5);
  }
}

TEST(HostGemm, F64BetaZeroIgnoresOutput) { Check<double>(BlasElementType::kF64, true, false, 2, -2, 0, 1e-12); }

TEST(HostGemm, F16AccumulatesInF32) {
  Check<Eigen::half>(BlasElementType::kF16, false, true, 2, 1, 0.5, 2e-2);
}

TEST(HostGemm, BF16AccumulatesInF32) {
  Check<Eigen::bfloat16>(BlasElementType::kBF16, true, true, 1, 0.5, 1, 6e-2);
}

// A 16-bit GEMM (widened once, an f32 GEMM, rounded once) against the
// naive double product of the same 16-bit inputs: each output within half
// an ulp of its type plus the f32 accumulation error. Odd sizes (1x1x1;
// 3 rows of 257 with k = 5; batch 7 of 17x33x9 with padded lhs batches and
// an rhs shared by all batches), every transpose, alpha and beta, alone and
// on a pool (split into units).
template <typename T>
void CheckHalf(BlasElementType type, int64_t m, int64_t n, int64_t k, int64_t batch, bool tl,
               bool tr, double alpha, double beta, bool pooled) {
  SCOPED_TRACE(::testing::Message() << m << "x" << n << "x" << k << " batch " << batch << " tl "
                                    << tl << " tr " << tr << " beta " << beta << " pooled "
                                    << pooled);
  static HostThreadPool pool(2);
  std::mt19937 rng(static_cast<unsigned>(m * 13 + n * 5 + k + batch + tl * 2 + tr));
  BlasGemmConfig c = Config(type, m, n, k, batch, tl, tr);
  c.lhs_batch_stride = m * k + 2;
  c.rhs_batch_stride = 0;  // one rhs for every batch
  c.output_batch_stride = m * n + 1;
  c.alpha = alpha;
  c.beta = beta;
  auto lhs = Random<T>(batch * c.lhs_batch_stride, rng);
  auto rhs = Random<T>(k * n, rng);
  auto out = Random<T>(batch * c.output_batch_stride, rng);
  const std::vector<double> expected = Naive(c, lhs, rhs, out);
  HostGemmThreading threading;
  if (pooled) {
    threading.pool = &pool;
    threading.min_parallel_macs = 0;
  }
  ASSERT_TRUE(HostGemm(c, lhs.data(), rhs.data(), out.data(), threading).ok());
  const double eps = type == BlasElementType::kBF16 ? 0x1p-8 : 0x1p-11;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t e = 0; e < m * n; ++e) {
      const int64_t i = b * c.output_batch_stride + e;
      ASSERT_NEAR(static_cast<double>(out[i]), expected[i],
                  eps * std::abs(expected[i]) + 1e-6 * static_cast<double>(k + 1))
          << "batch " << b << " element " << e;
    }
  }
}

TEST(HostGemm, HalfTypesWidenOnceAtOddSizes) {
  for (bool pooled : {false, true}) {
    for (bool tl : {false, true}) {
      for (bool tr : {false, true}) {
        CheckHalf<Eigen::bfloat16>(BlasElementType::kBF16, 3, 257, 5, 1, tl, tr, 1, 0, pooled);
        CheckHalf<Eigen::half>(BlasElementType::kF16, 3, 257, 5, 1, tl, tr, -0.5, 0.25, pooled);
        CheckHalf<Eigen::bfloat16>(BlasElementType::kBF16, 17, 33, 9, 7, tl, tr, 0.75, -1, pooled);
        CheckHalf<Eigen::half>(BlasElementType::kF16, 17, 33, 9, 7, tl, tr, 1, 0, pooled);
        CheckHalf<Eigen::bfloat16>(BlasElementType::kBF16, 1, 1, 1, 1, tl, tr, 2, 0.5, pooled);
        CheckHalf<Eigen::half>(BlasElementType::kF16, 1, 1, 1, 1, tl, tr, 1, 0, pooled);
      }
    }
  }
  // A large one after the small ones and a small one after it: the
  // per-thread scratch grows, then serves a smaller GEMM.
  CheckHalf<Eigen::bfloat16>(BlasElementType::kBF16, 130, 200, 300, 2, false, false, 1, 0, true);
  CheckHalf<Eigen::half>(BlasElementType::kF16, 5, 7, 3, 3, true, false, 1, 0.5, true);
}

TEST(HostGemm, RejectsUnknownElementTypes) {
  BlasGemmConfig c;
  c.element_type = static_cast<BlasElementType>(99);  // no such type (s32 has no BLAS form)
  EXPECT_EQ(HostGemm(c, nullptr, nullptr, nullptr).code(), absl::StatusCode::kUnimplemented);
}

// The pooled path against the single-threaded one, byte for byte, on odd
// sizes, every transpose combination, beta 0 and not, batched and not.
template <typename T>
void CheckPooledIsBitwiseSingle(BlasElementType type, int64_t m, int64_t n, int64_t k, int64_t batch,
                                double beta, int64_t min_parallel_macs = 0) {
  static stream_executor::host::HostThreadPool pool(3);
  for (bool tl : {false, true}) {
    for (bool tr : {false, true}) {
      SCOPED_TRACE(::testing::Message() << m << "x" << n << "x" << k << " batch " << batch
                                        << " tl " << tl << " tr " << tr << " beta " << beta);
      std::mt19937 rng(static_cast<unsigned>(m * 31 + n * 7 + k + tl * 2 + tr));
      BlasGemmConfig c = Config(type, m, n, k, batch, tl, tr);
      c.lhs_batch_stride = m * k + 5;
      c.rhs_batch_stride = k * n + 1;
      c.output_batch_stride = m * n + 3;
      c.alpha = 0.75;
      c.beta = beta;
      auto lhs = Random<T>(batch * c.lhs_batch_stride, rng);
      auto rhs = Random<T>(batch * c.rhs_batch_stride, rng);
      auto single = Random<T>(batch * c.output_batch_stride, rng);
      auto pooled = single;
      HostGemmThreading threading;
      threading.min_parallel_macs = min_parallel_macs;
      ASSERT_GT(HostGemmWorkUnits(c, min_parallel_macs), 1);  // really split
      ASSERT_TRUE(HostGemm(c, lhs.data(), rhs.data(), single.data(), threading).ok());
      threading.pool = &pool;
      ASSERT_TRUE(HostGemm(c, lhs.data(), rhs.data(), pooled.data(), threading).ok());
      ASSERT_EQ(std::memcmp(single.data(), pooled.data(), single.size() * sizeof(T)), 0);
    }
  }
}

TEST(HostGemm, PooledF32IsBitwiseSingleThreaded) {
  // 257 * 129 * 65 is above the default threshold: the plain overload too.
  CheckPooledIsBitwiseSingle<float>(BlasElementType::kF32, 257, 129, 65, 1, 0,
                                    HostGemmThreading().min_parallel_macs);
  CheckPooledIsBitwiseSingle<float>(BlasElementType::kF32, 257, 129, 65, 1, -0.5);
  CheckPooledIsBitwiseSingle<float>(BlasElementType::kF32, 301, 67, 611, 1, 0);  // k blocked by Eigen
  CheckPooledIsBitwiseSingle<float>(BlasElementType::kF32, 97, 33, 19, 2, 0.25);
  CheckPooledIsBitwiseSingle<float>(BlasElementType::kF32, 13, 45, 31, 5, 0);  // batches only
  // Few rows: column blocks (64 + 64 + ... + the rest).
  CheckPooledIsBitwiseSingle<float>(BlasElementType::kF32, 49, 517, 131, 1, 0);
  CheckPooledIsBitwiseSingle<float>(BlasElementType::kF32, 7, 301, 29, 2, -0.25);
}

TEST(HostGemm, PooledF64AndF16AreBitwiseSingleThreaded) {
  CheckPooledIsBitwiseSingle<double>(BlasElementType::kF64, 303, 77, 129, 1, 0.5);
  CheckPooledIsBitwiseSingle<Eigen::half>(BlasElementType::kF16, 271, 35, 47, 1, 0);
}

// Runs `c` (f32, random operands from `seed`) cut into `units` work units
// on a 2-thread pool and compares it with the naive product.
void ExpectPooledMatchesNaive(const BlasGemmConfig& c, unsigned seed, int64_t units) {
  stream_executor::host::HostThreadPool pool(2);
  std::mt19937 rng(seed);
  auto lhs = Random<float>(c.m * c.k, rng);
  auto rhs = Random<float>(c.k * c.n, rng);
  auto out = Random<float>(c.m * c.n, rng);
  std::vector<double> expected = Naive(c, lhs, rhs, out);
  HostGemmThreading threading;
  threading.pool = &pool;
  threading.min_parallel_macs = 0;
  ASSERT_EQ(HostGemmWorkUnits(c, 0), units);
  ASSERT_TRUE(HostGemm(c, lhs.data(), rhs.data(), out.data(), threading).ok());
  for (size_t i = 0; i < out.size(); ++i) ASSERT_NEAR(out[i], expected[i], 1e-4) << i;
}

TEST(HostGemm, PooledResultMatchesNaive) {
  BlasGemmConfig c;
  c.m = 301;
  c.n = 23;
  c.k = 41;
  c.transpose_lhs = true;
  c.alpha = 1.25;
  c.beta = 0.5;
  ExpectPooledMatchesNaive(c, 5, 2);  // 192 + 109 rows
}

// Column blocks against the naive product, with every transpose.
TEST(HostGemm, ColumnBlocksMatchNaive) {
  for (bool tl : {false, true}) {
    for (bool tr : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "tl " << tl << " tr " << tr);
      BlasGemmConfig c;
      c.m = 11;
      c.n = 259;
      c.k = 37;
      c.transpose_lhs = tl;
      c.transpose_rhs = tr;
      c.alpha = -1.5;
      c.beta = 0.25;
      ExpectPooledMatchesNaive(c, 9 + tl * 2 + tr, 2);  // 192 + 67 columns
    }
  }
}

TEST(HostGemm, SmallGemmStaysOnOneThreadAndLargeOneSplits) {
  BlasGemmConfig c;
  c.m = c.n = c.k = 64;
  EXPECT_EQ(HostGemmWorkUnits(c, HostGemmThreading().min_parallel_macs), 1);
  EXPECT_EQ(HostGemmWorkUnits(c, 0), 1);  // 64 rows and columns: too few to cut
  c.m = 49;  // ResNet-50's last stage: 7 x 7 rows, 512 columns
  c.n = 512;
  c.k = 4608;
  EXPECT_EQ(HostGemmWorkUnits(c, HostGemmThreading().min_parallel_macs), 4);  // 4 x 128 columns
  c.m = 256;  // bf16_mlp_b256_d1024: columns, each block packing the small lhs
  c.n = c.k = 1024;
  EXPECT_EQ(HostGemmWorkUnits(c, HostGemmThreading().min_parallel_macs), 8);  // 8 x 128 columns
  c.m = c.n = c.k = 1024;
  EXPECT_EQ(HostGemmWorkUnits(c, HostGemmThreading().min_parallel_macs), 8);  // 8 x 128 columns
  c.m = 4096;
  EXPECT_EQ(HostGemmWorkUnits(c, HostGemmThreading().min_parallel_macs), 15);  // 14 x 288 + 64
  c.batch_size = 16;
  EXPECT_EQ(HostGemmWorkUnits(c, HostGemmThreading().min_parallel_macs), 16);  // batches only
  c.batch_size = 3;
  c.m = 1000;
  EXPECT_EQ(HostGemmWorkUnits(c, HostGemmThreading().min_parallel_macs), 18);  // 3 x (5 x 192 + 64 columns)
  c.batch_size = 1;
  c.m = 200;  // fewer than 2 x 128 rows and columns: one block
  c.n = 150;
  EXPECT_EQ(HostGemmWorkUnits(c, HostGemmThreading().min_parallel_macs), 1);
}

// A pool whose only thread is blocked: the caller does all the work itself.
TEST(HostGemm, BusyPoolDoesNotDeadlock) {
  stream_executor::host::HostThreadPool pool(1);
  std::atomic<bool> release{false};
  pool.Schedule([&release] {
    while (!release.load()) std::this_thread::yield();
  });
  std::mt19937 rng(9);
  BlasGemmConfig c;
  c.m = 400;  // 3 row blocks
  c.n = 50;
  c.k = 30;
  auto lhs = Random<float>(c.m * c.k, rng);
  auto rhs = Random<float>(c.k * c.n, rng);
  std::vector<float> single(c.m * c.n), pooled(c.m * c.n);
  HostGemmThreading threading;
  threading.min_parallel_macs = 0;
  ASSERT_TRUE(HostGemm(c, lhs.data(), rhs.data(), single.data(), threading).ok());
  threading.pool = &pool;
  ASSERT_TRUE(HostGemm(c, lhs.data(), rhs.data(), pooled.data(), threading).ok());
  release = true;
  EXPECT_EQ(std::memcmp(single.data(), pooled.data(), single.size() * sizeof(float)), 0);
}

// The direct kernel of small GEMMs (host_gemm_kernels.h): with alpha 1 and
// beta 0 each output is exactly its k products added in order onto 0, one
// fused multiply-add each where the process's GEMM kernels have them (not
// in the SSE2 table). The oracle is that chain, computed here element by
// element.
template <typename T>
T ProductChain(const BlasGemmConfig& c, const T* lhs, const T* rhs, int64_t i, int64_t j) {
  const bool fused = HostGemmIsa() != "sse2";
  T sum = 0;
  for (int64_t p = 0; p < c.k; ++p) {
    const T a = lhs[c.transpose_lhs ? p * c.m + i : i * c.k + p];
    const T b = rhs[p * c.n + j];
    sum = fused ? std::fma(a, b, sum) : sum + a * b;
  }
  return sum;
}

// Every tile class of the direct kernel: rows 1, 2 (the wide tiles of few
// rows), 3, 8 and 9 and 17 (whole tiles of 8 or 4 plus a remainder); columns
// that are whole wide tiles, single vectors, a partial vector or only one;
// k of 1 and odd; the lhs stored either way; two batches with padding
// between them; alone and forced into blocks on a pool. Bitwise against
// ProductChain, with the output filled with NaN first (beta 0 must not
// read it).
template <typename T>
void CheckDirectBitwise(BlasElementType type) {
  static HostThreadPool pool(2);
  const int64_t rows[] = {1, 2, 3, 8, 9, 17};
  const int64_t cols[] = {1, 15, 17, 48, 49, 128, 257};
  const int64_t depths[] = {1, 2, 17, 64};
  for (int64_t m : rows) {
    for (int64_t n : cols) {
      for (int64_t k : depths) {
        for (bool tl : {false, true}) {
          for (bool pooled : {false, true}) {
            SCOPED_TRACE(::testing::Message() << m << "x" << n << "x" << k << " tl " << tl
                                              << " pooled " << pooled);
            std::mt19937 rng(static_cast<unsigned>(m * 1000 + n * 10 + k + tl));
            BlasGemmConfig c = Config(type, m, n, k, 2, tl, false);
            c.lhs_batch_stride = m * k + 3;
            c.rhs_batch_stride = k * n + 1;
            c.output_batch_stride = m * n + 2;
            auto lhs = Random<T>(2 * c.lhs_batch_stride, rng);
            auto rhs = Random<T>(2 * c.rhs_batch_stride, rng);
            std::vector<T> out(2 * c.output_batch_stride, std::numeric_limits<T>::quiet_NaN());
            HostGemmThreading threading;
            if (pooled) {
              threading.pool = &pool;
              threading.min_parallel_macs = 0;
            }
            ASSERT_TRUE(HostGemm(c, lhs.data(), rhs.data(), out.data(), threading).ok());
            for (int64_t b = 0; b < 2; ++b) {
              const T* l = lhs.data() + b * c.lhs_batch_stride;
              const T* r = rhs.data() + b * c.rhs_batch_stride;
              for (int64_t i = 0; i < m; ++i) {
                for (int64_t j = 0; j < n; ++j) {
                  const T got = out[b * c.output_batch_stride + i * n + j];
                  const T want = ProductChain(c, l, r, i, j);
                  ASSERT_EQ(std::memcmp(&got, &want, sizeof(T)), 0)
                      << "batch " << b << " (" << i << ", " << j << "): " << got << " vs " << want;
                }
              }
            }
          }
        }
      }
    }
  }
}

TEST(HostGemm, DirectKernelF32IsTheProductChainBitwise) {
  CheckDirectBitwise<float>(BlasElementType::kF32);
}

TEST(HostGemm, DirectKernelF64IsTheProductChainBitwise) {
  CheckDirectBitwise<double>(BlasElementType::kF64);
}

// Alpha and beta on the direct kernel (and on Eigen's path, turned on for
// the same GEMMs) against the double reference: the scaled product and the
// old output added once per element.
TEST(HostGemm, DirectKernelAlphaBetaAtOddSizes) {
  for (bool direct : {true, false}) {
    DisableHostGemmDirectForTesting(!direct);
    for (bool tl : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "direct " << direct << " tl " << tl);
      std::mt19937 rng(static_cast<unsigned>(17 + tl));
      BlasGemmConfig c = Config(BlasElementType::kF32, 9, 49, 17, 3, tl, false);
      c.lhs_batch_stride = c.m * c.k;
      c.rhs_batch_stride = c.k * c.n;
      c.output_batch_stride = c.m * c.n;
      c.alpha = -1.5;
      c.beta = 0.75;
      auto lhs = Random<float>(3 * c.lhs_batch_stride, rng);
      auto rhs = Random<float>(3 * c.rhs_batch_stride, rng);
      auto out = Random<float>(3 * c.output_batch_stride, rng);
      const std::vector<double> expected = Naive(c, lhs, rhs, out);
      ASSERT_TRUE(HostGemm(c, lhs.data(), rhs.data(), out.data()).ok());
      for (size_t e = 0; e < out.size(); ++e) ASSERT_NEAR(out[e], expected[e], 1e-5) << e;
    }
  }
  DisableHostGemmDirectForTesting(false);
}

// Subnormal operands count as zero and subnormal sums are flushed (as
// XLA:CPU runs): a lhs of random values with every third element replaced
// by a subnormal, against the double reference of the lhs with those
// elements zeroed; and an all-subnormal lhs gives exact zeros. Odd sizes,
// direct kernel and Eigen's path, f32 and f64, on a pool (row blocks run on
// both threads) and without; the caller's MXCSR is left as it was.
template <typename T>
void ExpectSubnormalsFlushed(BlasElementType type, bool direct, HostThreadPool* pool) {
  const T tiny = std::numeric_limits<T>::min() / 8;
  std::mt19937 rng(23);
  BlasGemmConfig c = Config(type, 301, 37, 13, 1, false, false);
  auto lhs = Random<T>(c.m * c.k, rng);
  auto rhs = Random<T>(c.k * c.n, rng);
  auto zeroed = lhs;
  for (size_t e = 0; e < lhs.size(); e += 3) {
    lhs[e] = (e % 2 ? -tiny : tiny) * static_cast<T>(1 + e % 5);
    zeroed[e] = 0;
  }
  std::vector<T> out(c.m * c.n, std::numeric_limits<T>::quiet_NaN());
  const std::vector<double> expected = Naive(c, zeroed, rhs, out);
  HostGemmThreading threading;
  threading.pool = pool;
  threading.min_parallel_macs = 0;
  DisableHostGemmDirectForTesting(!direct);
  ASSERT_TRUE(HostGemm(c, lhs.data(), rhs.data(), out.data(), threading).ok());
  for (size_t e = 0; e < out.size(); ++e) ASSERT_NEAR(out[e], expected[e], 1e-5) << e;
  std::vector<T> subnormal(c.m * c.k, tiny);
  ASSERT_TRUE(HostGemm(c, subnormal.data(), rhs.data(), out.data(), threading).ok());
  DisableHostGemmDirectForTesting(false);
  for (size_t e = 0; e < out.size(); ++e) ASSERT_EQ(out[e], 0) << e;
  volatile T x = tiny, three = 3;
  EXPECT_NE(x * three, 0) << "the caller's thread flushes subnormals after the GEMM";
}

TEST(HostGemm, SubnormalOperandsCountAsZero) {
  HostThreadPool pool(2);
  for (bool direct : {true, false}) {
    for (HostThreadPool* p : {static_cast<HostThreadPool*>(nullptr), &pool}) {
      SCOPED_TRACE(::testing::Message() << "direct " << direct << " pool " << (p != nullptr));
      ExpectSubnormalsFlushed<float>(BlasElementType::kF32, direct, p);
      ExpectSubnormalsFlushed<double>(BlasElementType::kF64, direct, p);
    }
  }
}

}  // namespace
}  // namespace stream_executor::host
