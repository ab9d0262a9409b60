// ComplexMath: complex arithmetic written as real HLO over (re, im) pairs of
// arrays, for ComplexExpander. Each function adds the real ops that compute
// one complex operation from the parts of its operands and returns the
// parts (or the real result) of the outcome.
//
// Definitions follow the evaluator's (std::complex<double>, i.e. libgcc's
// and glibc's C99 Annex G functions), computed in the component type:
//   * divide: Smith's algorithm with both operands scaled by 1/2 (so
//     neither the numerator nor the denominator overflows before the
//     quotient does) and Annex G's recovery of infinities and zeros when the
//     naive result is NaN + i NaN (x / 0 = inf, inf / y = inf,
//     y / inf = 0), as libgcc's __divdc3;
//   * multiply: the four products, with __muldc3's recovery of infinite
//     products that come out NaN + i NaN;
//   * abs: hypot, max * sqrt(1 + (min/max)^2), inf when either part is inf
//     (even with a NaN), 0 at 0, no overflow before the result does;
//   * sqrt: C99 csqrt (t = sqrt(|x|/2 + |z|/2), signed zeros kept, x + i inf
//     gives inf + i inf); exp: e^(x/2) cos y e^(x/2) (finite where the
//     result is), exact zero imaginary part for real operands; log:
//     log|z| + i atan2(y, x); acos: Kahan's formula (2 atan2(Re sqrt(1-z),
//     Re sqrt(1+z)), asinh(Im(conj(sqrt(1+z)) sqrt(1-z)))), which keeps the
//     branch cuts' signed zeros; sin, cos through sinh/cosh; tanh as
//     (sinh 2x + i sin 2y) / (cosh 2x + cos 2y), +-1 + i0 past |x| = 20
//     (where tanh x rounds to +-1 in f64); tan through tanh, sinh and
//     cosh from the real functions of the parts (no special-value
//     handling past what those give); pow as exp(b log a); logistic and
//     atan2 composed from exp, log, sqrt and divide as their definitions
//     read (no special-value handling of their own).
// Results match the evaluator within a few units in the last place for
// finite operands; the special values above match exactly. ComplexExpander
// runs these in f64 for c64 operands (as the evaluator does), so the
// scaling matters for c128.
//
// Not thread-safe; the builder's computation must outlive the object.
#ifndef XLA_HLO_TRANSFORMS_COMPLEX_MATH_H_
#define XLA_HLO_TRANSFORMS_COMPLEX_MATH_H_

#include <string>

#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/hlo/transforms/op_builder.h"

namespace xla {

// The real and imaginary parts of a complex array: two real arrays of one
// shape and float type.
struct ComplexParts {
  HloInstruction* re = nullptr;
  HloInstruction* im = nullptr;
};

class ComplexMath {
 public:
  // Adds ops through `builder`, naming them from `base`.
  ComplexMath(OpBuilder* builder, std::string base) : o_(builder), base_(std::move(base)) {}

  ComplexParts Add(ComplexParts a, ComplexParts b);
  ComplexParts Subtract(ComplexParts a, ComplexParts b);
  ComplexParts Multiply(ComplexParts a, ComplexParts b);
  ComplexParts Divide(ComplexParts a, ComplexParts b);
  ComplexParts Negate(ComplexParts a);
  ComplexParts Sign(ComplexParts a);
  ComplexParts Exp(ComplexParts a);
  ComplexParts Log(ComplexParts a);
  ComplexParts Sqrt(ComplexParts a);
  ComplexParts Rsqrt(ComplexParts a);
  ComplexParts Acos(ComplexParts a);
  ComplexParts Sin(ComplexParts a);
  ComplexParts Cos(ComplexParts a);
  ComplexParts Tanh(ComplexParts a);
  // sinh z = -i sin(iz) = (sinh x cos y, cosh x sin y), cosh z = cos(iz)
  // = (cosh x cos y, sinh x sin y) and tan z = -i tanh(iz), through Sin,
  // Cos and Tanh.
  ComplexParts Sinh(ComplexParts a);
  ComplexParts Cosh(ComplexParts a);
  ComplexParts Tan(ComplexParts a);
  // The evaluator's definitions: expm1 z = e^z - 1, log1p z = log(1 + z)
  // (no extra accuracy near 0).
  ComplexParts Expm1(ComplexParts a);
  ComplexParts Log1p(ComplexParts a);
  // The evaluator's (and XLA's) definitions: logistic z = 1 / (1 + e^-z);
  // atan2(y, x) = -i log((x + iy) / sqrt(x^2 + y^2)) for complex y and x.
  ComplexParts Logistic(ComplexParts a);
  ComplexParts Atan2(ComplexParts y, ComplexParts x);
  // a^b = exp(b log a), with the evaluator's 1^b = a^0 = 1 and
  // inf^(r + 0i) = inf (r > 0) or 0 (r < 0).
  ComplexParts Power(ComplexParts a, ComplexParts b);
  // |a| (a real array).
  HloInstruction* Abs(ComplexParts a);
  // a == b (both parts equal) or a != b: a pred array.
  HloInstruction* Equal(ComplexParts a, ComplexParts b, bool not_equal);

 private:
  std::string Name(const char* what) const { return base_ + "." + what; }
  // A constant array shaped like `like`.
  HloInstruction* Const(double value, HloInstruction* like);
  HloInstruction* Un(HloOpcode op, HloInstruction* a, const char* what) {
    return o_->Unary(op, a, Name(what));
  }
  HloInstruction* Bin(HloOpcode op, HloInstruction* a, HloInstruction* b, const char* what) {
    return o_->Binary(op, a, b, Name(what));
  }
  HloInstruction* Cmp(HloInstruction* a, HloInstruction* b, const char* dir, const char* what) {
    return o_->Compare(a, b, dir, Name(what));
  }
  HloInstruction* Sel(HloInstruction* p, HloInstruction* t, HloInstruction* f, const char* what) {
    return o_->Select(p, t, f, Name(what));
  }
  HloInstruction* And(HloInstruction* a, HloInstruction* b) { return Bin(HloOpcode::kAnd, a, b, "and"); }
  HloInstruction* Or(HloInstruction* a, HloInstruction* b) { return Bin(HloOpcode::kOr, a, b, "or"); }
  HloInstruction* Not(HloInstruction* a) { return Un(HloOpcode::kNot, a, "not"); }
  HloInstruction* IsNan(HloInstruction* x) { return Cmp(x, x, "NE", "is_nan"); }
  HloInstruction* IsInf(HloInstruction* x);
  HloInstruction* IsFinite(HloInstruction* x);
  // True where x's sign bit is set (-0 and NaNs with the bit included).
  HloInstruction* SignBit(HloInstruction* x);
  // |magnitude| with the sign bit of `sign`.
  HloInstruction* CopySign(HloInstruction* magnitude, HloInstruction* sign);
  // Annex G's "box" of an operand part: copysign(isinf(x) ? 1 : 0, x).
  HloInstruction* InfBox(HloInstruction* x);
  // Both parts of `r` NaN.
  HloInstruction* BothNan(ComplexParts r);
  ComplexParts Select(HloInstruction* p, ComplexParts t, ComplexParts f);
  HloInstruction* Hypot(HloInstruction* x, HloInstruction* y);
  // acos's C99 values where a part of `a` is infinite or NaN; `finite`
  // elsewhere.
  ComplexParts AcosSpecialValues(ComplexParts a, ComplexParts finite);

  OpBuilder* o_;
  std::string base_;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_COMPLEX_MATH_H_
