// GemmConfig: the GEMM library call that one canonical dot needs.
//
// A canonical dot (see dot_canonicalizer.h) computes, for b in [0, batch),
//   output[b] = op(lhs[b]) x op(rhs[b])
// with row-major [m,k] / [k,n] / [m,n] matrices, where op() transposes an
// operand stored as [k,m] (lhs) or [n,k] (rhs). The fields fill the runtime's
// GemmThunkProto (xla/backends/gpu/runtime/executable.proto).
#ifndef XLA_SERVICE_CANONICALIZE_GEMM_CONFIG_H_
#define XLA_SERVICE_CANONICALIZE_GEMM_CONFIG_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/types/primitive_type.h"

namespace xla {

// Types are TUPLE (not an array type) until filled in.
struct GemmConfig {
  int64_t batch = 1;  // 1 for a rank-2 dot
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  // lhs is stored [batch, k, m] (its contracting dim is the first non-batch
  // dim); rhs is stored [batch, n, k] (its contracting dim is the last).
  bool transpose_lhs = false;
  bool transpose_rhs = false;
  PrimitiveType lhs_type = PrimitiveType::TUPLE;
  PrimitiveType rhs_type = PrimitiveType::TUPLE;
  PrimitiveType output_type = PrimitiveType::TUPLE;
  // Distance between consecutive batch matrices, in elements (row-major:
  // m*k, k*n and m*n).
  int64_t lhs_batch_stride = 0;
  int64_t rhs_batch_stride = 0;
  int64_t output_batch_stride = 0;
};

// True for the element types GEMM thunks take (f16, bf16, f32, f64), the
// host GEMM and cuBLAS alike. Pure.
bool IsGemmElementType(PrimitiveType type);

// True when `c` is an FP8 GEMM cuBLASLt runs (the runtime feature
// "gemm.fp8"): f8e4m3fn / f8e5m2 operands (not both f8e5m2), an f16, bf16
// or f32 result, the TN form (transpose_lhs false, transpose_rhs true:
// lhs [m,k], rhs [n,k]) and m, n, k multiples of 16. Pure.
bool IsCublasLtFp8Gemm(const GemmConfig& c);

// The operand-type and size part of the same rule for any two-operand dot,
// before canonicalization: both operands f8e4m3fn / f8e5m2 (not both
// f8e5m2), result f16, bf16 or f32, static shapes, and the products of the
// free (m, n) and contracting (k) dims multiples of 16. Pure.
bool IsCublasLtFp8Dot(const HloInstruction& dot);

// True when `instr` is an FP8 GEMM call (gemm::kFp8GemmTarget,
// xla/hlo/proto/gemm_custom_call.h) that computes exactly
// a_scale * b_scale * dot(a, b): operands a, b, a_scale, b_scale (f32
// scalars), alpha 1, beta 0, no epilogue. fp8-gemm-scale-folder makes them;
// the thunk emitter turns them into GEMM thunks with lhs_scale / rhs_scale.
// Pure.
bool IsScaledFp8GemmCall(const HloInstruction& instr);

// The GEMM parameters of `dot` (a kDot, or a call IsScaledFp8GemmCall
// accepts, whose dimension numbers are its backend_config's). Fails with
// InvalidArgumentError naming the instruction and the violated rule when
// `dot` is neither or is not in canonical form: operands and result of rank 2 (no batch dims) or 3 (batch dim 0 on
// both sides), one contracting dim per operand, static dimensions, and
// row-major layouts wherever a layout is present (run dot-canonicalizer and
// layout-assignment first; `require_row_major=false` skips the layout check,
// for structural checks before layout assignment). Pure; thread-safe on an
// unmutated module.
absl::StatusOr<GemmConfig> GetGemmConfig(const HloInstruction& dot, bool require_row_major = true);

}  // namespace xla

#endif  // XLA_SERVICE_CANONICALIZE_GEMM_CONFIG_H_
