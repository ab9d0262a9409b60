// DotCanonicalizer ("dot-canonicalizer"): rewrites every dot into the form a
// GEMM library runs (see gemm_config.h).
//
// After the pass every dot with static shapes has operands of rank 2
// ([m,k] x [k,n] family, no batch dims) or rank 3 with batch dim 0 on both
// sides, exactly one contracting and one free dim per operand, and a result
// [m,n] / [batch,m,n]. Several batch, contracting or free dims are merged by
// a reshape when they already sit together in the right order (unit dims
// ignored), otherwise the operand is transposed first. An operand stored
// with its contracting dim "on the wrong side" (lhs [b,k,m], rhs [b,n,k]) is
// kept as is: GetGemmConfig reports it as transpose_lhs / transpose_rhs.
// Missing free or contracting dims (matrix-vector, vector-vector, outer
// products) become size-1 dims. The result is reshaped back to the original
// shape. Operands of another element type than the result (s4/s8 weights,
// f8 inputs) are converted to the result's type first when the result is a
// GEMM type and every operand value converts exactly (ConvertsExactly), so
// the GEMM, which takes equal types only, runs the dot. Dots with dynamic
// dimensions or control edges are left alone.
//
// With `keep_cublaslt_fp8` (see fp8_dot_widener.h), a dot cuBLASLt runs in
// fp8 (IsCublasLtFp8Dot) keeps its fp8 operands and is brought into
// cuBLASLt's TN form: lhs [batch?, m, k] and rhs [batch?, n, k], both with
// the contracting dim last (a transpose where the operand is stored the
// other way; fusion puts it into the producer's kernel).
// Idempotent. Not thread-safe (mutates the module).
#ifndef XLA_SERVICE_CANONICALIZE_DOT_CANONICALIZER_H_
#define XLA_SERVICE_CANONICALIZE_DOT_CANONICALIZER_H_

#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class DotCanonicalizer : public HloPass {
 public:
  explicit DotCanonicalizer(bool keep_cublaslt_fp8 = false)
      : keep_cublaslt_fp8_(keep_cublaslt_fp8) {}
  absl::string_view name() const override { return "dot-canonicalizer"; }
  // Fails only on a dot whose dimension attributes are invalid (an
  // unverified module); the error names the dot.
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  bool keep_cublaslt_fp8_;
};

}  // namespace xla

#endif  // XLA_SERVICE_CANONICALIZE_DOT_CANONICALIZER_H_
