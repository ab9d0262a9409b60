// Internal to the evaluator: the numeric policy shared by every op family.
//
// Float results. Every float op computes its exact or f64-approximated value
// as a double and then rounds it with RoundToFloatType:
//   f64            the double itself;
//   f32            one rounding (to nearest even) of the double: exact
//                  (correctly rounded) for + - * / sqrt fmod, and for
//                  transcendental functions the f64 libm result rounded once
//                  (nearly always the correctly rounded f32 value);
//   narrower types (f16, bf16, f8*, f4*): rounded to f32 first, then to the
//                  type, as XLA computes them in f32 and rounds the result
//                  (for + - * / sqrt the double rounding is innocuous, so
//                  the result is the correctly rounded one).
// Float -> float conversions follow the same rule (f64 -> bf16 goes through
// f32, as XLA's converts do); integer -> float conversions round once,
// directly to the target (exact for 64-bit integers: never through double).
//
// Integers are read as raw bits (GetBits) or sign-extended values (GetInt)
// and computed in 64-bit two's complement, then wrapped to the width by
// Literal::SetBits. Pure functions; thread-safe.
#ifndef XLA_HLO_EVALUATOR_NUMERIC_UTIL_H_
#define XLA_HLO_EVALUATOR_NUMERIC_UTIL_H_

#include <complex>
#include <cstdint>
#include <cstring>

#include "xla/types/literal.h"
#include "xla/types/primitive_type.h"

namespace xla::evaluator {

// Encoding of `value` rounded to the float type `type` by the policy above.
uint64_t RoundToFloatType(PrimitiveType type, double value);

// Encoding of the integer (-1)^negative * magnitude in the float type `type`,
// rounded once to nearest even (overflow as EncodeFloat defines it).
uint64_t IntegerToFloatBits(PrimitiveType type, bool negative, uint64_t magnitude);

// XLA's float -> integer conversion of the exact value `value`: truncation
// toward zero, NaN -> 0, saturation at the type's range (unsigned: negative
// -> 0). For pred: value != 0 (NaN is true). Returns the raw bits.
uint64_t FloatToIntegerBits(PrimitiveType type, double value);

// Converts element `i` of `src` to element `j` of `dst` following XLA's
// `convert` (see above; complex -> real takes the real part; anything ->
// pred tests != 0).
void ConvertElement(const Literal& src, int64_t i, Literal& dst, int64_t j);

// Writes `value` (of any integer type, given as its 64-bit value) to element
// `j` of `dst`, converting like ConvertElement from s64 (or u64 when
// `is_unsigned`).
void SetFromInteger(Literal& dst, int64_t j, int64_t value, bool is_unsigned = false);

// Writes a complex result, rounding each part to the component type.
inline void SetComplexResult(Literal& dst, int64_t j, std::complex<double> v) {
  dst.SetComplex(j, v);  // c64 parts round to nearest even; c128 is exact
}

// Key ordering float encodings in XLA's total order (comparison type
// TOTALORDER): -NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN. Formats
// without -0 (fnuz) have no gap; their single NaN sorts first. f8e8m0fnu
// (no sign) orders its encodings as unsigned numbers (NaN last).
int64_t TotalOrderKey(PrimitiveType type, uint64_t bits);

// maximum/minimum of two float values with XLA semantics: a NaN operand is
// the result (the lhs one when both are NaN), max(-0, +0) = +0 and
// min(-0, +0) = -0. Returns true when the result is `a` (the caller copies
// the chosen operand's encoding, which keeps NaN payloads).
bool MaxPicksLhs(double a, double b);
bool MinPicksLhs(double a, double b);

// XLA's reduce-precision of the encoding `bits` of an IEEE-layout format with
// `src_exponent_bits`/`src_mantissa_bits` (f16, bf16, f32, f64): mantissa
// rounded to nearest even, exponents beyond the reduced range overflow to
// signed inf or flush (with subnormals) to signed zero. NaNs are not
// special-cased here (see ReducePrecisionElement).
uint64_t ReducePrecisionBits(uint64_t bits, int src_exponent_bits, int src_mantissa_bits,
                             int64_t exponent_bits, int64_t mantissa_bits);

// reduce-precision of element `i` of the float literal `src` into element `i`
// of `dst` (same type). NaN stays the same NaN when mantissa_bits > 0 and
// becomes +inf otherwise. f8/f4 types are reduced through f32.
void ReducePrecisionElement(const Literal& src, Literal& dst, int64_t i, int64_t exponent_bits,
                            int64_t mantissa_bits);

// bf16 <-> f32 by bit manipulation (bf16 is the top half of an f32):
// Bf16ToF32 is exact; F32ToBf16 rounds to nearest even and maps every NaN to
// the canonical 0x7FC0, exactly as EncodeFloat(kBF16, f) does.
inline float Bf16ToF32(uint16_t bits) {
  const uint32_t u = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}
inline uint16_t F32ToBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC0;  // NaN
  u += 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

// Sign-extends the low `bits` bits of `v`.
int64_t SignExtend(uint64_t v, int bits);

// All-ones mask of the low `bits` bits (bits in [0, 64]).
inline uint64_t LowBitsMask(int bits) {
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

}  // namespace xla::evaluator

#endif  // XLA_HLO_EVALUATOR_NUMERIC_UTIL_H_
