// Transcendental functions in LLVM IR, behind a small virtual interface so
// that each target can map them to its own library (the NVPTX target will
// override these with calls to libdevice's __nv_* functions).
//
// Every method takes and returns a float or double value (f16/bf16/f8 have
// already been widened to f32 by the caller) and emits at the builder's
// insertion point. The default implementations:
//   * use LLVM intrinsics where LLVM 16 has one (exp, log, sin, cos, pow,
//     sqrt); on the host these lower to libm calls;
//   * implement the rest here, computing in f64 (an f32 argument is widened
//     and the result rounded once, so f32 results are nearly always the
//     correctly rounded ones):
//       expm1   Kahan: (e-1)*x/log(e), e = exp(x)
//       log1p   Kahan: log(u)*x/(u-1), u = 1+x
//       tanh    -expm1(-2|x|) / (2 + expm1(-2|x|)), sign restored
//       logistic 1/(1+e) or e/(1+e), e = exp(-|x|)
//       erf     2/sqrt(pi) x exp(-x^2) sum 2^n x^2n/(2n+1)!! (positive
//               series, 62 terms up to |x|=4 for f32, 100 up to 6 for f64)
//       atan    reduction to [0, tan(pi/8)], two half-angle steps, odd
//               Taylor polynomial of degree 23 (|t| <= 0.0985)
//       atan2   quadrant logic on atan(min/max), every IEEE special case
//       tan     sin/cos in f64; cbrt: pow(|x|, 1/3) + one Newton step
//       asin, acos, asinh, acosh, atanh, sinh, cosh: from the above.
// Measured errors against the evaluator (f64 libm) are in
// elemental_ir_emitter_test.cc and the package README.
//
// Thread-safety: implementations must be stateless (const methods); one
// instance may serve several emitters.
#ifndef XLA_BACKENDS_GPU_CODEGEN_MATH_EMITTER_H_
#define XLA_BACKENDS_GPU_CODEGEN_MATH_EMITTER_H_

#include "llvm/IR/IRBuilder.h"

namespace xla::gpu {

class MathEmitter {
 public:
  virtual ~MathEmitter() = default;

  // Functions with an LLVM intrinsic.
  virtual llvm::Value* Exp(llvm::Value* x, llvm::IRBuilder<>* b) const;
  virtual llvm::Value* Log(llvm::Value* x, llvm::IRBuilder<>* b) const;
  virtual llvm::Value* Sin(llvm::Value* x, llvm::IRBuilder<>* b) const;
  virtual llvm::Value* Cos(llvm::Value* x, llvm::IRBuilder<>* b) const;
  virtual llvm::Value* Sqrt(llvm::Value* x, llvm::IRBuilder<>* b) const;
  // XLA's power: 1 when x == 1 or y == 0 (even for NaN), else pow(x, y).
  virtual llvm::Value* Pow(llvm::Value* x, llvm::Value* y, llvm::IRBuilder<>* b) const;

  // Functions implemented here (see the header comment).
  virtual llvm::Value* Expm1(llvm::Value* x, llvm::IRBuilder<>* b) const;
  virtual llvm::Value* Log1p(llvm::Value* x, llvm::IRBuilder<>* b) const;
  virtual llvm::Value* Tanh(llvm::Value* x, llvm::IRBuilder<>* b) const;
  virtual llvm::Value* Logistic(llvm::Value* x, llvm::IRBuilder<>* b) const;
  virtual llvm::Value* Erf(llvm::Value* x, llvm::IRBuilder<>* b) const;
  virtual llvm::Value* Tan(llvm::Value* x, llvm::IRBuilder<>* b) const;
  virtual llvm::Value* Cbrt(llvm::Value* x, llvm::IRBuilder<>* b) const;
  virtual llvm::Value* Rsqrt(llvm::Value* x, llvm::IRBuilder<>* b) const;
  virtual llvm::Value* Atan2(llvm::Value* y, llvm::Value* x, llvm::IRBuilder<>* b) const;
  virtual llvm::Value* Atan(llvm::Value* x, llvm::IRBuilder<>* b) const;
  virtual llvm::Value* Asin(llvm::Value* x, llvm::IRBuilder<>* b) const;
  virtual llvm::Value* Acos(llvm::Value* x, llvm::IRBuilder<>* b) const;
  virtual llvm::Value* Asinh(llvm::Value* x, llvm::IRBuilder<>* b) const;
  virtual llvm::Value* Acosh(llvm::Value* x, llvm::IRBuilder<>* b) const;
  virtual llvm::Value* Atanh(llvm::Value* x, llvm::IRBuilder<>* b) const;
  virtual llvm::Value* Sinh(llvm::Value* x, llvm::IRBuilder<>* b) const;
  virtual llvm::Value* Cosh(llvm::Value* x, llvm::IRBuilder<>* b) const;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_MATH_EMITTER_H_
