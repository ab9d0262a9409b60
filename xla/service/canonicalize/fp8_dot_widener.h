// Fp8DotWidener ("fp8-dot-widener"): turns every dot with an fp8 (or
// narrower float) operand -- f8e4m3fn and f8e5m2 as the Llama 3.1 fp8 steps
// emit them, mixed formats included -- into a dot the GEMM library runs, by
// converting its operands to a wider compute type W:
//
//   * W is the dot's result type when that is a GEMM type (bf16, f16, f32,
//     f64) and every operand converts to it exactly. bf16 holds every
//     f8e4m3fn and f8e5m2 value exactly (8-bit exponent, more mantissa), so a
//     bf16 result needs no f32 copy of the operands (half the bytes) and the
//     GEMM still accumulates in f32 (host GEMM and cuBLAS alike); f16 holds
//     both formats exactly as well.
//   * Otherwise (an fp8 result, or an operand that does not fit the result
//     type, e.g. f32 x f8 -> bf16) W is f32, which holds every operand value
//     of at most 24 significand bits and is the accumulation type; the dot
//     then computes in f32 and one convert rounds its result to the result
//     type, as the evaluator does.
//
// Products of two fp8 values have at most 8 significand bits, so they are
// exact in f32 (and in TF32): the rewritten dot differs from the original
// only by summation order. The converts sit directly on the operands, so
// fusion puts them into the kernel that produces the operand (next to the
// clamp/convert that made the fp8 values). Run before dot-canonicalizer and
// the GEMM decisions. Dots with another operand count, a non-float result,
// control edges, or an operand that fits neither type are left alone.
//
// With `keep_cublaslt_fp8` (MiddleEndOptions::fp8_gemm_cublaslt: sm_90 and
// --fp8_gemm=cublaslt) the dots cuBLASLt runs in fp8 (IsCublasLtFp8Dot:
// both operands fp8, not e5m2 x e5m2, m, n, k multiples of 16, result
// f16, bf16 or f32) are left alone too; dot-canonicalizer then brings them
// into cuBLASLt's TN form and the GEMM thunk reads 1 byte per element.
// Idempotent. Not thread-safe (mutates the module).
#ifndef XLA_SERVICE_CANONICALIZE_FP8_DOT_WIDENER_H_
#define XLA_SERVICE_CANONICALIZE_FP8_DOT_WIDENER_H_

#include "xla/hlo/transforms/hlo_pass.h"
#include "xla/types/primitive_type.h"

namespace xla {

// The compute type fp8-dot-widener picks for a dot with operand types `lhs`
// and `rhs` and result type `result` (see above), or TUPLE when it leaves the
// dot alone (no operand of at most 8 bits, a non-float result, or an operand
// that fits neither type). Pure; thread-safe.
PrimitiveType Fp8DotComputeType(PrimitiveType lhs, PrimitiveType rhs, PrimitiveType result);

class Fp8DotWidener : public HloPass {
 public:
  explicit Fp8DotWidener(bool keep_cublaslt_fp8 = false) : keep_cublaslt_fp8_(keep_cublaslt_fp8) {}
  absl::string_view name() const override { return "fp8-dot-widener"; }
  // Never fails on a verified module; returns whether a dot was rewritten.
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  bool keep_cublaslt_fp8_;
};

}  // namespace xla

#endif  // XLA_SERVICE_CANONICALIZE_FP8_DOT_WIDENER_H_
