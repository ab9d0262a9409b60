// Compiled with AVX-512 F, BW, VL, DQ and BF16 (see the header and BUILD):
// everything here is in an anonymous namespace except the header's entry points,
// and nothing includes a template library, so no AVX-512 code can be picked
// by the linker for portable callers.
#include "xla/stream_executor/host/host_gemm_bf16_dot.h"

#include <immintrin.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#if !defined(__AVX512BF16__) || !defined(__AVX512F__) || !defined(__AVX512BW__)
#error "host_gemm_bf16_dot.cc is built with -mavx512bf16 (its BUILD target)"
#endif

namespace stream_executor::host {
namespace {

constexpr int64_t kRows = kBf16DotRows;
constexpr int64_t kCols = kBf16DotCols;
constexpr int64_t kVectors = kCols / 16;  // f32 zmm vectors per tile row
static_assert(kCols % 16 == 0, "the tile's columns are whole zmm vectors");

int64_t Pairs(int64_t k) { return (k + 1) / 2; }
int64_t Panels(int64_t extent, int64_t width) { return (extent + width - 1) / width; }
int64_t Lo(int64_t a, int64_t b) { return a < b ? a : b; }

// One operand's elements as the packer sees them: element (index, kk) of
// op(operand) at src[index * index_stride + kk * k_stride], for index in
// [0, count) (the block's rows or columns) and kk in [0, k). T is uint16_t
// (bf16 bits) or float (f32 values that should be bf16 values).
template <typename T>
struct Operand {
  const T* src;
  int64_t index_stride;
  int64_t k_stride;
  int64_t count;
  int64_t k;
};

// The bf16 bits of an element.
inline uint32_t Half(uint16_t x, uint32_t* /*bad*/) { return x; }

// The high half of an f32; ORs into *bad its low half and 1 when it is
// subnormal (exponent zero, magnitude not: vdpbf16ps would read it as zero),
// so *bad stays 0 exactly while every value is a bf16 value that is not
// subnormal.
inline uint32_t Half(float x, uint32_t* bad) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  *bad |= (bits & 0xffffu) |
          static_cast<uint32_t>((bits & 0x7f800000u) == 0 && (bits & 0x7fffffffu) != 0);
  return bits >> 16;
}

// dst[(panel * pairs + p) * width + t] = the pair (k = 2p, 2p + 1) of index
// panel * width + t, zero past count and past k. Returns false at the end
// of the first panel that held an f32 that is no exact, normal bf16 value
// (dst then holds garbage); always true for bf16 bits.
template <typename T>
bool Pack(const Operand<T>& x, int64_t width, uint32_t* dst) {
  const int64_t pairs = Pairs(x.k);
  const int64_t panels = Panels(x.count, width);
  for (int64_t panel = 0; panel < panels; ++panel) {
    const int64_t first = panel * width;
    const int64_t valid = Lo(width, x.count - first);
    uint32_t bad = 0;
    for (int64_t p = 0; p < pairs; ++p) {
      uint32_t* out = dst + (panel * pairs + p) * width;
      const T* even = x.src + first * x.index_stride + 2 * p * x.k_stride;
      const bool has_odd = 2 * p + 1 < x.k;
      const T* odd = even + x.k_stride;
      if (x.index_stride == 1 && has_odd && valid == width) {
        // Contiguous along the panel (a row-major rhs, a transposed lhs):
        // the compiler vectorizes the interleave.
        for (int64_t t = 0; t < width; ++t) out[t] = Half(even[t], &bad) | (Half(odd[t], &bad) << 16);
        continue;
      }
      if constexpr (std::is_same_v<T, uint16_t>) {
        if (x.k_stride == 1 && has_odd) {
          // bf16 contiguous along k (a row-major lhs, a transposed rhs):
          // the pair is one 32-bit word of the source, low half first (x86
          // is little endian).
          for (int64_t t = 0; t < valid; ++t) std::memcpy(out + t, even + t * x.index_stride, 4);
          for (int64_t t = valid; t < width; ++t) out[t] = 0;
          continue;
        }
      }
      for (int64_t t = 0; t < valid; ++t) {
        const uint32_t lo = Half(even[t * x.index_stride], &bad);
        const uint32_t hi = has_odd ? Half(odd[t * x.index_stride], &bad) : 0;
        out[t] = lo | (hi << 16);
      }
      for (int64_t t = valid; t < width; ++t) out[t] = 0;
    }
    if (bad != 0) return false;
  }
  return true;
}

__mmask16 ColumnMask(int64_t cols, int64_t vector) {
  const int64_t n = cols - vector * 16;
  if (n >= 16) return 0xffff;
  if (n <= 0) return 0;
  return static_cast<__mmask16>((1u << n) - 1);
}

// The tile at `c` (row stride ldc; `rows` x `cols` of it valid) plus
// (accumulate) or replaced by the dot of `pairs` packed pairs of an lhs
// panel slice `a` and an rhs panel slice `b`.
void Tile(const uint32_t* a, const uint32_t* b, int64_t pairs, float* c, int64_t ldc, int64_t rows,
          int64_t cols, bool accumulate) {
  __mmask16 mask[kVectors];
  for (int64_t v = 0; v < kVectors; ++v) mask[v] = ColumnMask(cols, v);
  __m512 acc[kRows][kVectors];
#pragma GCC unroll 8
  for (int64_t r = 0; r < kRows; ++r) {
#pragma GCC unroll 4
    for (int64_t v = 0; v < kVectors; ++v) {
      acc[r][v] = accumulate && r < rows ? _mm512_maskz_loadu_ps(mask[v], c + r * ldc + v * 16)
                                         : _mm512_setzero_ps();
    }
  }
  for (int64_t p = 0; p < pairs; ++p) {
    __m512bh bv[kVectors];
#pragma GCC unroll 4
    for (int64_t v = 0; v < kVectors; ++v) {
      bv[v] = reinterpret_cast<__m512bh>(_mm512_load_si512(b + p * kCols + v * 16));
    }
#pragma GCC unroll 8
    for (int64_t r = 0; r < kRows; ++r) {
      const __m512bh av = reinterpret_cast<__m512bh>(
          _mm512_set1_epi32(static_cast<int>(a[p * kRows + r])));
#pragma GCC unroll 4
      for (int64_t v = 0; v < kVectors; ++v) acc[r][v] = _mm512_dpbf16_ps(acc[r][v], av, bv[v]);
    }
  }
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t v = 0; v < kVectors; ++v) {
      _mm512_mask_storeu_ps(c + r * ldc + v * 16, mask[v], acc[r][v]);
    }
  }
}

// op(lhs)'s rows [row0, row0 + rows) as the packer reads them: stored rows
// (m x k) or stored columns (k x m).
template <typename T>
Operand<T> LhsRows(const BlasGemmConfig& c, const T* lhs, int64_t row0, int64_t rows) {
  return c.transpose_lhs ? Operand<T>{lhs + row0, 1, c.m, rows, c.k}
                         : Operand<T>{lhs + row0 * c.k, c.k, 1, rows, c.k};
}

// op(rhs)'s columns [col0, col0 + cols): stored rows (k x n) or stored
// columns (n x k).
template <typename T>
Operand<T> RhsColumns(const BlasGemmConfig& c, const T* rhs, int64_t col0, int64_t cols) {
  return c.transpose_rhs ? Operand<T>{rhs + col0 * c.k, c.k, 1, cols, c.k}
                         : Operand<T>{rhs + col0, 1, c.n, cols, c.k};
}

}  // namespace

int64_t HostGemmBf16DotScratchBytes(int64_t rows, int64_t cols, int64_t k) {
  return HostGemmBf16DotPackedLhsBytes(rows, k) + HostGemmBf16DotPackedRhsBytes(cols, k);
}

int64_t HostGemmBf16DotPackedLhsBytes(int64_t rows, int64_t k) {
  return Panels(rows, kRows) * kRows * Pairs(k) * 4;
}

int64_t HostGemmBf16DotPackedRhsBytes(int64_t cols, int64_t k) {
  return Panels(cols, kCols) * kCols * Pairs(k) * 4;
}

void HostGemmBf16DotPackLhs(const BlasGemmConfig& c, const uint16_t* lhs, void* packed) {
  Pack(LhsRows(c, lhs, 0, c.m), kRows, static_cast<uint32_t*>(packed));
}

bool HostGemmBf16DotPackExactF32(const BlasGemmConfig& c, const float* lhs, const float* rhs,
                                 void* packed_lhs, void* packed_rhs) {
  return Pack(LhsRows(c, lhs, 0, c.m), kRows, static_cast<uint32_t*>(packed_lhs)) &&
         Pack(RhsColumns(c, rhs, 0, c.n), kCols, static_cast<uint32_t*>(packed_rhs));
}

void HostGemmBf16DotBlock(const BlasGemmConfig& c, const uint16_t* lhs, const uint16_t* rhs,
                          float* product, const HostGemmBlock& block, void* scratch) {
  HostGemmBf16DotBlockPacked(c, lhs, rhs, Bf16DotPacked(), product, block, scratch);
}

void HostGemmBf16DotBlockPacked(const BlasGemmConfig& c, const uint16_t* lhs, const uint16_t* rhs,
                                const Bf16DotPacked& packed, float* product,
                                const HostGemmBlock& block, void* scratch) {
  float* const out = product + block.row0 * c.n + block.col0;
  if (c.k == 0) {
    for (int64_t i = 0; i < block.rows; ++i) std::memset(out + i * c.n, 0, block.cols * 4);
    return;
  }
  const int64_t pairs = Pairs(c.k);
  const int64_t row_panels = Panels(block.rows, kRows);
  const int64_t col_panels = Panels(block.cols, kCols);
  // Operands packed whole by the caller: this block's panels (a panel of
  // the whole starts every kRows rows, kCols columns). Otherwise the block
  // packs its own into scratch, the rhs first: its panels are 64-byte rows
  // (aligned loads).
  uint32_t* const own_b = static_cast<uint32_t*>(scratch);
  uint32_t* const own_a = own_b + col_panels * kCols * pairs;
  const uint32_t* b = own_b;
  if (packed.rhs != nullptr && block.col0 % kCols == 0) {
    b = static_cast<const uint32_t*>(packed.rhs) + block.col0 * pairs;
  } else {
    Pack(RhsColumns(c, rhs, block.col0, block.cols), kCols, own_b);
  }
  const uint32_t* a = own_a;
  if (packed.lhs != nullptr && block.row0 % kRows == 0) {
    a = static_cast<const uint32_t*>(packed.lhs) + block.row0 * pairs;
  } else {
    Pack(LhsRows(c, lhs, block.row0, block.rows), kRows, own_a);
  }
  for (int64_t p0 = 0; p0 < pairs; p0 += kBf16DotDepthPairs) {
    const int64_t slice = Lo(kBf16DotDepthPairs, pairs - p0);
    for (int64_t q = 0; q < col_panels; ++q) {
      const uint32_t* b_slice = b + (q * pairs + p0) * kCols;
      for (int64_t p = 0; p < row_panels; ++p) {
        Tile(a + (p * pairs + p0) * kRows, b_slice, slice, out + p * kRows * c.n + q * kCols, c.n,
             Lo(kRows, block.rows - p * kRows), Lo(kCols, block.cols - q * kCols), p0 > 0);
      }
    }
  }
}

bool HostGemmNarrowExactBf16(const float* src, uint16_t* dst, int64_t count) {
  constexpr int64_t kChunk = 1024;
  for (int64_t start = 0; start < count; start += kChunk) {
    const int64_t end = Lo(count, start + kChunk);
    uint32_t bad = 0;
    for (int64_t i = start; i < end; ++i) dst[i] = static_cast<uint16_t>(Half(src[i], &bad));
    if (bad != 0) return false;
  }
  return true;
}

bool HostGemmBf16ExactF32(const float* src, int64_t count) {
  uint32_t bad = 0;
  for (int64_t i = 0; i < count; ++i) Half(src[i], &bad);
  return bad == 0;
}

}  // namespace stream_executor::host
