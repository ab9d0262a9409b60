#include "xla/backends/gpu/codegen/math_emitter.h"

#include <cmath>
#include <functional>

#include "llvm/IR/Intrinsics.h"

namespace xla::gpu {
namespace {

using Fn = std::function<llvm::Value*(llvm::Value*)>;

llvm::Value* Intrinsic(llvm::Intrinsic::ID id, std::vector<llvm::Value*> args,
                       llvm::IRBuilder<>* b) {
  llvm::Function* fn = llvm::Intrinsic::getDeclaration(b->GetInsertBlock()->getModule(), id,
                                                       {args[0]->getType()});
  return b->CreateCall(fn, args);
}

llvm::Value* C(llvm::Value* like, double v) { return llvm::ConstantFP::get(like->getType(), v); }

llvm::Value* Abs(llvm::Value* x, llvm::IRBuilder<>* b) {
  return Intrinsic(llvm::Intrinsic::fabs, {x}, b);
}
llvm::Value* CopySign(llvm::Value* mag, llvm::Value* sign, llvm::IRBuilder<>* b) {
  return Intrinsic(llvm::Intrinsic::copysign, {mag, sign}, b);
}

// Runs `body` in f64: widens an f32 argument and rounds the result once.
llvm::Value* InF64(llvm::Value* x, llvm::IRBuilder<>* b, const Fn& body) {
  if (x->getType()->isDoubleTy()) return body(x);
  return b->CreateFPTrunc(body(b->CreateFPExt(x, b->getDoubleTy())), x->getType());
}

llvm::Value* InF64(llvm::Value* y, llvm::Value* x, llvm::IRBuilder<>* b,
                   const std::function<llvm::Value*(llvm::Value*, llvm::Value*)>& body) {
  if (x->getType()->isDoubleTy()) return body(y, x);
  return b->CreateFPTrunc(
      body(b->CreateFPExt(y, b->getDoubleTy()), b->CreateFPExt(x, b->getDoubleTy())),
      x->getType());
}

// atan of t in [0, 1] (f64; NaN and inf handled by callers).
llvm::Value* AtanUnit(llvm::Value* t, llvm::IRBuilder<>* b) {
  const double kTanPi8 = 0.41421356237309503;
  llvm::Value* big = b->CreateFCmpOGT(t, C(t, kTanPi8));
  llvm::Value* base = b->CreateSelect(big, C(t, M_PI / 4), C(t, 0.0));
  t = b->CreateSelect(big, b->CreateFDiv(b->CreateFSub(t, C(t, 1.0)), b->CreateFAdd(t, C(t, 1.0))), t);
  for (int i = 0; i < 2; ++i) {  // atan(t) = 2 atan(t / (1 + sqrt(1 + t^2)))
    llvm::Value* r = Intrinsic(llvm::Intrinsic::sqrt, {b->CreateFAdd(C(t, 1.0), b->CreateFMul(t, t))}, b);
    t = b->CreateFDiv(t, b->CreateFAdd(C(t, 1.0), r));
  }
  llvm::Value* t2 = b->CreateFMul(t, t);
  llvm::Value* p = C(t, 0.0);
  for (int k = 11; k >= 0; --k) {  // sum (-1)^k t^2k / (2k+1), Horner
    p = b->CreateFAdd(b->CreateFMul(p, t2), C(t, (k % 2 ? -1.0 : 1.0) / (2 * k + 1)));
  }
  return b->CreateFAdd(base, b->CreateFMul(C(t, 4.0), b->CreateFMul(t, p)));
}

}  // namespace

llvm::Value* MathEmitter::Exp(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return Intrinsic(llvm::Intrinsic::exp, {x}, b);
}
llvm::Value* MathEmitter::Log(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return Intrinsic(llvm::Intrinsic::log, {x}, b);
}
llvm::Value* MathEmitter::Sin(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return Intrinsic(llvm::Intrinsic::sin, {x}, b);
}
llvm::Value* MathEmitter::Cos(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return Intrinsic(llvm::Intrinsic::cos, {x}, b);
}
llvm::Value* MathEmitter::Sqrt(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return Intrinsic(llvm::Intrinsic::sqrt, {x}, b);
}

llvm::Value* MathEmitter::Pow(llvm::Value* x, llvm::Value* y, llvm::IRBuilder<>* b) const {
  llvm::Value* one = b->CreateOr(b->CreateFCmpOEQ(x, C(x, 1.0)), b->CreateFCmpOEQ(y, C(y, 0.0)));
  llvm::Value* p = InF64(x, y, b, [&](llvm::Value* xx, llvm::Value* yy) {
    return Intrinsic(llvm::Intrinsic::pow, {xx, yy}, b);
  });
  return b->CreateSelect(one, C(x, 1.0), p);
}

llvm::Value* MathEmitter::Rsqrt(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return InF64(x, b, [&](llvm::Value* v) { return b->CreateFDiv(C(v, 1.0), Sqrt(v, b)); });
}

llvm::Value* MathEmitter::Expm1(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return InF64(x, b, [&](llvm::Value* v) {
    llvm::Value* u = Exp(v, b);
    llvm::Value* um1 = b->CreateFSub(u, C(v, 1.0));
    llvm::Value* r = b->CreateFDiv(b->CreateFMul(um1, v), Log(u, b));
    r = b->CreateSelect(b->CreateFCmpOEQ(um1, C(v, -1.0)), C(v, -1.0), r);
    r = b->CreateSelect(b->CreateFCmpOEQ(u, C(v, 1.0)), v, r);
    return b->CreateSelect(b->CreateFCmpOEQ(u, C(v, INFINITY)), u, r);
  });
}

llvm::Value* MathEmitter::Log1p(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return InF64(x, b, [&](llvm::Value* v) {
    llvm::Value* u = b->CreateFAdd(v, C(v, 1.0));
    llvm::Value* r = b->CreateFDiv(b->CreateFMul(Log(u, b), v), b->CreateFSub(u, C(v, 1.0)));
    r = b->CreateSelect(b->CreateFCmpOEQ(u, C(v, 1.0)), v, r);
    r = b->CreateSelect(b->CreateFCmpOEQ(u, C(v, 0.0)), C(v, -INFINITY), r);
    return b->CreateSelect(b->CreateFCmpOEQ(v, C(v, INFINITY)), v, r);
  });
}

llvm::Value* MathEmitter::Tanh(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return InF64(x, b, [&](llvm::Value* v) {
    llvm::Value* e = Expm1(b->CreateFMul(C(v, -2.0), Abs(v, b)), b);
    llvm::Value* t = b->CreateFDiv(b->CreateFNeg(e), b->CreateFAdd(C(v, 2.0), e));
    return CopySign(t, v, b);
  });
}

llvm::Value* MathEmitter::Logistic(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return InF64(x, b, [&](llvm::Value* v) {
    llvm::Value* e = Exp(b->CreateFNeg(Abs(v, b)), b);
    llvm::Value* d = b->CreateFAdd(C(v, 1.0), e);
    llvm::Value* neg = b->CreateFCmpOLT(v, C(v, 0.0));
    return b->CreateFDiv(b->CreateSelect(neg, e, C(v, 1.0)), d);
  });
}

llvm::Value* MathEmitter::Erf(llvm::Value* x, llvm::IRBuilder<>* b) const {
  const bool is_f32 = x->getType()->isFloatTy();
  const double cap = is_f32 ? 4.0 : 6.0;
  const int terms = is_f32 ? 62 : 100;
  return InF64(x, b, [&](llvm::Value* v) {
    llvm::Value* a = Abs(v, b);
    llvm::Value* saturated = b->CreateFCmpOGE(a, C(v, cap));
    a = b->CreateSelect(saturated, C(v, 0.0), a);  // keeps the series finite
    llvm::Value* hi = b->CreateFMul(a, a);
    llvm::Value* lo = Intrinsic(llvm::Intrinsic::fma, {a, a, b->CreateFNeg(hi)}, b);
    llvm::Value* two_a2 = b->CreateFMul(C(v, 2.0), hi);
    llvm::Value* term = a;
    llvm::Value* sum = a;
    for (int n = 1; n <= terms; ++n) {
      term = b->CreateFDiv(b->CreateFMul(term, two_a2), C(v, 2.0 * n + 1));
      sum = b->CreateFAdd(sum, term);
    }
    // exp(-(hi + lo)) ~= exp(-hi) * (1 - lo)
    llvm::Value* g = b->CreateFMul(Exp(b->CreateFNeg(hi), b), b->CreateFSub(C(v, 1.0), lo));
    llvm::Value* r = b->CreateFMul(b->CreateFMul(C(v, 2.0 / std::sqrt(M_PI)), g), sum);
    if (!is_f32) {
      // f64, |x| >= 2: erf = 1 - erfc, erfc from its continued fraction
      // exp(-x^2)/sqrt(pi) / (x + (1/2)/(x + (2/2)/(x + ...))), 80 terms.
      llvm::Value* tail_a = b->CreateSelect(b->CreateFCmpOGE(a, C(v, 2.0)), a, C(v, 2.0));
      llvm::Value* f = tail_a;
      for (int k = 80; k >= 1; --k) f = b->CreateFAdd(tail_a, b->CreateFDiv(C(v, k / 2.0), f));
      llvm::Value* hi2 = b->CreateFMul(tail_a, tail_a);
      llvm::Value* lo2 = Intrinsic(llvm::Intrinsic::fma, {tail_a, tail_a, b->CreateFNeg(hi2)}, b);
      llvm::Value* g2 = b->CreateFMul(Exp(b->CreateFNeg(hi2), b), b->CreateFSub(C(v, 1.0), lo2));
      llvm::Value* erfc = b->CreateFDiv(g2, b->CreateFMul(C(v, std::sqrt(M_PI)), f));
      r = b->CreateSelect(b->CreateFCmpOGE(a, C(v, 2.0)), b->CreateFSub(C(v, 1.0), erfc), r);
    }
    r = b->CreateSelect(saturated, C(v, 1.0), r);
    return CopySign(r, v, b);  // NaN: Abs(NaN) fails both compares, sum is NaN
  });
}

llvm::Value* MathEmitter::Tan(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return InF64(x, b, [&](llvm::Value* v) { return b->CreateFDiv(Sin(v, b), Cos(v, b)); });
}

llvm::Value* MathEmitter::Cbrt(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return InF64(x, b, [&](llvm::Value* v) {
    // Tiny (subnormal) arguments are scaled by 2^300 (an exact multiple of
    // 2^3), so that the Newton step below does not underflow.
    llvm::Value* tiny = b->CreateFCmpOLT(Abs(v, b), C(v, 1e-280));
    llvm::Value* a = b->CreateFMul(Abs(v, b), b->CreateSelect(tiny, C(v, std::ldexp(1.0, 300)), C(v, 1.0)));
    llvm::Value* y = Intrinsic(llvm::Intrinsic::pow, {a, C(v, 1.0 / 3.0)}, b);
    // One Newton step y -= (y^3 - a) / (3 y^2), skipped for 0, inf and NaN.
    llvm::Value* y2 = b->CreateFMul(y, y);
    llvm::Value* step = b->CreateFDiv(Intrinsic(llvm::Intrinsic::fma, {y2, y, b->CreateFNeg(a)}, b),
                                      b->CreateFMul(C(v, 3.0), y2));
    llvm::Value* finite_nonzero =
        b->CreateAnd(b->CreateFCmpONE(a, C(v, 0.0)), b->CreateFCmpONE(a, C(v, INFINITY)));
    y = b->CreateSelect(finite_nonzero, b->CreateFSub(y, step), y);
    y = b->CreateFMul(y, b->CreateSelect(tiny, C(v, std::ldexp(1.0, -100)), C(v, 1.0)));
    return CopySign(y, v, b);
  });
}

llvm::Value* MathEmitter::Atan2(llvm::Value* y, llvm::Value* x, llvm::IRBuilder<>* b) const {
  return InF64(y, x, b, [&](llvm::Value* yy, llvm::Value* xx) {
    llvm::Value* ay = Abs(yy, b);
    llvm::Value* ax = Abs(xx, b);
    llvm::Value* y_bigger = b->CreateFCmpOGT(ay, ax);
    llvm::Value* num = b->CreateSelect(y_bigger, ax, ay);
    llvm::Value* den = b->CreateSelect(y_bigger, ay, ax);
    llvm::Value* t = b->CreateFDiv(num, den);
    llvm::Value* both_zero = b->CreateAnd(b->CreateFCmpOEQ(ay, C(yy, 0.0)), b->CreateFCmpOEQ(ax, C(yy, 0.0)));
    llvm::Value* both_inf =
        b->CreateAnd(b->CreateFCmpOEQ(ay, C(yy, INFINITY)), b->CreateFCmpOEQ(ax, C(yy, INFINITY)));
    t = b->CreateSelect(b->CreateOr(both_zero, both_inf), C(yy, 0.0), t);
    llvm::Value* r = AtanUnit(t, b);
    r = b->CreateSelect(both_inf, C(yy, M_PI / 4), r);
    r = b->CreateSelect(y_bigger, b->CreateFSub(C(yy, M_PI / 2), r), r);
    llvm::Value* x_negative = b->CreateICmpSLT(b->CreateBitCast(xx, b->getInt64Ty()), b->getInt64(0));
    r = b->CreateSelect(x_negative, b->CreateFSub(C(yy, M_PI), r), r);
    r = CopySign(r, yy, b);
    llvm::Value* any_nan = b->CreateFCmpUNO(yy, xx);
    return b->CreateSelect(any_nan, b->CreateFAdd(yy, xx), r);
  });
}

llvm::Value* MathEmitter::Atan(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return Atan2(x, C(x, 1.0), b);
}

llvm::Value* MathEmitter::Asin(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return InF64(x, b, [&](llvm::Value* v) {
    llvm::Value* c = Sqrt(b->CreateFMul(b->CreateFSub(C(v, 1.0), v), b->CreateFAdd(C(v, 1.0), v)), b);
    return Atan2(v, c, b);
  });
}

llvm::Value* MathEmitter::Acos(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return InF64(x, b, [&](llvm::Value* v) {
    llvm::Value* s = Sqrt(b->CreateFMul(b->CreateFSub(C(v, 1.0), v), b->CreateFAdd(C(v, 1.0), v)), b);
    return Atan2(s, v, b);
  });
}

llvm::Value* MathEmitter::Asinh(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return InF64(x, b, [&](llvm::Value* v) {
    llvm::Value* a = Abs(v, b);
    llvm::Value* a2 = b->CreateFMul(a, a);
    llvm::Value* small = Log1p(
        b->CreateFAdd(a, b->CreateFDiv(a2, b->CreateFAdd(C(v, 1.0), Sqrt(b->CreateFAdd(a2, C(v, 1.0)), b)))), b);
    llvm::Value* large = b->CreateFAdd(Log(a, b), C(v, M_LN2));
    llvm::Value* r = b->CreateSelect(b->CreateFCmpOGT(a, C(v, 268435456.0)), large, small);
    return CopySign(r, v, b);
  });
}

llvm::Value* MathEmitter::Acosh(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return InF64(x, b, [&](llvm::Value* v) {
    llvm::Value* t = b->CreateFSub(v, C(v, 1.0));
    llvm::Value* small = Log1p(
        b->CreateFAdd(t, Sqrt(b->CreateFAdd(b->CreateFMul(C(v, 2.0), t), b->CreateFMul(t, t)), b)), b);
    llvm::Value* large = b->CreateFAdd(Log(v, b), C(v, M_LN2));
    llvm::Value* r = b->CreateSelect(b->CreateFCmpOGT(v, C(v, 268435456.0)), large, small);
    return b->CreateSelect(b->CreateFCmpOLT(v, C(v, 1.0)), C(v, NAN), r);
  });
}

llvm::Value* MathEmitter::Atanh(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return InF64(x, b, [&](llvm::Value* v) {
    llvm::Value* a = Abs(v, b);
    llvm::Value* r = b->CreateFMul(
        C(v, 0.5), Log1p(b->CreateFDiv(b->CreateFMul(C(v, 2.0), a), b->CreateFSub(C(v, 1.0), a)), b));
    return CopySign(r, v, b);
  });
}

llvm::Value* MathEmitter::Sinh(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return InF64(x, b, [&](llvm::Value* v) {
    llvm::Value* a = Abs(v, b);
    llvm::Value* e = Expm1(a, b);  // sinh = (e + e/(e+1)) / 2
    llvm::Value* mid = b->CreateFMul(C(v, 0.5), b->CreateFAdd(e, b->CreateFDiv(e, b->CreateFAdd(e, C(v, 1.0)))));
    llvm::Value* h = Exp(b->CreateFMul(C(v, 0.5), a), b);
    llvm::Value* large = b->CreateFMul(h, b->CreateFMul(C(v, 0.5), h));
    llvm::Value* r = b->CreateSelect(b->CreateFCmpOGT(a, C(v, 20.0)), large, mid);
    return CopySign(r, v, b);
  });
}

llvm::Value* MathEmitter::Cosh(llvm::Value* x, llvm::IRBuilder<>* b) const {
  return InF64(x, b, [&](llvm::Value* v) {
    llvm::Value* a = Abs(v, b);
    llvm::Value* e = Exp(a, b);
    llvm::Value* mid = b->CreateFMul(C(v, 0.5), b->CreateFAdd(e, b->CreateFDiv(C(v, 1.0), e)));
    llvm::Value* h = Exp(b->CreateFMul(C(v, 0.5), a), b);
    llvm::Value* large = b->CreateFMul(h, b->CreateFMul(C(v, 0.5), h));
    return b->CreateSelect(b->CreateFCmpOGT(a, C(v, 20.0)), large, mid);
  });
}

}  // namespace xla::gpu
