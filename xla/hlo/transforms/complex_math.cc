#include "xla/hlo/transforms/complex_math.h"

#include <limits>

namespace xla {
namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

HloInstruction* ComplexMath::Const(double value, HloInstruction* like) {
  const Shape& s = like->shape();
  HloInstruction* scalar = o_->Scalar(s.element_type(), value, Name("c"));
  if (s.rank() == 0) return scalar;
  return o_->Broadcast(scalar, s.dimensions(), {}, Name("cb"));
}

HloInstruction* ComplexMath::IsInf(HloInstruction* x) {
  return Cmp(Un(HloOpcode::kAbs, x, "abs"), Const(kInf, x), "EQ", "is_inf");
}

HloInstruction* ComplexMath::IsFinite(HloInstruction* x) {
  HloInstruction* finite = o_->Op(HloOpcode::kIsFinite,
                                  Shape::Array(PrimitiveType::PRED, x->shape().dimensions()), {x},
                                  Name("is_finite"));
  return finite;
}

HloInstruction* ComplexMath::SignBit(HloInstruction* x) {
  const bool f64 = x->shape().element_type() == PrimitiveType::F64;
  const PrimitiveType bits = f64 ? PrimitiveType::S64 : PrimitiveType::S32;
  HloInstruction* as_int = o_->Op(HloOpcode::kBitcastConvert,
                                  Shape::Array(bits, x->shape().dimensions()), {x}, Name("bits"));
  HloInstruction* zero = o_->Scalar(bits, 0, Name("zero_bits"));
  if (x->shape().rank() > 0) zero = o_->Broadcast(zero, x->shape().dimensions(), {}, Name("zb"));
  return Cmp(as_int, zero, "LT", "sign_bit");
}

HloInstruction* ComplexMath::CopySign(HloInstruction* magnitude, HloInstruction* sign) {
  HloInstruction* m = Un(HloOpcode::kAbs, magnitude, "mag");
  return Sel(SignBit(sign), Un(HloOpcode::kNegate, m, "neg_mag"), m, "copysign");
}

HloInstruction* ComplexMath::InfBox(HloInstruction* x) {
  return CopySign(Sel(IsInf(x), Const(1, x), Const(0, x), "box"), x);
}

HloInstruction* ComplexMath::BothNan(ComplexParts r) { return And(IsNan(r.re), IsNan(r.im)); }

ComplexParts ComplexMath::Select(HloInstruction* p, ComplexParts t, ComplexParts f) {
  return {Sel(p, t.re, f.re, "sel_re"), Sel(p, t.im, f.im, "sel_im")};
}

HloInstruction* ComplexMath::Hypot(HloInstruction* x, HloInstruction* y) {
  HloInstruction* ax = Un(HloOpcode::kAbs, x, "ax");
  HloInstruction* ay = Un(HloOpcode::kAbs, y, "ay");
  HloInstruction* big = Bin(HloOpcode::kMaximum, ax, ay, "big");
  HloInstruction* small = Bin(HloOpcode::kMinimum, ax, ay, "small");
  HloInstruction* r = Bin(HloOpcode::kDivide, small, big, "ratio");
  HloInstruction* root = Un(
      HloOpcode::kSqrt,
      Bin(HloOpcode::kAdd, Const(1, x), Bin(HloOpcode::kMultiply, r, r, "r2"), "one_plus_r2"),
      "root");
  HloInstruction* h = Bin(HloOpcode::kMultiply, big, root, "hypot_scaled");
  // 0/0 at the origin; inf/inf (or NaN) when a part is infinite.
  h = Sel(Cmp(big, Const(0, x), "EQ", "is_zero"), Const(0, x), h, "hypot_zero");
  return Sel(Or(IsInf(x), IsInf(y)), Const(kInf, x), h, "hypot");
}

ComplexParts ComplexMath::Add(ComplexParts a, ComplexParts b) {
  return {Bin(HloOpcode::kAdd, a.re, b.re, "add_re"), Bin(HloOpcode::kAdd, a.im, b.im, "add_im")};
}

ComplexParts ComplexMath::Subtract(ComplexParts a, ComplexParts b) {
  return {Bin(HloOpcode::kSubtract, a.re, b.re, "sub_re"),
          Bin(HloOpcode::kSubtract, a.im, b.im, "sub_im")};
}

ComplexParts ComplexMath::Negate(ComplexParts a) {
  return {Un(HloOpcode::kNegate, a.re, "neg_re"), Un(HloOpcode::kNegate, a.im, "neg_im")};
}

ComplexParts ComplexMath::Multiply(ComplexParts a, ComplexParts b) {
  auto mul = [&](HloInstruction* x, HloInstruction* y) {
    return Bin(HloOpcode::kMultiply, x, y, "mul");
  };
  auto products = [&](ComplexParts p, ComplexParts q) -> ComplexParts {
    return {Bin(HloOpcode::kSubtract, mul(p.re, q.re), mul(p.im, q.im), "mul_re"),
            Bin(HloOpcode::kAdd, mul(p.re, q.im), mul(p.im, q.re), "mul_im")};
  };
  const ComplexParts naive = products(a, b);
  // __muldc3's recovery when the product is NaN + i NaN: box an infinite
  // factor to +-1/+-0, turn NaNs in the other factor (and, for an overflow,
  // in both) into signed zeros, and scale the recomputed product by inf.
  auto zero_nan = [&](HloInstruction* x, HloInstruction* when) {
    return Sel(And(when, IsNan(x)), CopySign(Const(0, x), x), x, "nan_to_zero");
  };
  HloInstruction* a_inf = Or(IsInf(a.re), IsInf(a.im));
  HloInstruction* b_inf = Or(IsInf(b.re), IsInf(b.im));
  HloInstruction* any_product_inf =
      Or(Or(IsInf(mul(a.re, b.re)), IsInf(mul(a.im, b.im))),
         Or(IsInf(mul(a.re, b.im)), IsInf(mul(a.im, b.re))));
  HloInstruction* overflow = And(Not(Or(a_inf, b_inf)), any_product_inf);
  ComplexParts p{Sel(a_inf, InfBox(a.re), a.re, "box_a_re"), Sel(a_inf, InfBox(a.im), a.im, "box_a_im")};
  ComplexParts q{zero_nan(b.re, a_inf), zero_nan(b.im, a_inf)};
  q = {Sel(b_inf, InfBox(q.re), q.re, "box_b_re"), Sel(b_inf, InfBox(q.im), q.im, "box_b_im")};
  p = {zero_nan(p.re, b_inf), zero_nan(p.im, b_inf)};
  p = {zero_nan(p.re, overflow), zero_nan(p.im, overflow)};
  q = {zero_nan(q.re, overflow), zero_nan(q.im, overflow)};
  const ComplexParts boxed = products(p, q);
  const ComplexParts recovered{mul(Const(kInf, a.re), boxed.re), mul(Const(kInf, a.re), boxed.im)};
  HloInstruction* recover = And(BothNan(naive), Or(Or(a_inf, b_inf), overflow));
  return Select(recover, recovered, naive);
}

ComplexParts ComplexMath::Divide(ComplexParts a, ComplexParts b) {
  auto mul = [&](HloInstruction* x, HloInstruction* y) {
    return Bin(HloOpcode::kMultiply, x, y, "mul");
  };
  auto div = [&](HloInstruction* x, HloInstruction* y) {
    return Bin(HloOpcode::kDivide, x, y, "div");
  };
  auto add = [&](HloInstruction* x, HloInstruction* y) { return Bin(HloOpcode::kAdd, x, y, "add"); };
  auto sub = [&](HloInstruction* x, HloInstruction* y) {
    return Bin(HloOpcode::kSubtract, x, y, "sub");
  };
  // Halved operands: the same quotient, and no intermediate overflows
  // before the quotient itself does.
  HloInstruction* half = Const(0.5, a.re);
  HloInstruction* ha = mul(a.re, half);
  HloInstruction* hb = mul(a.im, half);
  HloInstruction* hc = mul(b.re, half);
  HloInstruction* hd = mul(b.im, half);
  // Smith's algorithm, scaled by the larger of |c| and |d| (libgcc's order).
  HloInstruction* d_bigger =
      Cmp(Un(HloOpcode::kAbs, b.re, "abs_c"), Un(HloOpcode::kAbs, b.im, "abs_d"), "LT", "d_bigger");
  HloInstruction* r1 = div(hc, hd);  // |c| < |d|
  HloInstruction* den1 = add(mul(hc, r1), hd);
  const ComplexParts q1{div(add(mul(ha, r1), hb), den1), div(sub(mul(hb, r1), ha), den1)};
  HloInstruction* r2 = div(hd, hc);  // |c| >= |d|
  HloInstruction* den2 = add(mul(hd, r2), hc);
  const ComplexParts q2{div(add(mul(hb, r2), ha), den2), div(sub(hb, mul(ha, r2)), den2)};
  const ComplexParts naive = Select(d_bigger, q1, q2);

  // Annex G recovery when the quotient is NaN + i NaN.
  HloInstruction* inf = Const(kInf, a.re);
  HloInstruction* zero = Const(0, a.re);
  HloInstruction* den_zero =
      And(Cmp(b.re, zero, "EQ", "c_zero"), Cmp(b.im, zero, "EQ", "d_zero"));
  HloInstruction* num_not_nan = Not(And(IsNan(a.re), IsNan(a.im)));
  HloInstruction* signed_inf = CopySign(inf, b.re);
  const ComplexParts by_zero{mul(signed_inf, a.re), mul(signed_inf, a.im)};
  HloInstruction* num_inf = Or(IsInf(a.re), IsInf(a.im));
  HloInstruction* num_finite = And(IsFinite(a.re), IsFinite(a.im));
  HloInstruction* den_inf = Or(IsInf(b.re), IsInf(b.im));
  HloInstruction* den_finite = And(IsFinite(b.re), IsFinite(b.im));
  HloInstruction* ba = InfBox(a.re);
  HloInstruction* bb = InfBox(a.im);
  const ComplexParts inf_num{mul(inf, add(mul(ba, b.re), mul(bb, b.im))),
                             mul(inf, sub(mul(bb, b.re), mul(ba, b.im)))};
  HloInstruction* bc = InfBox(b.re);
  HloInstruction* bd = InfBox(b.im);
  const ComplexParts inf_den{mul(zero, add(mul(a.re, bc), mul(a.im, bd))),
                             mul(zero, sub(mul(a.im, bc), mul(a.re, bd)))};
  HloInstruction* both_nan = BothNan(naive);
  ComplexParts out = Select(And(both_nan, And(den_inf, num_finite)), inf_den, naive);
  out = Select(And(both_nan, And(num_inf, den_finite)), inf_num, out);
  return Select(And(both_nan, And(den_zero, num_not_nan)), by_zero, out);
}

HloInstruction* ComplexMath::Abs(ComplexParts a) { return Hypot(a.re, a.im); }

ComplexParts ComplexMath::Sign(ComplexParts a) {
  HloInstruction* r = Abs(a);
  HloInstruction* is_zero = Cmp(r, Const(0, r), "EQ", "abs_zero");
  return {Sel(is_zero, Const(0, r), Bin(HloOpcode::kDivide, a.re, r, "sign_re"), "sign_re0"),
          Sel(is_zero, Const(0, r), Bin(HloOpcode::kDivide, a.im, r, "sign_im"), "sign_im0")};
}

ComplexParts ComplexMath::Exp(ComplexParts a) {
  // e^(x/2) twice: finite wherever e^x cos y is.
  HloInstruction* e = Un(HloOpcode::kExp, Bin(HloOpcode::kMultiply, a.re, Const(0.5, a.re), "half_x"),
                         "exp_half");
  HloInstruction* re = Bin(HloOpcode::kMultiply,
                           Bin(HloOpcode::kMultiply, e, Un(HloOpcode::kCos, a.im, "cos"), "ec"), e,
                           "exp_re");
  HloInstruction* im = Bin(HloOpcode::kMultiply,
                           Bin(HloOpcode::kMultiply, e, Un(HloOpcode::kSin, a.im, "sin"), "es"), e,
                           "exp_im");
  // +inf + i(inf or NaN): inf + i NaN (C99).
  HloInstruction* plus_inf = Cmp(a.re, Const(kInf, a.re), "EQ", "x_plus_inf");
  HloInstruction* inf_nan = And(plus_inf, Not(IsFinite(a.im)));
  re = Sel(inf_nan, Const(kInf, a.re), re, "exp_re_inf");
  im = Sel(inf_nan, Bin(HloOpcode::kSubtract, a.im, a.im, "nan"), im, "exp_im_nan");
  // A real operand keeps its exact zero imaginary part (e^inf * 0 is not NaN).
  HloInstruction* real_arg = Cmp(a.im, Const(0, a.im), "EQ", "im_zero");
  HloInstruction* full = Un(HloOpcode::kExp, a.re, "exp_x");
  re = Sel(real_arg, full, re, "exp_re_real");
  im = Sel(real_arg, a.im, im, "exp_im_real");
  // e^-inf times anything bounded or not is 0.
  HloInstruction* minus_inf = Cmp(a.re, Const(-kInf, a.re), "EQ", "x_minus_inf");
  re = Sel(minus_inf, Const(0, a.re), re, "exp_re_0");
  im = Sel(And(minus_inf, Not(IsFinite(a.im))), Const(0, a.re), im, "exp_im_0");
  return {re, im};
}

ComplexParts ComplexMath::Log(ComplexParts a) {
  return {Un(HloOpcode::kLog, Abs(a), "log_abs"), Bin(HloOpcode::kAtan2, a.im, a.re, "arg")};
}

ComplexParts ComplexMath::Sqrt(ComplexParts a) {
  HloInstruction* half = Const(0.5, a.re);
  HloInstruction* ax = Un(HloOpcode::kAbs, a.re, "ax");
  HloInstruction* t = Un(HloOpcode::kSqrt,
                         Bin(HloOpcode::kAdd, Bin(HloOpcode::kMultiply, ax, half, "hx"),
                             Bin(HloOpcode::kMultiply, Abs(a), half, "hr"), "t2"),
                         "t");
  HloInstruction* other = Bin(HloOpcode::kDivide, Un(HloOpcode::kAbs, a.im, "ay"),
                              Bin(HloOpcode::kAdd, t, t, "two_t"), "y_over_2t");
  HloInstruction* x_negative = Cmp(a.re, Const(0, a.re), "LT", "x_negative");
  // x >= 0: (t, copysign(|y| / 2t, y)); x < 0: (|y| / 2t, copysign(t, y)).
  HloInstruction* re = Sel(x_negative, other, t, "sqrt_re");
  HloInstruction* im = CopySign(Sel(x_negative, t, other, "sqrt_im_mag"), a.im);
  // Zero: (+0, y); an infinite imaginary part: (inf, y).
  HloInstruction* zero = Cmp(t, Const(0, t), "EQ", "t_zero");
  re = Sel(zero, Const(0, t), re, "sqrt_re_zero");
  im = Sel(zero, a.im, im, "sqrt_im_zero");
  HloInstruction* y_inf = IsInf(a.im);
  return {Sel(y_inf, Const(kInf, t), re, "sqrt_re_inf"), Sel(y_inf, a.im, im, "sqrt_im_inf")};
}

ComplexParts ComplexMath::Rsqrt(ComplexParts a) {
  return Divide({Const(1, a.re), Const(0, a.re)}, Sqrt(a));
}

ComplexParts ComplexMath::Acos(ComplexParts a) {
  // 1 - z with -y (a negation, not 0 - y) so a signed zero flips its sign.
  const ComplexParts s1 = Sqrt({Bin(HloOpcode::kSubtract, Const(1, a.re), a.re, "one_minus_x"),
                                Un(HloOpcode::kNegate, a.im, "minus_y")});
  const ComplexParts s2 = Sqrt({Bin(HloOpcode::kAdd, Const(1, a.re), a.re, "one_plus_x"), a.im});
  HloInstruction* re = Bin(HloOpcode::kMultiply, Const(2, a.re),
                           Bin(HloOpcode::kAtan2, s1.re, s2.re, "atan2"), "acos_re");
  HloInstruction* im_arg =
      Bin(HloOpcode::kSubtract, Bin(HloOpcode::kMultiply, s2.re, s1.im, "r2i1"),
          Bin(HloOpcode::kMultiply, s2.im, s1.re, "i2r1"), "conj_product_im");
  HloInstruction* im = Un(HloOpcode::kAsinh, im_arg, "acos_im");
  return AcosSpecialValues(a, {re, im});
}

ComplexParts ComplexMath::AcosSpecialValues(ComplexParts a, ComplexParts finite) {
  // C99 G.6.1.1 for operands with an infinite or NaN part.
  HloInstruction* x = a.re;
  HloInstruction* y = a.im;
  const double pi = 3.14159265358979323846;
  HloInstruction* nan = Bin(HloOpcode::kSubtract, Const(kInf, x), Const(kInf, x), "nan");
  HloInstruction* x_nan = IsNan(x);
  HloInstruction* y_nan = IsNan(y);
  HloInstruction* y_inf = IsInf(y);
  HloInstruction* x_inf = IsInf(x);
  HloInstruction* x_neg = SignBit(x);
  HloInstruction* minus_inf_y = Un(HloOpcode::kNegate, CopySign(Const(kInf, x), y), "minus_inf_y");
  // Real part.
  HloInstruction* re_inf_x = Sel(x_neg, Const(pi, x), Const(0, x), "re_inf_x");
  HloInstruction* re_inf_y = Sel(x_inf, Sel(x_neg, Const(0.75 * pi, x), Const(0.25 * pi, x), "re_corner"),
                                 Const(0.5 * pi, x), "re_inf_y");
  HloInstruction* x_zero = Cmp(x, Const(0, x), "EQ", "x_zero");
  HloInstruction* re = Sel(And(y_nan, x_zero), Const(0.5 * pi, x), nan, "re_nan_y");
  re = Sel(And(x_inf, Not(y_nan)), re_inf_x, re, "re_x_inf");
  re = Sel(y_inf, re_inf_y, re, "re_y_inf");
  re = Sel(x_nan, nan, re, "re_x_nan");
  // Imaginary part: -inf with y's sign flipped when a part is infinite.
  HloInstruction* im = Sel(Or(x_inf, y_inf), minus_inf_y, nan, "im_special");
  HloInstruction* special = Not(And(IsFinite(x), IsFinite(y)));
  return Select(special, {re, im}, finite);
}

ComplexParts ComplexMath::Sin(ComplexParts a) {
  return {Bin(HloOpcode::kMultiply, Un(HloOpcode::kSin, a.re, "sin"), Un(HloOpcode::kCosh, a.im, "cosh"),
              "sin_re"),
          Bin(HloOpcode::kMultiply, Un(HloOpcode::kCos, a.re, "cos"), Un(HloOpcode::kSinh, a.im, "sinh"),
              "sin_im")};
}

ComplexParts ComplexMath::Cos(ComplexParts a) {
  return {Bin(HloOpcode::kMultiply, Un(HloOpcode::kCos, a.re, "cos"), Un(HloOpcode::kCosh, a.im, "cosh"),
              "cos_re"),
          Un(HloOpcode::kNegate,
             Bin(HloOpcode::kMultiply, Un(HloOpcode::kSin, a.re, "sin"),
                 Un(HloOpcode::kSinh, a.im, "sinh"), "sin_sinh"),
             "cos_im")};
}

ComplexParts ComplexMath::Tanh(ComplexParts a) {
  HloInstruction* two_x = Bin(HloOpcode::kAdd, a.re, a.re, "two_x");
  HloInstruction* two_y = Bin(HloOpcode::kAdd, a.im, a.im, "two_y");
  HloInstruction* den = Bin(HloOpcode::kAdd, Un(HloOpcode::kCosh, two_x, "cosh"),
                            Un(HloOpcode::kCos, two_y, "cos"), "den");
  HloInstruction* re = Bin(HloOpcode::kDivide, Un(HloOpcode::kSinh, two_x, "sinh"), den, "tanh_re");
  HloInstruction* im = Bin(HloOpcode::kDivide, Un(HloOpcode::kSin, two_y, "sin"), den, "tanh_im");
  // Past |x| = 20 cosh overflows sooner than tanh leaves +-1.
  HloInstruction* big = Cmp(Un(HloOpcode::kAbs, a.re, "ax"), Const(20, a.re), "GT", "big_x");
  return {Sel(big, CopySign(Const(1, a.re), a.re), re, "tanh_re_big"),
          Sel(big, CopySign(Const(0, a.re), a.im), im, "tanh_im_big")};
}

// With iz = (-y, x): sinh z = -i sin(iz), cosh z = cos(iz).
ComplexParts ComplexMath::Sinh(ComplexParts a) {
  const ComplexParts s = Sin({Un(HloOpcode::kNegate, a.im, "neg_y"), a.re});
  return {s.im, Un(HloOpcode::kNegate, s.re, "sinh_im")};
}

ComplexParts ComplexMath::Cosh(ComplexParts a) { return Cos({Un(HloOpcode::kNegate, a.im, "neg_y"), a.re}); }

ComplexParts ComplexMath::Tan(ComplexParts a) {
  // iz = (-y, x); -i (p + iq) = (q, -p).
  const ComplexParts t = Tanh({Un(HloOpcode::kNegate, a.im, "neg_y"), a.re});
  return {t.im, Un(HloOpcode::kNegate, t.re, "tan_im")};
}

ComplexParts ComplexMath::Logistic(ComplexParts a) {
  const ComplexParts e = Exp(Negate(a));
  const ComplexParts one = {Const(1, a.re), Const(0, a.re)};
  return Divide(one, {Bin(HloOpcode::kAdd, e.re, one.re, "one_plus_e"), e.im});
}

ComplexParts ComplexMath::Atan2(ComplexParts y, ComplexParts x) {
  // x + iy = (x.re - y.im, x.im + y.re); -i (p + iq) = (q, -p).
  const ComplexParts t = {Bin(HloOpcode::kSubtract, x.re, y.im, "x_iy_re"),
                          Bin(HloOpcode::kAdd, x.im, y.re, "x_iy_im")};
  const ComplexParts r = Sqrt(Add(Multiply(x, x), Multiply(y, y)));
  const ComplexParts l = Log(Divide(t, r));
  return {l.im, Un(HloOpcode::kNegate, l.re, "atan2_im")};
}

ComplexParts ComplexMath::Expm1(ComplexParts a) {
  const ComplexParts e = Exp(a);
  return {Bin(HloOpcode::kSubtract, e.re, Const(1, e.re), "expm1_re"), e.im};
}

ComplexParts ComplexMath::Log1p(ComplexParts a) {
  return Log({Bin(HloOpcode::kAdd, a.re, Const(1, a.re), "one_plus_x"), a.im});
}

ComplexParts ComplexMath::Power(ComplexParts a, ComplexParts b) {
  const ComplexParts general = Exp(Multiply(b, Log(a)));
  HloInstruction* zero = Const(0, a.re);
  HloInstruction* a_one = And(Cmp(a.re, Const(1, a.re), "EQ", "a_re_one"), Cmp(a.im, zero, "EQ", "a_im_zero"));
  HloInstruction* b_zero = And(Cmp(b.re, zero, "EQ", "b_re_zero"), Cmp(b.im, zero, "EQ", "b_im_zero"));
  HloInstruction* a_pos_inf = And(Cmp(a.re, Const(kInf, a.re), "EQ", "a_inf"), Cmp(a.im, zero, "EQ", "a_im_0"));
  HloInstruction* b_real = Cmp(b.im, zero, "EQ", "b_real");
  HloInstruction* to_inf = And(And(a_pos_inf, b_real), Cmp(b.re, zero, "GT", "b_pos"));
  HloInstruction* to_zero = And(And(a_pos_inf, b_real), Cmp(b.re, zero, "LT", "b_neg"));
  ComplexParts out = Select(to_zero, {zero, zero}, general);
  out = Select(to_inf, a, out);
  return Select(Or(a_one, b_zero), {Const(1, a.re), zero}, out);
}

HloInstruction* ComplexMath::Equal(ComplexParts a, ComplexParts b, bool not_equal) {
  if (not_equal) {
    return Or(Cmp(a.re, b.re, "NE", "ne_re"), Cmp(a.im, b.im, "NE", "ne_im"));
  }
  return And(Cmp(a.re, b.re, "EQ", "eq_re"), Cmp(a.im, b.im, "EQ", "eq_im"));
}

}  // namespace xla
