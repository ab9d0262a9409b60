#include "xla/backends/gpu/runtime/host_gemm.h"

#include "Eigen/Core"
#include "absl/strings/str_cat.h"

namespace xla::gpu {
namespace {

template <typename T>
using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// One batch, with inputs in Storage and arithmetic in Acc.
template <typename Storage, typename Acc>
void GemmBatch(const GemmConfig& c, const Storage* lhs, const Storage* rhs, Storage* out) {
  const int64_t lhs_rows = c.transpose_lhs ? c.k : c.m;
  const int64_t lhs_cols = c.transpose_lhs ? c.m : c.k;
  const int64_t rhs_rows = c.transpose_rhs ? c.n : c.k;
  const int64_t rhs_cols = c.transpose_rhs ? c.k : c.n;
  Eigen::Map<const RowMajor<Storage>> l(lhs, lhs_rows, lhs_cols);
  Eigen::Map<const RowMajor<Storage>> r(rhs, rhs_rows, rhs_cols);
  Eigen::Map<RowMajor<Storage>> o(out, c.m, c.n);
  RowMajor<Acc> lhs_acc = l.template cast<Acc>();
  RowMajor<Acc> rhs_acc = r.template cast<Acc>();
  RowMajor<Acc> product;
  if (c.transpose_lhs && c.transpose_rhs) {
    product = lhs_acc.transpose() * rhs_acc.transpose();
  } else if (c.transpose_lhs) {
    product = lhs_acc.transpose() * rhs_acc;
  } else if (c.transpose_rhs) {
    product = lhs_acc * rhs_acc.transpose();
  } else {
    product = lhs_acc * rhs_acc;
  }
  const Acc alpha = static_cast<Acc>(c.alpha);
  const Acc beta = static_cast<Acc>(c.beta);
  if (c.beta == 0) {
    o = (alpha * product).template cast<Storage>();
  } else {
    o = (alpha * product + beta * o.template cast<Acc>()).template cast<Storage>();
  }
}

template <typename Storage, typename Acc>
void GemmTyped(const GemmConfig& c, const void* lhs, const void* rhs, void* out) {
  const Storage* l = static_cast<const Storage*>(lhs);
  const Storage* r = static_cast<const Storage*>(rhs);
  Storage* o = static_cast<Storage*>(out);
  for (int64_t b = 0; b < c.batch_size; ++b) {
    GemmBatch<Storage, Acc>(c, l + b * c.lhs_batch_stride, r + b * c.rhs_batch_stride,
                            o + b * c.output_batch_stride);
  }
}

}  // namespace

bool IsSupportedGemmType(PrimitiveType type) {
  return type == PrimitiveType::F16 || type == PrimitiveType::BF16 || type == PrimitiveType::F32 ||
         type == PrimitiveType::F64;
}

absl::Status HostGemm(const GemmConfig& c, const void* lhs, const void* rhs, void* out) {
  // Ifs, not a switch: the other 30 element types are all "unsupported".
  if (c.element_type == PrimitiveType::F32) {
    GemmTyped<float, float>(c, lhs, rhs, out);
  } else if (c.element_type == PrimitiveType::F64) {
    GemmTyped<double, double>(c, lhs, rhs, out);
  } else if (c.element_type == PrimitiveType::F16) {
    GemmTyped<Eigen::half, float>(c, lhs, rhs, out);
  } else if (c.element_type == PrimitiveType::BF16) {
    GemmTyped<Eigen::bfloat16, float>(c, lhs, rhs, out);
  } else {
    return absl::UnimplementedError(absl::StrCat("host GEMM does not support element type ",
                                                 PrimitiveTypeName(c.element_type)));
  }
  return absl::OkStatus();
}

}  // namespace xla::gpu
