// NonGemmDotExpander ("non-gemm-dot-expander"): rewrites every dot the GEMM
// path cannot run (integer and pred dots such as s8 x s8 -> s32 quantized
// matmuls, s32, u8 and s64 dots, and float dots whose types neither
// fp8-dot-widener nor dot-canonicalizer bring to a GEMM type, e.g.
// s32 x s32 -> f32 or f32 x f32 -> f16) into elementwise ops and a reduce,
// as XLA lowers dots the GEMM library cannot take:
//
//   lhs, rhs -> transpose to [batch..., free..., contracting...] ->
//   broadcast both to [batch..., lhs free..., rhs free..., contracting...]
//   -> convert to the compute type C -> multiply -> reduce(add) over the
//   contracting dims -> (convert to the result type)
//
// The reduce has the dot's dimensions (and layout when C is the result type),
// and fusion puts the transposes, broadcasts, converts and the multiply into
// the reduce's kernel: one reduction kernel that reads the operands in their
// own type, and neither the b*m*n*k products nor widened operand copies are
// stored (converting before the broadcast would leave the converts as
// kernels of their own).
//
// C and the ops follow the evaluator's dot semantics (linalg_util.h):
//   * integer result: C is the result type. Operands are converted to it
//     (sign- or zero-extended, or wrapped), products and sums wrap modulo
//     2^bits, which is the evaluator's exact 64-bit modular sum wrapped to
//     the result width.
//   * pred x pred -> pred: C is pred, the product is `and` and the sum is
//     `or` (the evaluator's integer sum is non-zero exactly when some
//     product is 1).
//   * other integer or pred operands into pred: C is s64 and the result is
//     `compare(sum, 0), direction=NE`, as the evaluator stores its sum
//     modulo 2^64 into a pred.
//   * float result: C is f64. Operands are converted to f64 (exact but for
//     s64 / u64 beyond 2^53, which round to nearest as the evaluator's read
//     does), products and sums are in f64 and a final convert rounds once to
//     the result type, as the evaluator does (only the summation order
//     differs).
// Left alone: dots the GEMM path runs (GemmPathRunsDot), complex dots (the
// emitters have no complex arithmetic), float operands into an integer or
// pred result, dynamic shapes, other operand counts and dots with control edges; the thunk
// emitter then refuses them by name.
//
// Run after fp8-dot-widener and before dot-canonicalizer. Idempotent (it
// leaves no dot behind). Not thread-safe (mutates the module).
#ifndef XLA_SERVICE_CANONICALIZE_NON_GEMM_DOT_EXPANDER_H_
#define XLA_SERVICE_CANONICALIZE_NON_GEMM_DOT_EXPANDER_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/hlo/transforms/hlo_pass.h"
#include "xla/types/primitive_type.h"

namespace xla {

// True when the GEMM path runs `dot` (a two-operand array dot): with
// `keep_cublaslt_fp8` a dot cuBLASLt runs in fp8 (IsCublasLtFp8Dot); a dot
// fp8-dot-widener widens (Fp8DotComputeType is not TUPLE); or a GEMM result
// type (IsGemmElementType) whose operands convert to it exactly
// (ConvertsExactly), which dot-canonicalizer converts so that the GEMM thunk
// sees equal types. The same building blocks those passes and the thunk
// emitter decide with. Pure; thread-safe.
bool GemmPathRunsDot(const HloInstruction& dot, bool keep_cublaslt_fp8);

// The type NonGemmDotExpander computes a dot of operand types `lhs`, `rhs`
// and result type `result` in (see above), or TUPLE when it leaves such a
// dot alone. Does not look at GemmPathRunsDot. Pure; thread-safe.
PrimitiveType NonGemmDotComputeType(PrimitiveType lhs, PrimitiveType rhs, PrimitiveType result);

class NonGemmDotExpander : public HloPass {
 public:
  // `keep_cublaslt_fp8`: MiddleEndOptions::fp8_gemm_cublaslt, as given to
  // fp8-dot-widener and dot-canonicalizer.
  explicit NonGemmDotExpander(bool keep_cublaslt_fp8 = false)
      : keep_cublaslt_fp8_(keep_cublaslt_fp8) {}
  absl::string_view name() const override { return "non-gemm-dot-expander"; }
  // Fails only on a dot whose dimension attributes are invalid (an
  // unverified module); the error names the dot. Returns whether a dot was
  // rewritten.
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  bool keep_cublaslt_fp8_;
};

}  // namespace xla

#endif  // XLA_SERVICE_CANONICALIZE_NON_GEMM_DOT_EXPANDER_H_
