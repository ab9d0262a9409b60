// Built three times (see host_gemm_kernels.h): XLA_HOST_GEMM_KERNELS names the
// table this copy defines; the compiler's flags decide its instruction set.
#include "xla/stream_executor/host/host_gemm_kernels.h"

#include <cstdint>

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
      {&Widen<Eigen::half>, &Narrow<Eigen::half>},
      {&Widen<Eigen::bfloat16>, &Narrow<Eigen::bfloat16>},
  };
  return kKernels;
}

}  // namespace stream_executor::host
