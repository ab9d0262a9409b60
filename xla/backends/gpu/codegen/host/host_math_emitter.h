// Transcendental functions for host kernels: MathEmitter with an f32 exp in
// plain arithmetic instead of the llvm.exp intrinsic.
//
// llvm.exp lowers to a libm call per element on x86-64, also when LLVM
// vectorizes the loop around it (llvm.exp.v8f32 becomes eight expf calls),
// which made exp the cost of softmax. HostMathEmitter::Exp of an f32 (or a
// vector of f32) is branch-free IR that vectorizes:
//   n = floor(x log2(e) + 1/2), r = x - n ln2 (Cody-Waite, two constants),
//   exp(r) by its degree-7 Taylor polynomial (|r| <= 0.35: truncation
//   error 5e-9, below half an f32 ulp), scaled by 2^n with one rounding.
//   Results below 2^-125 are built from their bit pattern (an integer),
//   so no instruction computes a subnormal value (each would cost a
//   microcode assist) and subnormal results round once too.
// x is clamped to [-104, 89] first (exp(-104) rounds to 0 and exp(89) to
// infinity in f32), and NaN is returned unchanged. Measured error against
// the evaluator: at most 2 ulp (host_math_emitter_test.cc). f32 tanh is
// built on it the same way (see Tanh). Other types and every other
// function use MathEmitter's defaults.
//
// Thread-safety: stateless; one instance may serve several emitters and
// threads.
#ifndef XLA_BACKENDS_GPU_CODEGEN_HOST_HOST_MATH_EMITTER_H_
#define XLA_BACKENDS_GPU_CODEGEN_HOST_HOST_MATH_EMITTER_H_

#include "llvm/IR/IRBuilder.h"
#include "xla/backends/gpu/codegen/math_emitter.h"

namespace xla::gpu {

class HostMathEmitter : public MathEmitter {
 public:
  // exp(x) as described above for f32 scalars and vectors; the llvm.exp
  // intrinsic (MathEmitter::Exp) for any other type.
  llvm::Value* Exp(llvm::Value* x, llvm::IRBuilder<>* b) const override;
  // tanh(x) for f32 scalars and vectors, branch-free: the odd Taylor series
  // to x^17 for |x| < 0.5, else copysign(1 - 2 / (Exp(2|x|) + 1), x); NaN
  // unchanged. MathEmitter::Tanh (f64 expm1) for any other type.
  llvm::Value* Tanh(llvm::Value* x, llvm::IRBuilder<>* b) const override;
};

// A shared instance (stateless, never destroyed).
const HostMathEmitter& GetHostMathEmitter();

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_HOST_HOST_MATH_EMITTER_H_
