#include "xla/hlo/evaluator/numeric_util.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "xla/types/float_format.h"

namespace xla::evaluator {

int64_t SignExtend(uint64_t v, int bits) {
  if (bits >= 64) return static_cast<int64_t>(v);
  const uint64_t sign = uint64_t{1} << (bits - 1);
  v &= LowBitsMask(bits);
  return static_cast<int64_t>((v ^ sign) - sign);
}

uint64_t RoundToFloatType(PrimitiveType type, double value) {
  const FloatFormatId fmt = FloatFormatOf(type);
  if (fmt == FloatFormatId::kF64 || fmt == FloatFormatId::kF32) return EncodeFloat(fmt, value);
  if (fmt == FloatFormatId::kBF16) return F32ToBf16(static_cast<float>(value));
  // Narrow types: XLA computes in f32 and rounds the f32 result.
  return EncodeFloat(fmt, static_cast<double>(static_cast<float>(value)));
}

uint64_t IntegerToFloatBits(PrimitiveType type, bool negative, uint64_t magnitude) {
  const FloatFormatId fmt = FloatFormatOf(type);
  double v;
  if (fmt == FloatFormatId::kF64 || magnitude < (uint64_t{1} << 53)) {
    v = static_cast<double>(magnitude);  // exact, or the one correct f64 rounding
  } else {
    // Round to odd at 53 bits (keeps a sticky bit), so that the single
    // rounding to the narrower target below is the correct one.
    const int len = 64 - __builtin_clzll(magnitude);
    const int shift = len - 53;
    uint64_t q = magnitude >> shift;
    if ((magnitude & LowBitsMask(shift)) != 0) q |= 1;
    v = std::ldexp(static_cast<double>(q), shift);
  }
  return EncodeFloat(fmt, negative ? -v : v);
}

uint64_t FloatToIntegerBits(PrimitiveType type, double value) {
  if (IsPred(type)) return (value != 0 || std::isnan(value)) ? 1 : 0;
  if (std::isnan(value)) return 0;
  const int width = BitWidth(type);
  const double t = std::trunc(value);
  if (IsSignedInt(type)) {
    const double limit = std::ldexp(1.0, width - 1);  // 2^(w-1), exact
    if (t >= limit) return LowBitsMask(width - 1);    // max
    if (t <= -limit) return uint64_t{1} << (width - 1);  // min (wrapped by SetBits)
    return static_cast<uint64_t>(static_cast<int64_t>(t));
  }
  if (t >= std::ldexp(1.0, width)) return LowBitsMask(width);
  if (t <= 0) return 0;
  return static_cast<uint64_t>(t);
}

namespace {

// Converts the exact float value `v` to the element type of `dst`.
void ConvertFromFloat(double v, Literal& dst, int64_t j) {
  const PrimitiveType to = dst.shape().element_type();
  if (IsFloat(to)) {
    dst.SetBits(j, RoundToFloatType(to, v));
  } else if (IsComplex(to)) {
    const PrimitiveType part = ComplexComponentType(to);
    const double re = DecodeFloat(FloatFormatOf(part), RoundToFloatType(part, v));
    dst.SetComplex(j, {re, 0.0});
  } else {
    dst.SetBits(j, FloatToIntegerBits(to, v));
  }
}

}  // namespace

void SetFromInteger(Literal& dst, int64_t j, int64_t value, bool is_unsigned) {
  const PrimitiveType to = dst.shape().element_type();
  const bool negative = !is_unsigned && value < 0;
  const uint64_t magnitude =
      negative ? uint64_t{0} - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  if (IsFloat(to)) {
    dst.SetBits(j, IntegerToFloatBits(to, negative, magnitude));
  } else if (IsComplex(to)) {
    const PrimitiveType part = ComplexComponentType(to);
    const uint64_t bits = IntegerToFloatBits(part, negative, magnitude);
    dst.SetComplex(j, {DecodeFloat(FloatFormatOf(part), bits), 0.0});
  } else if (IsPred(to)) {
    dst.SetBits(j, value != 0 ? 1 : 0);
  } else {
    dst.SetBits(j, static_cast<uint64_t>(value));  // wraps to the width
  }
}

void ConvertElement(const Literal& src, int64_t i, Literal& dst, int64_t j) {
  const PrimitiveType from = src.shape().element_type();
  const PrimitiveType to = dst.shape().element_type();
  if (from == to && !IsComplex(from)) {
    dst.SetBits(j, src.GetBits(i));
    return;
  }
  if (from == PrimitiveType::BF16 && to == PrimitiveType::F32) {
    const float f = Bf16ToF32(static_cast<uint16_t>(src.GetBits(i)));
    uint32_t u;
    std::memcpy(&u, &f, sizeof(u));
    dst.SetBits(j, u);
    return;
  }
  if (from == PrimitiveType::F32 && to == PrimitiveType::BF16) {
    const uint32_t u = static_cast<uint32_t>(src.GetBits(i));
    float f;
    std::memcpy(&f, &u, sizeof(f));
    dst.SetBits(j, F32ToBf16(f));
    return;
  }
  switch (KindOf(from)) {
    case TypeKind::kPred:
    case TypeKind::kUnsigned:
      SetFromInteger(dst, j, static_cast<int64_t>(src.GetBits(i)), /*is_unsigned=*/true);
      return;
    case TypeKind::kSigned:
      SetFromInteger(dst, j, src.GetInt(i));
      return;
    case TypeKind::kFloat:
      ConvertFromFloat(src.GetDouble(i), dst, j);
      return;
    case TypeKind::kComplex:
      if (IsComplex(to)) {
        dst.SetComplex(j, src.GetComplex(i));
      } else {
        ConvertFromFloat(src.GetComplex(i).real(), dst, j);
      }
      return;
    case TypeKind::kToken:
    case TypeKind::kTuple:
    case TypeKind::kOpaque:
    case TypeKind::kBuffer:
      break;
  }
}

int64_t TotalOrderKey(PrimitiveType type, uint64_t bits) {
  const FloatFormat& f = GetFloatFormat(FloatFormatOf(type));
  const int total = f.total_bits();
  bits &= LowBitsMask(total);
  if (f.specials == SpecialValues::kExponentOnly) return static_cast<int64_t>(bits);
  const uint64_t sign = uint64_t{1} << (total - 1);
  const bool negative = (bits & sign) != 0;
  uint64_t magnitude = bits & (sign - 1);
  if (negative && f.specials == SpecialValues::kUnsignedZeroNan) {
    if (magnitude == 0) return std::numeric_limits<int64_t>::min();  // the only NaN
    magnitude -= 1;  // no -0: close the gap, as XLA's ToSignMagnitude does
  }
  const int64_t m = static_cast<int64_t>(magnitude);
  return negative ? ~m : m;
}

bool MaxPicksLhs(double a, double b) {
  if (std::isnan(a)) return true;
  if (std::isnan(b)) return false;
  if (a == b) return !std::signbit(a) || std::signbit(b);  // +0 beats -0
  return a > b;
}

bool MinPicksLhs(double a, double b) {
  if (std::isnan(a)) return true;
  if (std::isnan(b)) return false;
  if (a == b) return std::signbit(a) || !std::signbit(b);  // -0 beats +0
  return a < b;
}

uint64_t ReducePrecisionBits(uint64_t bits, int src_exponent_bits, int src_mantissa_bits,
                             int64_t exponent_bits, int64_t mantissa_bits) {
  const int total = 1 + src_exponent_bits + src_mantissa_bits;
  if (mantissa_bits < src_mantissa_bits) {
    const int dropped = src_mantissa_bits - static_cast<int>(mantissa_bits);
    const uint64_t last_bit = uint64_t{1} << dropped;
    const uint64_t base_bias = (last_bit >> 1) - 1;  // 0111...
    const uint64_t x_last = (bits & last_bit) >> dropped;
    bits = (bits + x_last + base_bias) & ~(last_bit - 1);  // ties to even
    bits &= LowBitsMask(total);
  }
  if (exponent_bits < src_exponent_bits) {
    const uint64_t sign_mask = uint64_t{1} << (total - 1);
    const uint64_t exp_mask = LowBitsMask(src_exponent_bits) << src_mantissa_bits;
    const uint64_t bias = (uint64_t{1} << (src_exponent_bits - 1)) - 1;
    const uint64_t reduced_bias = (uint64_t{1} << (exponent_bits - 1)) - 1;
    const uint64_t max_exponent = bias + reduced_bias;
    const uint64_t min_exponent = bias - reduced_bias;
    const uint64_t x_exponent = bits & exp_mask;
    const uint64_t signed_zero = bits & sign_mask;
    if (x_exponent > (max_exponent << src_mantissa_bits)) {
      bits = signed_zero | exp_mask;  // signed infinity
    } else if (x_exponent <= (min_exponent << src_mantissa_bits)) {
      bits = signed_zero;  // subnormals flush to zero too
    }
  }
  return bits;
}

void ReducePrecisionElement(const Literal& src, Literal& dst, int64_t i, int64_t exponent_bits,
                            int64_t mantissa_bits) {
  const PrimitiveType type = src.shape().element_type();
  const FloatFormatId fmt = FloatFormatOf(type);
  const uint64_t bits = src.GetBits(i);
  const double value = DecodeFloat(fmt, bits);
  if (std::isnan(value)) {
    dst.SetBits(i, mantissa_bits > 0 ? bits
                                     : EncodeFloat(fmt, std::numeric_limits<double>::infinity()));
    return;
  }
  const bool ieee_layout = fmt == FloatFormatId::kF16 || fmt == FloatFormatId::kBF16 ||
                           fmt == FloatFormatId::kF32 || fmt == FloatFormatId::kF64;
  if (ieee_layout) {
    const FloatFormat& f = GetFloatFormat(fmt);
    dst.SetBits(i, ReducePrecisionBits(bits, f.exponent_bits, f.mantissa_bits, exponent_bits,
                                       mantissa_bits));
    return;
  }
  // f8/f4 formats: reduce the (exact) f32 value, then round back.
  const float as_f32 = static_cast<float>(value);
  uint32_t f32_bits;
  std::memcpy(&f32_bits, &as_f32, sizeof(f32_bits));
  const uint64_t reduced = ReducePrecisionBits(f32_bits, 8, 23, exponent_bits, mantissa_bits);
  dst.SetBits(i, RoundToFloatType(type, DecodeFloat(FloatFormatId::kF32, reduced)));
}

}  // namespace xla::evaluator
