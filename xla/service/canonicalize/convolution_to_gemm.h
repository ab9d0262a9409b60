// ConvolutionToGemm ("convolution-to-gemm"): a canonical convolution becomes
// an im2col gather plus one GEMM-shaped dot.
//
// For a convolution in canonical form (see convolution_canonicalizer.h:
// input [N, S0.., C], kernel [K0.., C, O], output [N, R0.., O]) the pass
// builds
//   padded  = pad(input)               base dilation as interior padding,
//                                      window padding as edge padding
//   patch_p = slice(padded)            one strided slice per kernel position
//                                      p = (k0, k1, ...), each [N, R0.., C]
//   im2col  = concatenate(patch_0, ...), dimensions={last}
//                                      [N, R0.., P*C], kernel positions major
//   dot(reshape(im2col) [N*R0*.., P*C], reshape(kernel) [P*C, O])
//   reshape -> [N, R0.., O]
// so the arithmetic runs in the target's GEMM (the host's blocked, pooled
// GEMM or cuBLAS) and the gather is one fusible loop kernel. The dot's
// summation order differs from the direct convolution's, so results agree
// to floating-point rounding, not bitwise.
//
// Left alone (they stay direct convolution kernels): convolutions that are
// not canonical or not static, feature or batch groups, window reversal,
// operand and result element types that differ or that the GEMM thunk does
// not take (f16, bf16, f32, f64 only), and convolutions whose im2col matrix
// would exceed `max_im2col_bytes`. Idempotent (its output has no
// convolutions it would take). Not thread-safe.
#ifndef XLA_SERVICE_CANONICALIZE_CONVOLUTION_TO_GEMM_H_
#define XLA_SERVICE_CANONICALIZE_CONVOLUTION_TO_GEMM_H_

#include <cstdint>

#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

struct ConvolutionToGemmOptions {
  // Largest im2col matrix (bytes) the pass may create for one convolution;
  // a larger one keeps the direct convolution (it needs no extra buffer).
  int64_t max_im2col_bytes = int64_t{256} << 20;
};

class ConvolutionToGemm : public HloPass {
 public:
  explicit ConvolutionToGemm(ConvolutionToGemmOptions options = {}) : options_(options) {}
  absl::string_view name() const override { return "convolution-to-gemm"; }
  // Never fails on a verified module; the Status return is the pass API.
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  ConvolutionToGemmOptions options_;
};

// True when ConvolutionToGemm with `options` would rewrite `conv`. Pure.
bool ConvolutionRunsAsGemm(const HloInstruction& conv, const ConvolutionToGemmOptions& options);

}  // namespace xla

#endif  // XLA_SERVICE_CANONICALIZE_CONVOLUTION_TO_GEMM_H_
