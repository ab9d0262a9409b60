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
// not take (f16, bf16, f32, f64 only), convolutions whose im2col matrix
// would exceed `max_im2col_bytes`, and those the cost estimate gives to the
// direct kernel.
//
// The cost estimate. im2col copies the input once per kernel position P
// (one slice each, all in one concatenate) and buys library GEMM speed for
// the arithmetic. That pays when P is small and each slice is big: the
// forward convolutions of CNNs (1x1, 3x3, a 7x7 stem over a 112x112 output).
// It does not pay for a weight-gradient convolution, whose window is as
// large as the activations (14x14 .. 112x112 in MobileNet v2's training
// step) while its output is the small filter: P slices of a few elements
// each become P operands or kernels (MobileNet's step went from about 1,200
// to 7,000 kernels). So im2col is taken only when P <= max_kernel_positions
// and the output has at least P spatial positions (R0*R1*.. >= P); the
// others stay direct. Idempotent (its output has no convolutions it would
// take). Not thread-safe.
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
  // Most kernel positions (window elements) im2col may copy the input for;
  // 64 keeps 7x7 windows (49) and the 3x3 and 5x5 ones.
  int64_t max_kernel_positions = 64;
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
