// The AVX512-BF16 GEMM kernel against a naive double-precision product of
// the same bf16 inputs, on odd sizes (k odd, tiles cut at every edge), every
// transpose and blocks that start inside the matrices; then HostGemm's bf16
// GEMMs on both paths (the kernel and the widen-then-f32 fallback, forced),
// which must agree with the naive product and with each other to one bf16
// ulp.
#include "xla/stream_executor/host/host_gemm_bf16_dot.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <tuple>
#include <vector>

#include "Eigen/Core"
#include "gtest/gtest.h"
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

bool CpuRunsKernel() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512bf16");
}

class Bf16DotKernel : public ::testing::TestWithParam<std::tuple<int, bool, bool>> {};

TEST_P(Bf16DotKernel, BlocksMatchTheNaiveProduct) {
  if (!CpuRunsKernel()) GTEST_SKIP() << "this CPU has no AVX512-BF16";
  static constexpr int64_t kSizes[][3] = {{17, 33, 127}, {127, 257, 33}, {33, 17, 257},
                                          {1, 1, 1},     {9, 65, 2},     {257, 40, 301}};
  const auto [size, tl, tr] = GetParam();
  const int64_t m = kSizes[size][0], n = kSizes[size][1], k = kSizes[size][2];
  SCOPED_TRACE(::testing::Message() << m << "x" << n << "x" << k << " tl " << tl << " tr " << tr);
  std::mt19937 rng(static_cast<unsigned>(m * 7 + n * 3 + k + tl * 2 + tr));
  const BlasGemmConfig c = Bf16Config(m, n, k, tl, tr);
  const std::vector<Bf16> lhs = RandomBf16(m * k, rng);
  const std::vector<Bf16> rhs = RandomBf16(k * n, rng);
  // NaN everywhere first: every element must be written by its block.
  std::vector<float> product(m * n, std::nanf(""));
  // Four blocks, the second row and column cut off the tile grid.
  const int64_t r0 = m / 3, c0 = n / 2 + 1 < n ? n / 2 + 1 : n;
  std::vector<char> scratch_bytes;
  for (const HostGemmBlock& block : {HostGemmBlock{0, r0, 0, c0}, HostGemmBlock{0, r0, c0, n - c0},
                                     HostGemmBlock{r0, m - r0, 0, c0},
                                     HostGemmBlock{r0, m - r0, c0, n - c0}}) {
    if (block.rows == 0 || block.cols == 0) continue;
    std::vector<float> scratch(HostGemmBf16DotScratchBytes(block.rows, block.cols, k) / 4 + 16);
    // 64-byte aligned, as the kernel asks.
    void* aligned = reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(scratch.data()) + 63) &
                                            ~uintptr_t{63});
    HostGemmBf16DotBlock(c, Bits(lhs), Bits(rhs), product.data(), block, aligned);
  }
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const Dot d = ExactDot(c, lhs.data(), rhs.data(), i, j);
      ASSERT_NEAR(product[i * n + j], d.value, F32Bound(c, d)) << "at (" << i << "," << j << ")";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(OddSizes, Bf16DotKernel,
                         ::testing::Combine(::testing::Range(0, 6), ::testing::Bool(),
                                            ::testing::Bool()));

// Blocks reading op(lhs) packed whole (HostGemmBf16DotPackLhs, or with
// op(rhs) by HostGemmBf16DotPackExactF32 from f32 copies) compute bitwise
// what the whole matrix computes with each block packing its own: blocks on
// the panels read the packed operands, one starting off a row panel (29)
// and one off a column panel (40) pack their own.
TEST(Bf16DotKernelEdges, PackedOperandBlocksAreBitwiseTheOwnPackingProduct) {
  if (!CpuRunsKernel()) GTEST_SKIP() << "this CPU has no AVX512-BF16";
  for (bool tl : {false, true}) {
    for (bool tr : {false, true}) {
      for (bool f32 : {false, true}) {
        const int64_t m = 43, n = 97, k = 255;
        SCOPED_TRACE(::testing::Message() << "tl " << tl << " tr " << tr << " f32 " << f32);
        std::mt19937 rng(static_cast<unsigned>(5 + tl * 2 + tr));
        const BlasGemmConfig c = Bf16Config(m, n, k, tl, tr);
        const std::vector<Bf16> lhs = RandomBf16(m * k, rng), rhs = RandomBf16(k * n, rng);
        std::vector<char> scratch_storage, lhs_storage, rhs_storage;
        std::vector<float> whole(m * n, std::nanf("")), blocked(m * n, std::nanf(""));
        HostGemmBf16DotBlock(c, Bits(lhs), Bits(rhs), whole.data(), HostGemmBlock{0, m, 0, n},
                             Aligned(scratch_storage, HostGemmBf16DotScratchBytes(m, n, k)));
        Bf16DotPacked packed;
        void* packed_lhs = Aligned(lhs_storage, HostGemmBf16DotPackedLhsBytes(m, k));
        void* packed_rhs = Aligned(rhs_storage, HostGemmBf16DotPackedRhsBytes(n, k));
        if (f32) {
          const std::vector<float> lhs32(lhs.begin(), lhs.end()), rhs32(rhs.begin(), rhs.end());
          ASSERT_TRUE(HostGemmBf16DotPackExactF32(c, lhs32.data(), rhs32.data(), packed_lhs,
                                                  packed_rhs));
          packed.rhs = packed_rhs;
        } else {
          HostGemmBf16DotPackLhs(c, Bits(lhs), packed_lhs);
        }
        packed.lhs = packed_lhs;
        for (const HostGemmBlock& block :
             {HostGemmBlock{0, 16, 0, 64}, HostGemmBlock{0, 16, 64, n - 64},
              HostGemmBlock{16, 13, 0, 40}, HostGemmBlock{16, 13, 40, n - 40},
              HostGemmBlock{29, m - 29, 0, n}}) {
          HostGemmBf16DotBlockPacked(
              c, Bits(lhs), Bits(rhs), packed, blocked.data(), block,
              Aligned(scratch_storage, HostGemmBf16DotScratchBytes(block.rows, block.cols, k)));
        }
        EXPECT_EQ(std::memcmp(whole.data(), blocked.data(), m * n * sizeof(float)), 0);
      }
    }
  }
}

// Packing from f32 refuses a value that is no exact bf16, or a subnormal,
// in either operand, even in the last panel.
TEST(Bf16DotKernelEdges, PackingFromF32RefusesOtherValues) {
  if (!CpuRunsKernel()) GTEST_SKIP() << "this CPU has no AVX512-BF16";
  const int64_t m = 19, n = 70, k = 33;
  const BlasGemmConfig c = Bf16Config(m, n, k, false, false);
  std::mt19937 rng(3);
  const std::vector<Bf16> lhs16 = RandomBf16(m * k, rng), rhs16 = RandomBf16(k * n, rng);
  const std::vector<float> lhs(lhs16.begin(), lhs16.end()), rhs(rhs16.begin(), rhs16.end());
  std::vector<char> lhs_storage, rhs_storage;
  void* packed_lhs = Aligned(lhs_storage, HostGemmBf16DotPackedLhsBytes(m, k));
  void* packed_rhs = Aligned(rhs_storage, HostGemmBf16DotPackedRhsBytes(n, k));
  EXPECT_TRUE(HostGemmBf16DotPackExactF32(c, lhs.data(), rhs.data(), packed_lhs, packed_rhs));
  for (float odd : {1.0f + 0x1p-20f, 0x1p-130f, -0x1p-140f}) {
    std::vector<float> bad_lhs = lhs, bad_rhs = rhs;
    bad_lhs[m * k - 1] = odd;
    EXPECT_FALSE(HostGemmBf16DotPackExactF32(c, bad_lhs.data(), rhs.data(), packed_lhs,
                                             packed_rhs)) << odd;
    bad_rhs[k * n - 2] = odd;
    EXPECT_FALSE(HostGemmBf16DotPackExactF32(c, lhs.data(), bad_rhs.data(), packed_lhs,
                                             packed_rhs)) << odd;
  }
  // Zeros of either sign are bf16 values.
  std::vector<float> zeros = rhs;
  zeros[5] = 0.0f;
  zeros[6] = -0.0f;
  EXPECT_TRUE(HostGemmBf16DotPackExactF32(c, lhs.data(), zeros.data(), packed_lhs, packed_rhs));
}

// A zero depth writes zeros (no pairs to sum).
TEST(Bf16DotKernelEdges, ZeroDepthWritesZeros) {
  if (!CpuRunsKernel()) GTEST_SKIP() << "this CPU has no AVX512-BF16";
  const BlasGemmConfig c = Bf16Config(3, 5, 0, false, false);
  std::vector<float> product(15, 7.0f);
  alignas(64) char scratch[64];
  HostGemmBf16DotBlock(c, nullptr, nullptr, product.data(), HostGemmBlock{0, 3, 0, 5}, scratch);
  for (float x : product) EXPECT_EQ(x, 0.0f);
}

// HostGemm's bf16 GEMM with the kernel (where the CPU has it) and with the
// fallback forced: each within half a bf16 ulp plus the f32 bound of the
// naive product, and the two within one bf16 ulp of each other. Batches
// with padded lhs strides, a shared rhs, alpha and beta, alone and pooled.
std::vector<Bf16> RunHostGemm(const BlasGemmConfig& c, const std::vector<Bf16>& lhs,
                              const std::vector<Bf16>& rhs, const std::vector<Bf16>& out,
                              bool fallback, bool pooled) {
  static HostThreadPool pool(2);
  HostGemmThreading threading;
  if (pooled) {
    threading.pool = &pool;
    threading.min_parallel_macs = 0;
  }
  std::vector<Bf16> result = out;
  DisableHostGemmBf16DotForTesting(fallback);
  EXPECT_TRUE(HostGemm(c, lhs.data(), rhs.data(), result.data(), threading).ok());
  DisableHostGemmBf16DotForTesting(false);
  return result;
}

// While alive, the GEMMs HostGemm would give the AMX kernel run this file's
// kernel (the bitwise checks below compare HostGemm with it).
struct AmxOff {
  AmxOff() { DisableHostGemmBf16AmxForTesting(true); }
  ~AmxOff() { DisableHostGemmBf16AmxForTesting(false); }
};

double Ulp(double x) {
  const int e = std::ilogb(std::max(std::abs(x), 0x1p-126));
  return std::ldexp(1.0, e - 7);  // bf16: 8 significant bits
}

TEST(HostGemmBf16, BothPathsMatchTheNaiveProductAndEachOther) {
  const AmxOff amx_off;
  static constexpr int64_t kSizes[][4] = {
      {17, 33, 127, 1}, {127, 257, 33, 2}, {257, 17, 257, 1}, {33, 129, 17, 5}, {1, 300, 7, 3}};
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
          const std::vector<Bf16> dot = RunHostGemm(c, lhs, rhs, out, false, pooled);
          const std::vector<Bf16> wide = RunHostGemm(c, lhs, rhs, out, true, pooled);
          for (int64_t b = 0; b < batch; ++b) {
            for (int64_t i = 0; i < m; ++i) {
              for (int64_t j = 0; j < n; ++j) {
                const int64_t e = b * c.output_batch_stride + i * n + j;
                const Dot d = ExactDot(c, lhs.data() + b * c.lhs_batch_stride, rhs.data(), i, j);
                const double old = static_cast<float>(out[e]);
                const double want = c.alpha * d.value + c.beta * old;
                // The f32 sum's error, and alpha * sum + beta * old rounded in f32.
                const double f32 = std::abs(c.alpha) * F32Bound(c, d) +
                                   0x1p-23 * (std::abs(c.alpha * d.value) + std::abs(c.beta * old));
                const double tol = Ulp(want) / 2 + f32;
                const double got_dot = static_cast<float>(dot[e]);
                const double got_wide = static_cast<float>(wide[e]);
                ASSERT_NEAR(got_dot, want, tol) << "kernel path, batch " << b << " (" << i << ","
                                                << j << ")";
                ASSERT_NEAR(got_wide, want, tol) << "fallback, batch " << b << " (" << i << ","
                                                 << j << ")";
                ASSERT_LE(std::abs(got_dot - got_wide),
                          Ulp(std::max(std::abs(got_dot), std::abs(got_wide))) + 2 * f32)
                    << "paths apart, batch " << b << " (" << i << "," << j << ")";
              }
            }
          }
        }
      }
    }
  }
}

// An f32 GEMM on bf16 values (a dot of converted bf16 operands) runs the
// kernel: bitwise the kernel's own product of the narrowed operands. One
// operand element with other low bits, or a subnormal one, keeps Eigen's
// f32 GEMM: bitwise the result with the kernel disabled.
TEST(HostGemmBf16, F32GemmOnBf16ValuesRunsTheKernel) {
  const AmxOff amx_off;
  if (!CpuRunsKernel() || std::getenv("XLA_HOST_GEMM_ISA") != nullptr) {
    GTEST_SKIP() << "the kernel does not run here";
  }
  const int64_t m = 33, n = 129, k = 257;
  for (bool tr : {false, true}) {
    SCOPED_TRACE(::testing::Message() << "tr " << tr);
    std::mt19937 rng(static_cast<unsigned>(41 + tr));
    BlasGemmConfig c = Bf16Config(m, n, k, false, tr);
    c.element_type = BlasElementType::kF32;
    const std::vector<Bf16> lhs16 = RandomBf16(m * k, rng), rhs16 = RandomBf16(k * n, rng);
    std::vector<float> lhs(lhs16.begin(), lhs16.end()), rhs(rhs16.begin(), rhs16.end());
    std::vector<float> kernel(m * n), host(m * n, std::nanf(""));
    alignas(64) static char scratch[1 << 20];
    ASSERT_LE(HostGemmBf16DotScratchBytes(m, n, k), static_cast<int64_t>(sizeof(scratch)));
    HostGemmBf16DotBlock(c, Bits(lhs16), Bits(rhs16), kernel.data(), HostGemmBlock{0, m, 0, n},
                         scratch);
    ASSERT_TRUE(HostGemm(c, lhs.data(), rhs.data(), host.data()).ok());
    EXPECT_EQ(std::memcmp(kernel.data(), host.data(), m * n * sizeof(float)), 0);
    // Not all bf16 values: Eigen's f32 GEMM, as with the kernel off.
    for (float odd : {1.0f + 0x1p-20f, 0x1p-130f}) {
      std::vector<float> rhs_odd = rhs;
      rhs_odd[k * n - 5] = odd;  // late: the check reads chunks in order
      std::vector<float> eigen(m * n), mixed(m * n);
      DisableHostGemmBf16DotForTesting(true);
      ASSERT_TRUE(HostGemm(c, lhs.data(), rhs_odd.data(), eigen.data()).ok());
      DisableHostGemmBf16DotForTesting(false);
      ASSERT_TRUE(HostGemm(c, lhs.data(), rhs_odd.data(), mixed.data()).ok());
      EXPECT_EQ(std::memcmp(eigen.data(), mixed.data(), m * n * sizeof(float)), 0) << odd;
      // And the kernel's product is not bitwise Eigen's here (else the
      // first check could not tell the paths apart).
      if (odd > 1) {
        std::vector<float> plain(m * n);
        DisableHostGemmBf16DotForTesting(true);
        ASSERT_TRUE(HostGemm(c, lhs.data(), rhs.data(), plain.data()).ok());
        DisableHostGemmBf16DotForTesting(false);
        EXPECT_NE(std::memcmp(kernel.data(), plain.data(), m * n * sizeof(float)), 0);
      }
    }
  }
}

// Cut into column blocks on a pool (both operands then packed whole from
// f32 and shared), an f32 GEMM on bf16 values is still bitwise the
// kernel's whole-matrix product; so is each batch of a batched one.
TEST(HostGemmBf16, ColumnBlocksSharingPackedOperandsMatchTheWholeProduct) {
  const AmxOff amx_off;
  if (!CpuRunsKernel() || std::getenv("XLA_HOST_GEMM_ISA") != nullptr) {
    GTEST_SKIP() << "the kernel does not run here";
  }
  static HostThreadPool pool(2);
  const int64_t m = 40, n = 300, k = 257;
  for (bool tl : {false, true}) {
    SCOPED_TRACE(::testing::Message() << "tl " << tl);
    std::mt19937 rng(static_cast<unsigned>(77 + tl));
    BlasGemmConfig c = Bf16Config(m, n, k, tl, false);
    c.element_type = BlasElementType::kF32;
    HostGemmThreading threading;
    threading.pool = &pool;
    threading.min_parallel_macs = 0;
    ASSERT_EQ(HostGemmWorkUnits(c, threading.min_parallel_macs), 2);  // two column blocks
    const std::vector<Bf16> lhs16 = RandomBf16(m * k, rng), rhs16 = RandomBf16(k * n, rng);
    std::vector<float> lhs(lhs16.begin(), lhs16.end()), rhs(rhs16.begin(), rhs16.end());
    std::vector<float> kernel(m * n), host(m * n, std::nanf(""));
    std::vector<char> scratch;
    HostGemmBf16DotBlock(c, Bits(lhs16), Bits(rhs16), kernel.data(), HostGemmBlock{0, m, 0, n},
                         Aligned(scratch, HostGemmBf16DotScratchBytes(m, n, k)));
    ASSERT_TRUE(HostGemm(c, lhs.data(), rhs.data(), host.data(), threading).ok());
    EXPECT_EQ(std::memcmp(kernel.data(), host.data(), m * n * sizeof(float)), 0);
    // Three batches (narrowed, then the lhs of each packed once), a shared
    // rhs: each batch bitwise the kernel's product.
    BlasGemmConfig batched = c;
    batched.batch_size = 3;
    batched.lhs_batch_stride = m * k + 5;
    batched.rhs_batch_stride = 0;
    batched.output_batch_stride = m * n + 2;
    std::vector<float> lhs3(3 * batched.lhs_batch_stride, 0.0f);
    for (int64_t b = 0; b < 3; ++b) {
      for (int64_t i = 0; i < m * k; ++i) lhs3[b * batched.lhs_batch_stride + i] = lhs[(i + b) % (m * k)];
    }
    std::vector<float> out3(3 * batched.output_batch_stride, std::nanf(""));
    ASSERT_TRUE(HostGemm(batched, lhs3.data(), rhs.data(), out3.data(), threading).ok());
    for (int64_t b = 0; b < 3; ++b) {
      std::vector<Bf16> lhs_b(m * k);
      for (int64_t i = 0; i < m * k; ++i) lhs_b[i] = Bf16(lhs3[b * batched.lhs_batch_stride + i]);
      HostGemmBf16DotBlock(c, Bits(lhs_b), Bits(rhs16), kernel.data(), HostGemmBlock{0, m, 0, n},
                           Aligned(scratch, HostGemmBf16DotScratchBytes(m, n, k)));
      EXPECT_EQ(std::memcmp(kernel.data(), out3.data() + b * batched.output_batch_stride,
                            m * n * sizeof(float)),
                0)
          << "batch " << b;
    }
  }
}

// Which path runs: the kernel exactly where the CPU has it (and no
// XLA_HOST_GEMM_ISA cap), never while a test disables it.
TEST(HostGemmBf16, UsesTheKernelWhereTheCpuHasIt) {
  if (std::getenv("XLA_HOST_GEMM_ISA") != nullptr) GTEST_SKIP() << "XLA_HOST_GEMM_ISA is set";
  EXPECT_EQ(HostGemmBf16Dot(), CpuRunsKernel());
  DisableHostGemmBf16DotForTesting(true);
  EXPECT_FALSE(HostGemmBf16Dot());
  DisableHostGemmBf16DotForTesting(false);
  EXPECT_EQ(HostGemmBf16Dot(), CpuRunsKernel());
}

}  // namespace
}  // namespace stream_executor::host
