// GemmCustomCallRewriter: XLA:GPU's own GEMM custom calls
// (`__cublas$gemm`, `__cublas$lt$matmul`, `__cublas$lt$matmul$f8`, found in
// programs dumped after XLA's optimizations) become the `dot` and
// elementwise ops they stand for,
// so that both targets compile them (the GPU target then picks its own GEMM
// again). What a call computes, its operands and the epilogues accepted are
// xla/hlo/proto/gemm_custom_call.h's:
//
//   result = act(alpha * dot(a, b) + beta * c + broadcast(bias))
//
// with the multiplications by alpha = 1 and beta = 1 left out, an FP8
// call's dot computed in f32 and multiplied by a_scale * b_scale before one
// convert to the result type (as cuBLASLt scales its f32 sum), the dot
// keeping the config's operand precisions, and, for a tuple-shaped call, a
// tuple of the result and zeros for the cuBLAS workspace elements.
//
// Run returns the reader's errors (an unknown epilogue is Unimplemented,
// naming it) and InvalidArgument naming the call when its result shape is
// not the dot's. Not thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_GEMM_CUSTOM_CALL_REWRITER_H_
#define XLA_HLO_TRANSFORMS_GEMM_CUSTOM_CALL_REWRITER_H_

#include "absl/status/statusor.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class GemmCustomCallRewriter : public HloPass {
 public:
  absl::string_view name() const override { return "gemm-custom-call-rewriter"; }
  // Returns whether a GEMM custom call was rewritten (see the file comment
  // for the errors).
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_GEMM_CUSTOM_CALL_REWRITER_H_
