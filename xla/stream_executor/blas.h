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
// FP8 GEMMs: lhs_type / rhs_type (unset: element_type) may be kF8E4M3FN or
// kF8E5M2 (not both kF8E5M2) with an F16, BF16 or F32 output; every operand
// element is multiplied by its scale (an f32 device scalar, null: 1.0) and
// the products accumulate in f32. Only cuBLASLt runs them, and only in its
// "TN" form (lhs not transposed, rhs transposed) with m, n, k multiples of
// 16; other platforms refuse them (CheckBlasFp8Gemm says why).
//
// CheckBlasGemmOperands is what a platform's Stream::Gemm checks at enqueue.
//
// Thread-safety: a plain value type; the functions are pure.
#ifndef XLA_STREAM_EXECUTOR_BLAS_H_
#define XLA_STREAM_EXECUTOR_BLAS_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "xla/stream_executor/device_memory.h"

namespace stream_executor {

// Element type of a GEMM operand. The fp8 types are operand types only.
enum class BlasElementType { kF16, kBF16, kF32, kF64, kF8E4M3FN, kF8E5M2 };

struct BlasGemmConfig {
  // The output's type, and the operands' unless lhs_type / rhs_type say.
  BlasElementType element_type = BlasElementType::kF32;
  std::optional<BlasElementType> lhs_type;
  std::optional<BlasElementType> rhs_type;
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
  // FP8 only: per-tensor scales, one f32 each in device memory of the
  // stream's executor; null opaque means 1.0.
  DeviceMemoryBase lhs_scale;
  DeviceMemoryBase rhs_scale;
};

// The element types of lhs and rhs (element_type where unset).
inline BlasElementType BlasLhsType(const BlasGemmConfig& c) {
  return c.lhs_type.value_or(c.element_type);
}
inline BlasElementType BlasRhsType(const BlasGemmConfig& c) {
  return c.rhs_type.value_or(c.element_type);
}

// True for kF8E4M3FN and kF8E5M2.
bool IsBlasFp8Type(BlasElementType type);

// True when `c` has an fp8 operand or a scale (an FP8 GEMM).
bool IsBlasFp8Gemm(const BlasGemmConfig& c);

// Bytes of one element of `type` (1, 2, 4 or 8); 0 for a value outside the enum.
int64_t BlasElementBytes(BlasElementType type);

// OK when `config` is a GEMM every platform can run (m, n, k >= 1, batch
// sizes and strides >= 0, a known element type) and each buffer holds its
// operand's (batch - 1) * stride + rows * cols elements. InvalidArgument
// naming the field or the buffer and both sizes otherwise.
absl::Status CheckBlasGemmOperands(const BlasGemmConfig& config, const DeviceMemoryBase& lhs,
                                   const DeviceMemoryBase& rhs, const DeviceMemoryBase& out);

// OK when `c` is not an FP8 GEMM, or is one cuBLASLt runs: both operands
// fp8 and not both kF8E5M2, an F16, BF16 or F32 output, lhs not transposed
// and rhs transposed, m, n and k multiples of 16, scales (when given) of at
// least 4 bytes. InvalidArgument naming the rule otherwise. Pure.
absl::Status CheckBlasFp8Gemm(const BlasGemmConfig& c);

}  // namespace stream_executor

#endif  // XLA_STREAM_EXECUTOR_BLAS_H_
