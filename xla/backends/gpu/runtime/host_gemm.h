// HostGemm: the host platform's matrix multiply (Eigen), used by GemmThunk.
//
//   out[b] = alpha * op(lhs[b]) x op(rhs[b]) + beta * out[b]
//
// for b in [0, batch_size), matrices dense row-major; op(lhs) is m x k,
// op(rhs) is k x n, out is m x n; op transposes when asked (the stored lhs is
// then k x m). Batch b of an operand starts at b * stride elements. F32 and
// F64 compute in their own type; F16 and BF16 accumulate in f32 and round
// once at the end. When beta is 0, `out` is not read (NaNs in it do not
// propagate).
//
// Thread-safety: a pure function of its arguments; the caller guarantees the
// pointers cover the validated extents.
#ifndef XLA_BACKENDS_GPU_RUNTIME_HOST_GEMM_H_
#define XLA_BACKENDS_GPU_RUNTIME_HOST_GEMM_H_

#include <cstdint>

#include "absl/status/status.h"
#include "xla/types/primitive_type.h"

namespace xla::gpu {

struct GemmConfig {
  PrimitiveType element_type = PrimitiveType::F32;
  int64_t m = 1, n = 1, k = 1;
  bool transpose_lhs = false;
  bool transpose_rhs = false;
  int64_t batch_size = 1;
  int64_t lhs_batch_stride = 0;
  int64_t rhs_batch_stride = 0;
  int64_t output_batch_stride = 0;
  double alpha = 1.0;
  double beta = 0.0;
};

// True for the element types HostGemm supports (F16, BF16, F32, F64).
bool IsSupportedGemmType(PrimitiveType type);

// Runs the GEMM. Unimplemented for other element types.
absl::Status HostGemm(const GemmConfig& config, const void* lhs, const void* rhs, void* out);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_HOST_GEMM_H_
