// The AMX bf16 GEMM kernel against a double-precision product of the same
// bf16 inputs (exact: bf16 products of these magnitudes fit a double), on
// odd sizes (k not a multiple of 32, edges cut inside tiles), every
// transpose and blocks starting inside the matrices; then HostGemm's bf16
// GEMMs on the AMX path (batches, alpha, beta, a pool) against the same
// reference and against the AVX512-BF16 kernel. Where the CPU, OS or
// kernel does not allow AMX, every test here skips and says why.
#include "xla/stream_executor/host/host_gemm_bf16_amx.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "Eigen/Core"
#include "gtest/gtest.h"
#include "xla/stream_executor/host/amx_support.h"
#include "xla/stream_executor/host/host_gemm.h"
#include "xla/stream_executor/host/host_gemm_bf16_test_util.h"
#include "xla/stream_executor/host/host_thread_pool.h"

namespace stream_executor::host {
namespace {

using Bf16 = Eigen::bfloat16;
using bf16_test::Aligned;
using bf16_test::Bf16Config;
using bf16_test::Bits;
using bf16_test::Dot;
using bf16_test::ExactDot;
using bf16_test::F32Bound;
using bf16_test::RandomBf16;

// The kernel's packers need AVX-512 F and BW, its block AMX-BF16 tiles.
bool CpuRunsKernel() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
         HostAmxBf16Usable();
}

std::string SkipReason() { return "AMX-BF16 kernel cannot run here: " + HostAmxBf16Reason(); }

// Why HostGemm does not send bf16 GEMMs to the AMX kernel here.
std::string HostGemmSkipReason() {
  if (!HostAmxBf16Usable()) return SkipReason();
  return "HostGemm does not use the AMX kernel: XLA_HOST_GEMM_ISA is set, or the CPU lacks "
         "the AVX512-BF16 kernel's instruction sets";
}

class Bf16AmxKernel : public ::testing::TestWithParam<std::tuple<int, bool, bool>> {};

TEST_P(Bf16AmxKernel, BlocksMatchTheExactProduct) {
  if (!CpuRunsKernel()) GTEST_SKIP() << SkipReason();
  static constexpr int64_t kSizes[][3] = {{1, 1, 1},     {17, 33, 65}, {257, 129, 511},
                                          {33, 17, 257}, {16, 16, 32}, {9, 65, 2},
                                          {48, 80, 96}};
  const auto [size, tl, tr] = GetParam();
  const int64_t m = kSizes[size][0], n = kSizes[size][1], k = kSizes[size][2];
  SCOPED_TRACE(::testing::Message() << m << "x" << n << "x" << k << " tl " << tl << " tr " << tr);
  std::mt19937 rng(static_cast<unsigned>(m * 7 + n * 3 + k + tl * 2 + tr));
  const BlasGemmConfig c = Bf16Config(m, n, k, tl, tr);
  const std::vector<Bf16> lhs = RandomBf16(m * k, rng), rhs = RandomBf16(k * n, rng);
  // NaN first: every element must be written by its block.
  std::vector<float> product(m * n, std::nanf(""));
  // Four blocks, the second row and column cut off the 16 x 16 grid.
  const int64_t r0 = m / 3, c0 = std::min(n, n / 2 + 1);
  std::vector<char> scratch;
  for (const HostGemmBlock& block : {HostGemmBlock{0, r0, 0, c0}, HostGemmBlock{0, r0, c0, n - c0},
                                     HostGemmBlock{r0, m - r0, 0, c0},
                                     HostGemmBlock{r0, m - r0, c0, n - c0}}) {
    if (block.rows == 0 || block.cols == 0) continue;
    HostGemmBf16AmxBlock(c, Bits(lhs), Bits(rhs), Bf16DotPacked(), product.data(), block,
                         Aligned(scratch, HostGemmBf16AmxScratchBytes(block.rows, block.cols, k)));
  }
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const Dot d = ExactDot(c, lhs.data(), rhs.data(), i, j);
      ASSERT_NEAR(product[i * n + j], d.value, F32Bound(c, d)) << "at (" << i << "," << j << ")";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(OddSizes, Bf16AmxKernel,
                         ::testing::Combine(::testing::Range(0, 7), ::testing::Bool(),
                                            ::testing::Bool()));

// Blocks reading operands packed whole (HostGemmBf16AmxPackLhs, or both by
// ...PackExactF32 from f32 copies) are bitwise the whole matrix with each
// block packing its own; blocks off a panel (rows from 21, columns from 40)
// pack their own.
TEST(Bf16AmxKernelEdges, PackedOperandBlocksAreBitwiseTheOwnPackingProduct) {
  if (!CpuRunsKernel()) GTEST_SKIP() << SkipReason();
  for (bool tl : {false, true}) {
    for (bool tr : {false, true}) {
      for (bool f32 : {false, true}) {
        const int64_t m = 43, n = 97, k = 255;
        SCOPED_TRACE(::testing::Message() << "tl " << tl << " tr " << tr << " f32 " << f32);
        std::mt19937 rng(static_cast<unsigned>(5 + tl * 2 + tr));
        const BlasGemmConfig c = Bf16Config(m, n, k, tl, tr);
        const std::vector<Bf16> lhs = RandomBf16(m * k, rng), rhs = RandomBf16(k * n, rng);
        std::vector<char> scratch, lhs_storage, rhs_storage;
        std::vector<float> whole(m * n, std::nanf("")), blocked(m * n, std::nanf(""));
        HostGemmBf16AmxBlock(c, Bits(lhs), Bits(rhs), Bf16DotPacked(), whole.data(),
                             HostGemmBlock{0, m, 0, n},
                             Aligned(scratch, HostGemmBf16AmxScratchBytes(m, n, k)));
        Bf16DotPacked packed;
        void* packed_lhs = Aligned(lhs_storage, HostGemmBf16AmxPackedLhsBytes(m, k));
        void* packed_rhs = Aligned(rhs_storage, HostGemmBf16AmxPackedRhsBytes(n, k));
        if (f32) {
          const std::vector<float> lhs32(lhs.begin(), lhs.end()), rhs32(rhs.begin(), rhs.end());
          ASSERT_TRUE(HostGemmBf16AmxPackExactF32(c, lhs32.data(), rhs32.data(), packed_lhs,
                                                  packed_rhs));
          packed.rhs = packed_rhs;
        } else {
          HostGemmBf16AmxPackLhs(c, Bits(lhs), packed_lhs);
        }
        packed.lhs = packed_lhs;
        for (const HostGemmBlock& block :
             {HostGemmBlock{0, 16, 0, 64}, HostGemmBlock{0, 16, 64, n - 64},
              HostGemmBlock{16, 5, 0, 40}, HostGemmBlock{16, 5, 40, n - 40},
              HostGemmBlock{21, m - 21, 0, n}}) {
          HostGemmBf16AmxBlock(
              c, Bits(lhs), Bits(rhs), packed, blocked.data(), block,
              Aligned(scratch, HostGemmBf16AmxScratchBytes(block.rows, block.cols, k)));
        }
        EXPECT_EQ(std::memcmp(whole.data(), blocked.data(), m * n * sizeof(float)), 0);
      }
    }
  }
}

// Packing from f32 refuses a value that is no exact bf16, or a subnormal,
// in either operand, even in the last panel and past the first depth tile.
TEST(Bf16AmxKernelEdges, PackingFromF32RefusesOtherValues) {
  if (!CpuRunsKernel()) GTEST_SKIP() << SkipReason();
  const int64_t m = 19, n = 70, k = 33;
  const BlasGemmConfig c = Bf16Config(m, n, k, false, false);
  std::mt19937 rng(3);
  const std::vector<Bf16> lhs16 = RandomBf16(m * k, rng), rhs16 = RandomBf16(k * n, rng);
  const std::vector<float> lhs(lhs16.begin(), lhs16.end()), rhs(rhs16.begin(), rhs16.end());
  std::vector<char> lhs_storage, rhs_storage;
  void* packed_lhs = Aligned(lhs_storage, HostGemmBf16AmxPackedLhsBytes(m, k));
  void* packed_rhs = Aligned(rhs_storage, HostGemmBf16AmxPackedRhsBytes(n, k));
  EXPECT_TRUE(HostGemmBf16AmxPackExactF32(c, lhs.data(), rhs.data(), packed_lhs, packed_rhs));
  for (float odd : {1.0f + 0x1p-20f, 0x1p-130f, -0x1p-140f}) {
    std::vector<float> bad_lhs = lhs, bad_rhs = rhs;
    bad_lhs[m * k - 1] = odd;
    EXPECT_FALSE(HostGemmBf16AmxPackExactF32(c, bad_lhs.data(), rhs.data(), packed_lhs,
                                             packed_rhs)) << odd;
    bad_rhs[k * n - 2] = odd;
    EXPECT_FALSE(HostGemmBf16AmxPackExactF32(c, lhs.data(), bad_rhs.data(), packed_lhs,
                                             packed_rhs)) << odd;
  }
}

// The packing in shares (any order) writes bitwise what the whole packing
// writes, for 1, 3 and 8 shares (some then hold lhs and rhs panels, some
// none); a share holding a value that is no bf16 says so.
TEST(Bf16AmxKernelEdges, PackingInSharesIsTheWholePacking) {
  if (!CpuRunsKernel()) GTEST_SKIP() << SkipReason();
  const int64_t m = 37, n = 50, k = 71;
  for (bool tl : {false, true}) {
    for (bool tr : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "tl " << tl << " tr " << tr);
      const BlasGemmConfig c = Bf16Config(m, n, k, tl, tr);
      std::mt19937 rng(static_cast<unsigned>(11 + tl * 2 + tr));
      const std::vector<Bf16> lhs16 = RandomBf16(m * k, rng), rhs16 = RandomBf16(k * n, rng);
      const std::vector<float> lhs(lhs16.begin(), lhs16.end()), rhs(rhs16.begin(), rhs16.end());
      const int64_t lhs_bytes = HostGemmBf16AmxPackedLhsBytes(m, k);
      const int64_t rhs_bytes = HostGemmBf16AmxPackedRhsBytes(n, k);
      std::vector<char> whole_l, whole_r, part_l, part_r;
      void* wl = Aligned(whole_l, lhs_bytes);
      void* wr = Aligned(whole_r, rhs_bytes);
      ASSERT_TRUE(HostGemmBf16AmxPackExactF32(c, lhs.data(), rhs.data(), wl, wr));
      for (int64_t shares : {1, 3, 8}) {
        void* pl = Aligned(part_l, lhs_bytes);
        void* pr = Aligned(part_r, rhs_bytes);
        std::memset(pl, 0xff, lhs_bytes);
        std::memset(pr, 0xff, rhs_bytes);
        for (int64_t s = shares - 1; s >= 0; --s) {
          EXPECT_TRUE(
              HostGemmBf16AmxPackExactF32Share(c, lhs.data(), rhs.data(), s, shares, pl, pr));
        }
        EXPECT_EQ(std::memcmp(wl, pl, lhs_bytes), 0) << shares << " shares";
        EXPECT_EQ(std::memcmp(wr, pr, rhs_bytes), 0) << shares << " shares";
        std::vector<float> bad = rhs;
        bad[k * n - 1] = 1.0f + 0x1p-20f;
        bool all = true;
        for (int64_t s = 0; s < shares; ++s) {
          all &= HostGemmBf16AmxPackExactF32Share(c, lhs.data(), bad.data(), s, shares, pl, pr);
        }
        EXPECT_FALSE(all) << shares << " shares";
      }
    }
  }
}

// An infinity in the last row of an odd depth reaches its column as an
// infinity of the lhs element's sign, and nowhere else: the padding of the
// last pair (zeros in both operands) multiplies no infinity into a NaN.
TEST(Bf16AmxKernelEdges, InfinityInTheLastOddRowStaysInItsColumn) {
  if (!CpuRunsKernel()) GTEST_SKIP() << SkipReason();
  const int64_t m = 17, n = 33, k = 65, column = 5;
  for (bool tr : {false, true}) {
    SCOPED_TRACE(::testing::Message() << "tr " << tr);
    const BlasGemmConfig c = Bf16Config(m, n, k, false, tr);
    std::mt19937 rng(19);
    const std::vector<Bf16> lhs = RandomBf16(m * k, rng);
    std::vector<Bf16> rhs = RandomBf16(k * n, rng);
    rhs[tr ? column * k + (k - 1) : (k - 1) * n + column] = Bf16(INFINITY);
    std::vector<float> product(m * n, std::nanf(""));
    std::vector<char> scratch;
    HostGemmBf16AmxBlock(c, Bits(lhs), Bits(rhs), Bf16DotPacked(), product.data(),
                         HostGemmBlock{0, m, 0, n},
                         Aligned(scratch, HostGemmBf16AmxScratchBytes(m, n, k)));
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        const float last = static_cast<float>(lhs[i * k + k - 1]);
        const float got = product[i * n + j];
        if (j != column) {
          ASSERT_TRUE(std::isfinite(got)) << "(" << i << "," << j << ")";
        } else if (last != 0) {
          ASSERT_EQ(got, last > 0 ? INFINITY : -INFINITY) << "(" << i << "," << j << ")";
        }
      }
    }
  }
}

// A zero depth writes zeros.
TEST(Bf16AmxKernelEdges, ZeroDepthWritesZeros) {
  if (!CpuRunsKernel()) GTEST_SKIP() << SkipReason();
  const BlasGemmConfig c = Bf16Config(3, 5, 0, false, false);
  std::vector<float> product(15, 7.0f);
  alignas(64) char scratch[64];
  HostGemmBf16AmxBlock(c, nullptr, nullptr, Bf16DotPacked(), product.data(),
                       HostGemmBlock{0, 3, 0, 5}, scratch);
  for (float x : product) EXPECT_EQ(x, 0.0f);
}

double Ulp(double x) {
  const int e = std::ilogb(std::max(std::abs(x), 0x1p-126));
  return std::ldexp(1.0, e - 7);  // bf16: 8 significant bits
}

// HostGemm's bf16 GEMM with the AMX kernel and with it disabled (the
// AVX512-BF16 kernel): each within half a bf16 ulp plus the f32 bound of
// the exact product, the two within one bf16 ulp. Batches of 3 with padded
// strides and a shared rhs, alpha and beta, alone and on a pool.
std::vector<Bf16> RunHostGemm(const BlasGemmConfig& c, const std::vector<Bf16>& lhs,
                              const std::vector<Bf16>& rhs, const std::vector<Bf16>& out,
                              bool amx, bool pooled) {
  static HostThreadPool pool(2);
  HostGemmThreading threading;
  if (pooled) {
    threading.pool = &pool;
    threading.min_parallel_macs = 0;
  }
  std::vector<Bf16> result = out;
  DisableHostGemmBf16AmxForTesting(!amx);
  EXPECT_TRUE(HostGemm(c, lhs.data(), rhs.data(), result.data(), threading).ok());
  DisableHostGemmBf16AmxForTesting(false);
  return result;
}

TEST(HostGemmBf16Amx, MatchesTheExactProductAndTheDotKernel) {
  if (!HostGemmBf16Amx()) GTEST_SKIP() << HostGemmSkipReason();
  static constexpr int64_t kSizes[][4] = {
      {17, 33, 65, 3}, {257, 129, 511, 1}, {130, 300, 33, 3}, {16, 17, 1, 2}};
  for (const auto& s : kSizes) {
    for (bool tl : {false, true}) {
      for (bool tr : {false, true}) {
        for (bool pooled : {false, true}) {
          const int64_t m = s[0], n = s[1], k = s[2], batch = s[3];
          SCOPED_TRACE(::testing::Message() << m << "x" << n << "x" << k << " batch " << batch
                                            << " tl " << tl << " tr " << tr << " pooled "
                                            << pooled);
          std::mt19937 rng(static_cast<unsigned>(m + n * 5 + k * 11 + batch + tl + tr * 2));
          BlasGemmConfig c = Bf16Config(m, n, k, tl, tr);
          c.batch_size = batch;
          c.lhs_batch_stride = m * k + 3;
          c.rhs_batch_stride = 0;
          c.output_batch_stride = m * n + 1;
          c.alpha = tl ? 0.75 : 1;
          c.beta = tr ? -0.5 : 0;
          const std::vector<Bf16> lhs = RandomBf16(batch * c.lhs_batch_stride, rng);
          const std::vector<Bf16> rhs = RandomBf16(k * n, rng);
          const std::vector<Bf16> out = RandomBf16(batch * c.output_batch_stride, rng);
          const std::vector<Bf16> amx = RunHostGemm(c, lhs, rhs, out, true, pooled);
          const std::vector<Bf16> dot = RunHostGemm(c, lhs, rhs, out, false, pooled);
          for (int64_t b = 0; b < batch; ++b) {
            for (int64_t i = 0; i < m; ++i) {
              for (int64_t j = 0; j < n; ++j) {
                const int64_t e = b * c.output_batch_stride + i * n + j;
                const Dot d = ExactDot(c, lhs.data() + b * c.lhs_batch_stride, rhs.data(), i, j);
                const double old = static_cast<float>(out[e]);
                const double want = c.alpha * d.value + c.beta * old;
                const double f32 = std::abs(c.alpha) * F32Bound(c, d) +
                                   0x1p-23 * (std::abs(c.alpha * d.value) + std::abs(c.beta * old));
                const double got_amx = static_cast<float>(amx[e]);
                const double got_dot = static_cast<float>(dot[e]);
                ASSERT_NEAR(got_amx, want, Ulp(want) / 2 + f32)
                    << "AMX, batch " << b << " (" << i << "," << j << ")";
                ASSERT_LE(std::abs(got_amx - got_dot),
                          Ulp(std::max(std::abs(got_amx), std::abs(got_dot))) + 2 * f32)
                    << "AMX and AVX512-BF16 apart, batch " << b << " (" << i << "," << j << ")";
              }
            }
          }
        }
      }
    }
  }
}

// An f32 GEMM on bf16 values (a dot of converted bf16 operands, as the
// broad set's bf16 programs compile) runs the AMX kernel: bitwise its own
// whole-matrix product of the narrowed operands, alone and cut into column
// blocks on a pool.
TEST(HostGemmBf16Amx, F32GemmOnBf16ValuesRunsTheAmxKernel) {
  if (!HostGemmBf16Amx()) GTEST_SKIP() << HostGemmSkipReason();
  static HostThreadPool pool(2);
  const int64_t m = 40, n = 300, k = 257;
  for (bool tl : {false, true}) {
    for (bool pooled : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "tl " << tl << " pooled " << pooled);
      std::mt19937 rng(static_cast<unsigned>(77 + tl));
      BlasGemmConfig c = Bf16Config(m, n, k, tl, false);
      c.element_type = BlasElementType::kF32;
      HostGemmThreading threading;
      if (pooled) {
        threading.pool = &pool;
        threading.min_parallel_macs = 0;
      }
      const std::vector<Bf16> lhs16 = RandomBf16(m * k, rng), rhs16 = RandomBf16(k * n, rng);
      const std::vector<float> lhs(lhs16.begin(), lhs16.end()), rhs(rhs16.begin(), rhs16.end());
      std::vector<float> kernel(m * n), host(m * n, std::nanf(""));
      std::vector<char> scratch;
      HostGemmBf16AmxBlock(c, Bits(lhs16), Bits(rhs16), Bf16DotPacked(), kernel.data(),
                           HostGemmBlock{0, m, 0, n},
                           Aligned(scratch, HostGemmBf16AmxScratchBytes(m, n, k)));
      ASSERT_TRUE(HostGemm(c, lhs.data(), rhs.data(), host.data(), threading).ok());
      EXPECT_EQ(std::memcmp(kernel.data(), host.data(), m * n * sizeof(float)), 0);
    }
  }
}

// Batches of an f32 GEMM on bf16 values (narrowed once, then each batch's
// blocks pack their own operands, on a pool) are each bitwise the AMX
// kernel's product of that batch.
TEST(HostGemmBf16Amx, BatchedF32GemmOnBf16ValuesIsTheKernelPerBatch) {
  if (!HostGemmBf16Amx()) GTEST_SKIP() << HostGemmSkipReason();
  static HostThreadPool pool(2);
  const int64_t m = 33, n = 130, k = 97, batch = 3;
  for (bool tr : {false, true}) {
    SCOPED_TRACE(::testing::Message() << "tr " << tr);
    std::mt19937 rng(static_cast<unsigned>(31 + tr));
    BlasGemmConfig c = Bf16Config(m, n, k, false, tr);
    c.element_type = BlasElementType::kF32;
    c.batch_size = batch;
    c.lhs_batch_stride = m * k + 5;
    c.rhs_batch_stride = k * n;
    c.output_batch_stride = m * n + 2;
    const std::vector<Bf16> lhs16 = RandomBf16(batch * c.lhs_batch_stride, rng);
    const std::vector<Bf16> rhs16 = RandomBf16(batch * c.rhs_batch_stride, rng);
    const std::vector<float> lhs(lhs16.begin(), lhs16.end()), rhs(rhs16.begin(), rhs16.end());
    std::vector<float> out(batch * c.output_batch_stride, std::nanf(""));
    HostGemmThreading threading;
    threading.pool = &pool;
    threading.min_parallel_macs = 0;
    ASSERT_TRUE(HostGemm(c, lhs.data(), rhs.data(), out.data(), threading).ok());
    BlasGemmConfig one = c;
    one.batch_size = 1;
    std::vector<float> kernel(m * n);
    std::vector<char> scratch;
    for (int64_t b = 0; b < batch; ++b) {
      const std::vector<Bf16> lhs_b(lhs16.begin() + b * c.lhs_batch_stride,
                                    lhs16.begin() + b * c.lhs_batch_stride + m * k);
      const std::vector<Bf16> rhs_b(rhs16.begin() + b * c.rhs_batch_stride,
                                    rhs16.begin() + (b + 1) * c.rhs_batch_stride);
      HostGemmBf16AmxBlock(one, Bits(lhs_b), Bits(rhs_b), Bf16DotPacked(), kernel.data(),
                           HostGemmBlock{0, m, 0, n},
                           Aligned(scratch, HostGemmBf16AmxScratchBytes(m, n, k)));
      EXPECT_EQ(std::memcmp(kernel.data(), out.data() + b * c.output_batch_stride,
                            m * n * sizeof(float)),
                0)
          << "batch " << b;
    }
  }
}

// Which kernel runs: AMX exactly where the AVX512-BF16 kernel runs and the
// process may use tiles, never while a test disables it.
TEST(HostGemmBf16Amx, UsesAmxWhereAllowed) {
  EXPECT_EQ(HostGemmBf16Amx(), HostGemmBf16Dot() && HostAmxBf16Usable());
  DisableHostGemmBf16AmxForTesting(true);
  EXPECT_FALSE(HostGemmBf16Amx());
  DisableHostGemmBf16AmxForTesting(false);
  DisableHostGemmBf16DotForTesting(true);
  EXPECT_FALSE(HostGemmBf16Amx());
  DisableHostGemmBf16DotForTesting(false);
}

}  // namespace
}  // namespace stream_executor::host
