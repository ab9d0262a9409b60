// Built three times (see host_gemm_kernels.h): XLA_HOST_GEMM_KERNELS names the
// table this copy defines; the compiler's flags decide its instruction set.
#include "xla/stream_executor/host/host_gemm_kernels.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "Eigen/Core"

#if !defined(XLA_HOST_GEMM_KERNELS)
#error "build host_gemm_kernels.cc through its BUILD targets (they name the table)"
#endif

namespace stream_executor::host {
namespace {

#if defined(__AVX512F__) && defined(__AVX512DQ__) && defined(__AVX512VL__) && defined(__AVX512BW__)
constexpr char kIsa[] = "avx512";
#elif defined(__AVX2__) && defined(__FMA__)
constexpr char kIsa[] = "avx2+fma";
#else
constexpr char kIsa[] = "sse2";
#endif

template <typename T>
using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using StridedMap = Eigen::Map<const RowMajor<T>, Eigen::Unaligned, Eigen::OuterStride<>>;

// Inputs and arithmetic in T (f32 or f64; HostGemm widens 16-bit floats
// first); every block of a GEMM runs the same expression types, so a
// blocked product is deterministic.
template <typename T>
void GemmBlock(const BlasGemmConfig& c, const void* lhs_bytes, const void* rhs_bytes, void* out_bytes,
               const HostGemmBlock& block) {
  const T* lhs = static_cast<const T*>(lhs_bytes);
  const T* rhs = static_cast<const T*>(rhs_bytes);
  T* out = static_cast<T*>(out_bytes);
  const int64_t rows = block.rows, cols = block.cols;
  // op(lhs) rows are stored rows (row-major m x k) or stored columns (k x m).
  StridedMap<T> l = c.transpose_lhs
                        ? StridedMap<T>(lhs + block.row0, c.k, rows, Eigen::OuterStride<>(c.m))
                        : StridedMap<T>(lhs + block.row0 * c.k, rows, c.k, Eigen::OuterStride<>(c.k));
  // op(rhs) columns are stored columns (row-major k x n) or stored rows
  // (n x k).
  StridedMap<T> r = c.transpose_rhs
                        ? StridedMap<T>(rhs + block.col0 * c.k, cols, c.k, Eigen::OuterStride<>(c.k))
                        : StridedMap<T>(rhs + block.col0, c.k, cols, Eigen::OuterStride<>(c.n));
  Eigen::Map<RowMajor<T>, Eigen::Unaligned, Eigen::OuterStride<>> o(
      out + block.row0 * c.n + block.col0, rows, cols, Eigen::OuterStride<>(c.n));
  auto product_into = [&](auto& dst) {
    if (c.transpose_lhs && c.transpose_rhs) {
      dst.noalias() = l.transpose() * r.transpose();
    } else if (c.transpose_lhs) {
      dst.noalias() = l.transpose() * r;
    } else if (c.transpose_rhs) {
      dst.noalias() = l * r.transpose();
    } else {
      dst.noalias() = l * r;
    }
  };
  // The common case writes the product straight into the output.
  if (c.alpha == 1 && c.beta == 0) {
    product_into(o);
    return;
  }
  RowMajor<T> product(rows, cols);
  product_into(product);
  const T alpha = static_cast<T>(c.alpha);
  const T beta = static_cast<T>(c.beta);
  if (c.beta == 0) {
    o = alpha * product;
  } else {
    o = alpha * product + beta * o;
  }
}

// The direct kernel for small GEMMs (HostGemmKernels::f32_small): no
// packing and no pass over the output before the product, GCC vectors of
// the build's width. The loops over a tile's rows, vectors and columns are
// unrolled (`#pragma GCC unroll`) so that its accumulators stay in
// registers: -O2 alone keeps them in memory.
#if defined(__AVX512F__)
constexpr int kVectorBytes = 64;
// Tiles of 8 x 3 accumulators + 3 rhs vectors + 1 broadcast of the 32
// registers.
constexpr int kTileRows = 8;
constexpr int kTileVectors = 3;
constexpr int kFewRowsVectors = 8;  // tiles of 1 or 2 rows: 2 x 8 + 8 + 1
#elif defined(__AVX__)
constexpr int kVectorBytes = 32;
// Of the 16 registers: 4 x 2 + 2 + 1, and 2 x 4 + 4 + 1.
constexpr int kTileRows = 4;
constexpr int kTileVectors = 2;
constexpr int kFewRowsVectors = 4;
#else
constexpr int kVectorBytes = 16;
constexpr int kTileRows = 4;
constexpr int kTileVectors = 2;
constexpr int kFewRowsVectors = 4;
#endif

template <typename T>
struct VectorOf {
  typedef T type __attribute__((vector_size(kVectorBytes)));
};
template <typename T>
using Vec = typename VectorOf<T>::type;
template <typename T>
constexpr int64_t kLanes = kVectorBytes / sizeof(T);

// Loads and stores of `count` <= kLanes leading lanes (the rest read as 0);
// memcpy, so any alignment.
template <typename T>
Vec<T> LoadLanes(const T* p, int64_t count) {
  Vec<T> v = {};
  std::memcpy(&v, p, count * sizeof(T));
  return v;
}
template <typename T>
Vec<T> Load(const T* p) {
  Vec<T> v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
template <typename T>
void StoreLanes(T* p, const Vec<T>& v, int64_t count) {
  std::memcpy(p, &v, count * sizeof(T));
}

// One block of a GEMM as the direct kernel sees it: op(lhs)(i, p) is
// lhs[i * lhs_row + p * lhs_col] (stored m x k or, transposed, k x m).
template <typename T>
struct Direct {
  const T* lhs;
  int64_t lhs_row, lhs_col;
  const T* rhs;  // stored k x n
  int64_t ldr;   // elements between its rows
  T* out;
  int64_t ldo;
  int64_t k;
  T alpha, beta;
  bool plain;  // alpha 1 and beta 0: store the sums as they are

  // out(i, j..) = alpha * acc + beta * out(i, j..) for the `count` lanes;
  // the output is not read when beta is 0.
  void Finish(int64_t i, int64_t j, Vec<T> acc, int64_t count) const {
    T* o = out + i * ldo + j;
    if (!plain) {
      acc = alpha * acc;
      if (beta != 0) acc += beta * LoadLanes(o, count);
    }
    StoreLanes(o, acc, count);
  }
};

// Rows [i0, i0 + R) by columns [j0, j0 + U * kLanes) of a GEMM whose rhs is
// stored k x n: each step along k broadcasts R lhs elements against U
// vectors of one rhs row. Each output is its k products added in order
// from 0, one multiply-add each. kPartial: U is 1 and only `count` lanes
// exist.
template <typename T, int R, int U, bool kPartial>
void BroadcastTile(const Direct<T>& d, int64_t i0, int64_t j0, int64_t count) {
  Vec<T> acc[R][U] = {};
  const T* a = d.lhs + i0 * d.lhs_row;
  const T* b = d.rhs + j0;
  for (int64_t p = 0; p < d.k; ++p, a += d.lhs_col, b += d.ldr) {
    Vec<T> rhs[U];
    #pragma GCC unroll 8
    for (int u = 0; u < U; ++u) {
      rhs[u] = kPartial ? LoadLanes(b, count) : Load(b + u * kLanes<T>);
    }
    #pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const T x = a[r * d.lhs_row];
      #pragma GCC unroll 8
      for (int u = 0; u < U; ++u) acc[r][u] += x * rhs[u];
    }
  }
  #pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    #pragma GCC unroll 8
    for (int u = 0; u < U; ++u) {
      d.Finish(i0 + r, j0 + u * kLanes<T>, acc[r][u], kPartial ? count : kLanes<T>);
    }
  }
}

// Rows [i0, i0 + R) of the block's `cols` columns from `col0`: whole tiles
// of kTileVectors vectors (kFewRowsVectors for 1 or 2 rows, so that a
// matrix-vector product has as many independent sums), then single
// vectors, then the partial one.
template <typename T, int R>
void BroadcastRows(const Direct<T>& d, int64_t i0, int64_t col0, int64_t cols) {
  constexpr int kVectors = R <= 2 ? kFewRowsVectors : kTileVectors;
  constexpr int64_t kWide = kVectors * kLanes<T>;
  int64_t j = col0;
  const int64_t end = col0 + cols;
  for (; j + kWide <= end; j += kWide) BroadcastTile<T, R, kVectors, false>(d, i0, j, kLanes<T>);
  for (; j + kLanes<T> <= end; j += kLanes<T>) BroadcastTile<T, R, 1, false>(d, i0, j, kLanes<T>);
  if (j < end) BroadcastTile<T, R, 1, true>(d, i0, j, end - j);
}

template <typename T>
using RowsOfTile = void (*)(const Direct<T>&, int64_t, int64_t, int64_t);

// BroadcastRows<T, R> for R = 1 .. 8 (at most kTileRows are used), indexed
// by R - 1.
template <typename T>
constexpr RowsOfTile<T> kBroadcastRows[] = {
    &BroadcastRows<T, 1>, &BroadcastRows<T, 2>, &BroadcastRows<T, 3>, &BroadcastRows<T, 4>,
    &BroadcastRows<T, 5>, &BroadcastRows<T, 6>, &BroadcastRows<T, 7>, &BroadcastRows<T, 8>};
static_assert(kTileRows <= 8, "kBroadcastRows covers the tile heights");

// The direct kernel, as HostGemmRowsFn. Does not take a transposed rhs
// (HostGemm keeps Eigen for that).
template <typename T>
void SmallGemmBlock(const BlasGemmConfig& c, const void* lhs_bytes, const void* rhs_bytes,
                    void* out_bytes, const HostGemmBlock& block) {
  Direct<T> d;
  d.lhs = static_cast<const T*>(lhs_bytes);
  d.lhs_row = c.transpose_lhs ? 1 : c.k;
  d.lhs_col = c.transpose_lhs ? c.m : 1;
  d.rhs = static_cast<const T*>(rhs_bytes);
  d.ldr = c.n;
  d.out = static_cast<T*>(out_bytes);
  d.ldo = c.n;
  d.k = c.k;
  d.alpha = static_cast<T>(c.alpha);
  d.beta = static_cast<T>(c.beta);
  d.plain = c.alpha == 1 && c.beta == 0;
  const int64_t end = block.row0 + block.rows;
  for (int64_t i = block.row0; i < end; i += kTileRows) {
    const int64_t rows = std::min<int64_t>(kTileRows, end - i);
    kBroadcastRows<T>[rows - 1](d, i, block.col0, block.cols);
  }
}

// The 16-bit float conversions, vectorized by Eigen where the instruction set
// has the packets (F16C under AVX2, AVX-512's bf16 shifts).
template <typename Half>
void Widen(const void* src, float* dst, int64_t count) {
  Eigen::Map<const Eigen::Array<Half, Eigen::Dynamic, 1>> in(static_cast<const Half*>(src), count);
  Eigen::Map<Eigen::ArrayXf>(dst, count) = in.template cast<float>();
}

template <typename Half>
void Narrow(const float* acc, void* out_bytes, int64_t count, float alpha, float beta) {
  Eigen::Map<const Eigen::ArrayXf> a(acc, count);
  Eigen::Map<Eigen::Array<Half, Eigen::Dynamic, 1>> out(static_cast<Half*>(out_bytes), count);
  if (beta == 0) {
    out = (alpha * a).template cast<Half>();
  } else {
    out = (alpha * a + beta * out.template cast<float>()).template cast<Half>();
  }
}

}  // namespace

const HostGemmKernels& XLA_HOST_GEMM_KERNELS() {
  static constexpr HostGemmKernels kKernels = {
      kIsa,
      &GemmBlock<float>,
      &GemmBlock<double>,
      &SmallGemmBlock<float>,
      &SmallGemmBlock<double>,
      {&Widen<Eigen::half>, &Narrow<Eigen::half>},
      {&Widen<Eigen::bfloat16>, &Narrow<Eigen::bfloat16>},
  };
  return kKernels;
}

}  // namespace stream_executor::host
