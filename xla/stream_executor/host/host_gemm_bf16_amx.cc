// Compiled with AVX-512 F, BW, VL, DQ and AMX-TILE, AMX-BF16 (see the header
// and BUILD): everything here is in an anonymous namespace except the
// header's entry points, and nothing includes a template library, so no
// AVX-512 or AMX code can be picked by the linker for portable callers.
#include "xla/stream_executor/host/host_gemm_bf16_amx.h"

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#if !defined(__AMX_TILE__) || !defined(__AMX_BF16__) || !defined(__AVX512F__)
#error "host_gemm_bf16_amx.cc is built with -mamx-tile -mamx-bf16 (its BUILD target)"
#endif

namespace stream_executor::host {
namespace {

constexpr int64_t kPanel = kBf16AmxPanel;
constexpr int64_t kTilePairs = 16;                 // pairs (words) per tile row
constexpr int64_t kTileWords = kPanel * kTilePairs;  // 32-bit words per tile
constexpr int64_t kTileRowBytes = kTilePairs * 4;    // 64: a tile row
static_assert(kTileRowBytes == 64, "a tile row is 64 bytes (palette 1's maximum)");

int64_t Pairs(int64_t k) { return (k + 1) / 2; }
int64_t DepthTiles(int64_t k) { return (Pairs(k) + kTilePairs - 1) / kTilePairs; }
int64_t Panels(int64_t extent) { return (extent + kPanel - 1) / kPanel; }
int64_t Lo(int64_t a, int64_t b) { return a < b ? a : b; }

// One operand as the packer reads it: element (index, kk) of op(operand) at
// src[index * index_stride + kk * k_stride], index in [0, count) (the
// block's rows or columns), kk in [0, k). T is uint16_t (bf16 bits) or
// float (f32 values that should be bf16 values).
template <typename T>
struct Operand {
  const T* src;
  int64_t index_stride;
  int64_t k_stride;
  int64_t count;
  int64_t k;
};

// The bf16 bits of an element.
inline uint32_t Half(uint16_t x, uint32_t& /*bad*/) { return x; }

// The high half of an f32; ORs into `bad` its low half, and 1 when it is
// subnormal (TDPBF16PS would read it as zero), so `bad` stays 0 exactly
// while every value is a bf16 value that is not subnormal.
inline uint32_t Half(float x, uint32_t& bad) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  bad |= (bits & 0xffffu) |
         static_cast<uint32_t>((bits & 0x7f800000u) == 0 && (bits & 0x7fffffffu) != 0);
  return bits >> 16;
}

// Element (index, kk)'s bits, zero past count or k.
template <typename T>
uint32_t At(const Operand<T>& x, int64_t index, int64_t kk, uint32_t& bad) {
  if (index >= x.count || kk >= x.k) return 0;
  return Half(x.src[index * x.index_stride + kk * x.k_stride], bad);
}

// One tile of indices [index0, index0 + 16) and pairs [pair0, pair0 + 16):
// word (t, q) (kA: an A tile of op(lhs)) or (q, t) (a B tile of op(rhs)) is
// pair pair0 + q of index index0 + t.
template <typename T, bool kA>
void PackTile(const Operand<T>& x, int64_t index0, int64_t pair0, uint32_t* tile, uint32_t& bad) {
  uint32_t b = 0;
  const bool inside = index0 + kPanel <= x.count && 2 * (pair0 + kTilePairs) <= x.k;
  if (!inside) {
    for (int64_t o = 0; o < 16; ++o) {
      for (int64_t i = 0; i < 16; ++i) {
        const int64_t t = kA ? o : i, q = kA ? i : o;
        const int64_t kk = 2 * (pair0 + q);
        tile[o * 16 + i] = At(x, index0 + t, kk, b) | (At(x, index0 + t, kk + 1, b) << 16);
      }
    }
  } else if (kA && x.k_stride == 1) {
    // Rows contiguous along k (a row-major lhs): each tile row is 32
    // consecutive elements.
    for (int64_t t = 0; t < 16; ++t) {
      const T* row = x.src + (index0 + t) * x.index_stride + 2 * pair0;
      for (int64_t q = 0; q < 16; ++q) {
        tile[t * 16 + q] = Half(row[2 * q], b) | (Half(row[2 * q + 1], b) << 16);
      }
    }
  } else if (!kA && x.index_stride == 1) {
    // Columns contiguous (a row-major rhs): interleave two rows of 16.
    for (int64_t q = 0; q < 16; ++q) {
      const T* even = x.src + index0 + 2 * (pair0 + q) * x.k_stride;
      const T* odd = even + x.k_stride;
      for (int64_t t = 0; t < 16; ++t) tile[q * 16 + t] = Half(even[t], b) | (Half(odd[t], b) << 16);
    }
  } else {
    for (int64_t o = 0; o < 16; ++o) {
      for (int64_t i = 0; i < 16; ++i) {
        const int64_t t = kA ? o : i, q = kA ? i : o;
        const T* e = x.src + (index0 + t) * x.index_stride + 2 * (pair0 + q) * x.k_stride;
        tile[o * 16 + i] = Half(e[0], b) | (Half(e[x.k_stride], b) << 16);
      }
    }
  }
  bad |= b;
}

// All panels of `x` into dst (panel after panel, a panel's depth tiles in
// order). Returns false at the end of the first panel that held an f32
// that is no exact, normal bf16 value; always true for bf16 bits.
template <typename T, bool kA>
bool PackPanels(const Operand<T>& x, int64_t first, int64_t end, uint32_t* dst) {
  const int64_t tiles = DepthTiles(x.k);
  for (int64_t panel = first; panel < end; ++panel) {
    uint32_t bad = 0;
    for (int64_t d = 0; d < tiles; ++d) {
      PackTile<T, kA>(x, panel * kPanel, d * kTilePairs, dst + (panel * tiles + d) * kTileWords,
                      bad);
    }
    if (bad != 0) return false;
  }
  return true;
}

// B tiles of an op(rhs) whose columns are contiguous (a row-major rhs):
// pairs [pair_begin, pair_end) (of DepthTiles(k) * 16, the padding
// included) of every panel, reading the source rows in order. (A panel at
// a time reads 64 bytes per source row, a new page each time for a wide
// rhs: no prefetch, a TLB miss per line; it took longer than the AMX
// product.) Returns the OR of Half's `bad` over what it read.
template <typename T>
uint32_t PackRowMajorRhs(const Operand<T>& x, int64_t pair_begin, int64_t pair_end,
                         uint32_t* dst) {
  const int64_t panel_words = DepthTiles(x.k) * kTileWords;
  const int64_t full_panels = x.count / kPanel, valid = x.count % kPanel;
  uint32_t bad = 0;
  for (int64_t p = pair_begin; p < pair_end; ++p) {
    // Word row p of every panel's B tiles: tile p / 16, row p % 16.
    uint32_t* row = dst + (p / kTilePairs) * kTileWords + (p % kTilePairs) * kPanel;
    if (2 * p >= x.k) {
      for (int64_t panel = 0; panel < Panels(x.count); ++panel) {
        std::memset(row + panel * panel_words, 0, kTileRowBytes);
      }
      continue;
    }
    const T* even = x.src + 2 * p * x.k_stride;
    // An odd k's last pair has no second element: read the first again
    // and mask it off.
    const bool has_odd = 2 * p + 1 < x.k;
    const T* odd = has_odd ? even + x.k_stride : even;
    const uint32_t odd_mask = has_odd ? 0xffffu : 0u;
    for (int64_t panel = 0; panel < full_panels; ++panel) {
      uint32_t* out = row + panel * panel_words;
      const T* e = even + panel * kPanel;
      const T* o = odd + panel * kPanel;
      for (int64_t t = 0; t < kPanel; ++t) {
        out[t] = Half(e[t], bad) | ((Half(o[t], bad) & odd_mask) << 16);
      }
    }
    if (valid == 0) continue;
    uint32_t* out = row + full_panels * panel_words;
    const T* e = even + full_panels * kPanel;
    const T* o = odd + full_panels * kPanel;
    for (int64_t t = 0; t < valid; ++t) {
      out[t] = Half(e[t], bad) | ((Half(o[t], bad) & odd_mask) << 16);
    }
    for (int64_t t = valid; t < kPanel; ++t) out[t] = 0;
  }
  return bad;
}

template <typename T, bool kA>
bool Pack(const Operand<T>& x, uint32_t* dst) {
  if (!kA && x.index_stride == 1) {
    return PackRowMajorRhs(x, 0, DepthTiles(x.k) * kTilePairs, dst) == 0;
  }
  return PackPanels<T, kA>(x, 0, Panels(x.count), dst);
}

// op(lhs)'s rows [row0, row0 + rows): stored rows (m x k) or columns (k x m).
template <typename T>
Operand<T> LhsRows(const BlasGemmConfig& c, const T* lhs, int64_t row0, int64_t rows) {
  return c.transpose_lhs ? Operand<T>{lhs + row0, 1, c.m, rows, c.k}
                         : Operand<T>{lhs + row0 * c.k, c.k, 1, rows, c.k};
}

// op(rhs)'s columns [col0, col0 + cols): stored rows (k x n) or columns (n x k).
template <typename T>
Operand<T> RhsColumns(const BlasGemmConfig& c, const T* rhs, int64_t col0, int64_t cols) {
  return c.transpose_rhs ? Operand<T>{rhs + col0 * c.k, c.k, 1, cols, c.k}
                         : Operand<T>{rhs + col0, 1, c.n, cols, c.k};
}

// LDTILECFG's operand (palette 1): tiles 0-3 the 16 x 16 f32 outputs, 4-5
// A tiles, 6-7 B tiles, all 16 rows of 64 bytes.
struct alignas(64) TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};
static_assert(sizeof(TileConfig) == 64, "LDTILECFG reads 64 bytes");

TileConfig EightFullTiles() {
  TileConfig config;
  for (int i = 0; i < 8; ++i) {
    config.colsb[i] = kTileRowBytes;
    config.rows[i] = kPanel;
  }
  return config;
}

// The tile intrinsics take the register number as a literal: these
// switches over the output tiles fold away where `tile` is a constant.
void ZeroOut(int tile) {
  switch (tile) {
    case 0: _tile_zero(0); break;
    case 1: _tile_zero(1); break;
    case 2: _tile_zero(2); break;
    case 3: _tile_zero(3); break;
  }
}

void LoadOut(int tile, const float* src, int64_t stride_bytes) {
  switch (tile) {
    case 0: _tile_loadd(0, src, stride_bytes); break;
    case 1: _tile_loadd(1, src, stride_bytes); break;
    case 2: _tile_loadd(2, src, stride_bytes); break;
    case 3: _tile_loadd(3, src, stride_bytes); break;
  }
}

void StoreOut(int tile, float* dst, int64_t stride_bytes) {
  switch (tile) {
    case 0: _tile_stored(0, dst, stride_bytes); break;
    case 1: _tile_stored(1, dst, stride_bytes); break;
    case 2: _tile_stored(2, dst, stride_bytes); break;
    case 3: _tile_stored(3, dst, stride_bytes); break;
  }
}

// One 16 x 16 output tile in the product: at `c` (row stride ldc floats),
// `rows` x `cols` of it inside the block (1 to 16 each).
struct OutTile {
  float* c;
  int64_t ldc, rows, cols;
  bool whole() const { return rows == kPanel && cols == kPanel; }
};

// Tile register `tile` := zero (first depth slice) or the partial sums in
// the product; a partial tile goes through `buf` (16 x 16 floats).
void Begin(int tile, const OutTile& o, bool first, float* buf) {
  if (first) return ZeroOut(tile);
  if (o.whole()) return LoadOut(tile, o.c, o.ldc * 4);
  std::memset(buf, 0, kTileWords * 4);
  for (int64_t r = 0; r < o.rows; ++r) std::memcpy(buf + r * kPanel, o.c + r * o.ldc, o.cols * 4);
  LoadOut(tile, buf, kTileRowBytes);
}

// The product := tile register `tile` (its part inside the block).
void End(int tile, const OutTile& o, float* buf) {
  if (o.whole()) return StoreOut(tile, o.c, o.ldc * 4);
  StoreOut(tile, buf, kTileRowBytes);
  for (int64_t r = 0; r < o.rows; ++r) std::memcpy(o.c + r * o.ldc, buf + r * kPanel, o.cols * 4);
}

// kR x kC output tiles (registers 0, 1 / 2, 3 by row) += the `tiles` depth
// tiles of A panels a[0..kR) and B panels b[0..kC).
template <int kR, int kC>
void Dot(const uint32_t* const* a, const uint32_t* const* b, int64_t tiles) {
  for (int64_t d = 0; d < tiles; ++d) {
    const int64_t at = d * kTileWords;
    _tile_loadd(4, a[0] + at, kTileRowBytes);
    _tile_loadd(6, b[0] + at, kTileRowBytes);
    _tile_dpbf16ps(0, 4, 6);
    if constexpr (kC == 2) {
      _tile_loadd(7, b[1] + at, kTileRowBytes);
      _tile_dpbf16ps(1, 4, 7);
    }
    if constexpr (kR == 2) {
      _tile_loadd(5, a[1] + at, kTileRowBytes);
      _tile_dpbf16ps(2, 5, 6);
    }
    if constexpr (kR == 2 && kC == 2) _tile_dpbf16ps(3, 5, 7);
  }
}

// The packed operands of one block and where its product goes.
struct Job {
  const uint32_t* a;  // A panels, DepthTiles(k) tiles each
  const uint32_t* b;  // B panels
  int64_t tiles;      // depth tiles
  float* out;         // the block's first output
  int64_t ldc, rows, cols;
};

// Output tiles [p, p + 2) x [q, q + 2) (those inside the block) over depth
// tiles [d0, d0 + slice).
void Step(const Job& j, int64_t p, int64_t q, int64_t d0, int64_t slice, float* buf) {
  const int64_t nr = Lo(2, Panels(j.rows) - p), nc = Lo(2, Panels(j.cols) - q);
  const uint32_t* a[2];
  const uint32_t* b[2];
  OutTile o[4];
  for (int64_t r = 0; r < nr; ++r) a[r] = j.a + ((p + r) * j.tiles + d0) * kTileWords;
  for (int64_t c = 0; c < nc; ++c) b[c] = j.b + ((q + c) * j.tiles + d0) * kTileWords;
  for (int64_t r = 0; r < nr; ++r) {
    for (int64_t c = 0; c < nc; ++c) {
      const int64_t row = (p + r) * kPanel, col = (q + c) * kPanel;
      o[r * 2 + c] = OutTile{j.out + row * j.ldc + col, j.ldc, Lo(kPanel, j.rows - row),
                             Lo(kPanel, j.cols - col)};
      Begin(static_cast<int>(r * 2 + c), o[r * 2 + c], d0 == 0, buf);
    }
  }
  if (nr == 2 && nc == 2) {
    Dot<2, 2>(a, b, slice);
  } else if (nr == 2) {
    Dot<2, 1>(a, b, slice);
  } else if (nc == 2) {
    Dot<1, 2>(a, b, slice);
  } else {
    Dot<1, 1>(a, b, slice);
  }
  for (int64_t r = 0; r < nr; ++r) {
    for (int64_t c = 0; c < nc; ++c) End(static_cast<int>(r * 2 + c), o[r * 2 + c], buf);
  }
}

// The block's product: depth slices outermost (the slice's B panels stay in
// L1 while every row pair passes), 2 x 2 output tiles per step.
void Run(const Job& j) {
  const TileConfig config = EightFullTiles();
  _tile_loadconfig(&config);
  alignas(64) float buf[kTileWords];
  const int64_t row_panels = Panels(j.rows), col_panels = Panels(j.cols);
  for (int64_t d0 = 0; d0 < j.tiles; d0 += kBf16AmxDepthTiles) {
    const int64_t slice = Lo(kBf16AmxDepthTiles, j.tiles - d0);
    for (int64_t q = 0; q < col_panels; q += 2) {
      for (int64_t p = 0; p < row_panels; p += 2) Step(j, p, q, d0, slice, buf);
    }
  }
  _tile_release();
}

}  // namespace

int64_t HostGemmBf16AmxPackedLhsBytes(int64_t rows, int64_t k) {
  return Panels(rows) * DepthTiles(k) * kTileWords * 4;
}

int64_t HostGemmBf16AmxPackedRhsBytes(int64_t cols, int64_t k) {
  return Panels(cols) * DepthTiles(k) * kTileWords * 4;
}

int64_t HostGemmBf16AmxScratchBytes(int64_t rows, int64_t cols, int64_t k) {
  return HostGemmBf16AmxPackedLhsBytes(rows, k) + HostGemmBf16AmxPackedRhsBytes(cols, k);
}

void HostGemmBf16AmxPackLhs(const BlasGemmConfig& c, const uint16_t* lhs, void* packed) {
  Pack<uint16_t, true>(LhsRows(c, lhs, 0, c.m), static_cast<uint32_t*>(packed));
}

bool HostGemmBf16AmxPackExactF32(const BlasGemmConfig& c, const float* lhs, const float* rhs,
                                 void* packed_lhs, void* packed_rhs) {
  return Pack<float, true>(LhsRows(c, lhs, 0, c.m), static_cast<uint32_t*>(packed_lhs)) &&
         Pack<float, false>(RhsColumns(c, rhs, 0, c.n), static_cast<uint32_t*>(packed_rhs));
}

bool HostGemmBf16AmxPackExactF32Share(const BlasGemmConfig& c, const float* lhs, const float* rhs,
                                      int64_t share, int64_t shares, void* packed_lhs,
                                      void* packed_rhs) {
  // The share's run of [0, extent).
  auto first = [&](int64_t extent) { return extent * share / shares; };
  auto end = [&](int64_t extent) { return extent * (share + 1) / shares; };
  const int64_t lhs_panels = Panels(c.m);
  if (!PackPanels<float, true>(LhsRows(c, lhs, 0, c.m), first(lhs_panels), end(lhs_panels),
                               static_cast<uint32_t*>(packed_lhs))) {
    return false;
  }
  const Operand<float> r = RhsColumns(c, rhs, 0, c.n);
  uint32_t* const packed_r = static_cast<uint32_t*>(packed_rhs);
  if (r.index_stride == 1) {
    const int64_t pairs = DepthTiles(c.k) * kTilePairs;
    return PackRowMajorRhs(r, first(pairs), end(pairs), packed_r) == 0;
  }
  const int64_t rhs_panels = Panels(c.n);
  return PackPanels<float, false>(r, first(rhs_panels), end(rhs_panels), packed_r);
}

void HostGemmBf16AmxBlock(const BlasGemmConfig& c, const uint16_t* lhs, const uint16_t* rhs,
                          const Bf16DotPacked& packed, float* product, const HostGemmBlock& block,
                          void* scratch) {
  float* const out = product + block.row0 * c.n + block.col0;
  if (block.rows <= 0 || block.cols <= 0) return;
  if (c.k == 0) {
    for (int64_t i = 0; i < block.rows; ++i) std::memset(out + i * c.n, 0, block.cols * 4);
    return;
  }
  const int64_t tiles = DepthTiles(c.k);
  // Operands packed whole: this block's panels. Otherwise the block packs
  // its own into scratch.
  uint32_t* const own_b = static_cast<uint32_t*>(scratch);
  uint32_t* const own_a = own_b + Panels(block.cols) * tiles * kTileWords;
  const uint32_t* b = own_b;
  if (packed.rhs != nullptr && block.col0 % kPanel == 0) {
    b = static_cast<const uint32_t*>(packed.rhs) + (block.col0 / kPanel) * tiles * kTileWords;
  } else {
    Pack<uint16_t, false>(RhsColumns(c, rhs, block.col0, block.cols), own_b);
  }
  const uint32_t* a = own_a;
  if (packed.lhs != nullptr && block.row0 % kPanel == 0) {
    a = static_cast<const uint32_t*>(packed.lhs) + (block.row0 / kPanel) * tiles * kTileWords;
  } else {
    Pack<uint16_t, true>(LhsRows(c, lhs, block.row0, block.rows), own_a);
  }
  Run(Job{a, b, tiles, out, c.n, block.rows, block.cols});
}

}  // namespace stream_executor::host
