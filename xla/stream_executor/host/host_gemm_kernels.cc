// Built three times (see host_gemm_kernels.h): XLA_HOST_GEMM_KERNELS names the
// table this copy defines; the compiler's flags decide its instruction set.
#include "xla/stream_executor/host/host_gemm_kernels.h"

#include <type_traits>

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

// Inputs in Storage, arithmetic in Acc; every block of a GEMM runs the same
// expression types, so a blocked product is deterministic.
template <typename Storage, typename Acc>
void GemmBlock(const BlasGemmConfig& c, const void* lhs_bytes, const void* rhs_bytes, void* out_bytes,
               const HostGemmBlock& block) {
  const Storage* lhs = static_cast<const Storage*>(lhs_bytes);
  const Storage* rhs = static_cast<const Storage*>(rhs_bytes);
  Storage* out = static_cast<Storage*>(out_bytes);
  const int64_t rows = block.rows, cols = block.cols;
  // op(lhs) rows are stored rows (row-major m x k) or stored columns (k x m).
  StridedMap<Storage> l =
      c.transpose_lhs
          ? StridedMap<Storage>(lhs + block.row0, c.k, rows, Eigen::OuterStride<>(c.m))
          : StridedMap<Storage>(lhs + block.row0 * c.k, rows, c.k, Eigen::OuterStride<>(c.k));
  // op(rhs) columns are stored columns (row-major k x n) or stored rows
  // (n x k).
  StridedMap<Storage> r =
      c.transpose_rhs
          ? StridedMap<Storage>(rhs + block.col0 * c.k, cols, c.k, Eigen::OuterStride<>(c.k))
          : StridedMap<Storage>(rhs + block.col0, c.k, cols, Eigen::OuterStride<>(c.n));
  Eigen::Map<RowMajor<Storage>, Eigen::Unaligned, Eigen::OuterStride<>> o(
      out + block.row0 * c.n + block.col0, rows, cols, Eigen::OuterStride<>(c.n));
  // Same-type operands are used in place; others are converted once.
  using Operand = std::conditional_t<std::is_same_v<Storage, Acc>, const StridedMap<Storage>&,
                                     const RowMajor<Acc>>;
  Operand lhs_acc = l.template cast<Acc>();
  Operand rhs_acc = r.template cast<Acc>();
  auto product_into = [&](auto& dst) {
    if (c.transpose_lhs && c.transpose_rhs) {
      dst.noalias() = lhs_acc.transpose() * rhs_acc.transpose();
    } else if (c.transpose_lhs) {
      dst.noalias() = lhs_acc.transpose() * rhs_acc;
    } else if (c.transpose_rhs) {
      dst.noalias() = lhs_acc * rhs_acc.transpose();
    } else {
      dst.noalias() = lhs_acc * rhs_acc;
    }
  };
  // The common case writes the product straight into the output.
  if constexpr (std::is_same_v<Storage, Acc>) {
    if (c.alpha == 1 && c.beta == 0) {
      product_into(o);
      return;
    }
  }
  RowMajor<Acc> product(rows, cols);
  product_into(product);
  const Acc alpha = static_cast<Acc>(c.alpha);
  const Acc beta = static_cast<Acc>(c.beta);
  if (c.beta == 0) {
    o = (alpha * product).template cast<Storage>();
  } else {
    o = (alpha * product + beta * o.template cast<Acc>()).template cast<Storage>();
  }
}

}  // namespace

const HostGemmKernels& XLA_HOST_GEMM_KERNELS() {
  static constexpr HostGemmKernels kKernels = {
      kIsa,
      &GemmBlock<float, float>,
      &GemmBlock<double, double>,
      &GemmBlock<Eigen::half, float>,
      &GemmBlock<Eigen::bfloat16, float>,
  };
  return kKernels;
}

}  // namespace stream_executor::host
