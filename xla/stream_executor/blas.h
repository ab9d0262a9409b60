// BlasGemmConfig: a platform-neutral description of one (batched) GEMM that
// Stream::Gemm enqueues:
//
//   out[b] = alpha * op(lhs[b]) x op(rhs[b]) + beta * out[b],  b < batch_size
//
// op(lhs) is m x k, op(rhs) is k x n, out is m x n, all dense row-major; a
// transposed operand is stored transposed (lhs then k x m). Batch b of an
// operand starts b * stride elements in. F16 and BF16 accumulate in f32, F32
// in f32 (TF32 only when allow_tf32), F64 in f64.
//
// CheckBlasGemmOperands is what a platform's Stream::Gemm checks at enqueue.
//
// Thread-safety: a plain value type; the functions are pure.
#ifndef XLA_STREAM_EXECUTOR_BLAS_H_
#define XLA_STREAM_EXECUTOR_BLAS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "xla/stream_executor/device_memory.h"

namespace stream_executor {

// Element type of every operand of a GEMM.
enum class BlasElementType { kF16, kBF16, kF32, kF64 };

struct BlasGemmConfig {
  BlasElementType element_type = BlasElementType::kF32;
  int64_t m = 1, n = 1, k = 1;
  bool transpose_lhs = false;
  bool transpose_rhs = false;
  int64_t batch_size = 1;  // 0 is read as 1
  // Strides between batches, in elements.
  int64_t lhs_batch_stride = 0;
  int64_t rhs_batch_stride = 0;
  int64_t output_batch_stride = 0;
  double alpha = 1.0;
  double beta = 0.0;
  // F32 only: allow inputs rounded to TF32 (off: results match an f32
  // reference).
  bool allow_tf32 = false;
};

// Bytes of one element of `type` (2, 4 or 8); 0 for a value outside the enum.
int64_t BlasElementBytes(BlasElementType type);

// OK when `config` is a GEMM every platform can run (m, n, k >= 1, batch
// sizes and strides >= 0, a known element type) and each buffer holds its
// operand's (batch - 1) * stride + rows * cols elements. InvalidArgument
// naming the field or the buffer and both sizes otherwise.
absl::Status CheckBlasGemmOperands(const BlasGemmConfig& config, const DeviceMemoryBase& lhs,
                                   const DeviceMemoryBase& rhs, const DeviceMemoryBase& out);

}  // namespace stream_executor

#endif  // XLA_STREAM_EXECUTOR_BLAS_H_
