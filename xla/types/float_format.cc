#include "xla/types/float_format.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "xla/util/logging.h"

namespace xla {
namespace {

const FloatFormat kFormats[] = {
    /*kNone*/ {0, 0, 0, SpecialValues::kIeee},
    /*kF16*/ {5, 10, 15, SpecialValues::kIeee},
    /*kBF16*/ {8, 7, 127, SpecialValues::kIeee},
    /*kF32*/ {8, 23, 127, SpecialValues::kIeee},
    /*kF64*/ {11, 52, 1023, SpecialValues::kIeee},
    /*kF8E5M2*/ {5, 2, 15, SpecialValues::kIeee},
    /*kF8E4M3*/ {4, 3, 7, SpecialValues::kIeee},
    /*kF8E4M3FN*/ {4, 3, 7, SpecialValues::kFiniteNan},
    /*kF8E4M3FNUZ*/ {4, 3, 8, SpecialValues::kUnsignedZeroNan},
    /*kF8E5M2FNUZ*/ {5, 2, 16, SpecialValues::kUnsignedZeroNan},
    /*kF8E4M3B11FNUZ*/ {4, 3, 11, SpecialValues::kUnsignedZeroNan},
    /*kF8E3M4*/ {3, 4, 3, SpecialValues::kIeee},
    /*kF8E8M0FNU*/ {8, 0, 127, SpecialValues::kExponentOnly},
    /*kF4E2M1FN*/ {2, 1, 1, SpecialValues::kFiniteNoNan},
};

uint64_t Mask(int bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

bool HasSign(const FloatFormat& f) { return f.specials != SpecialValues::kExponentOnly; }

uint64_t SignBit(const FloatFormat& f) {
  return 1ull << (f.exponent_bits + f.mantissa_bits);
}

// Encoding of a quiet NaN (positive where the format has a sign).
uint64_t NanBits(const FloatFormat& f) {
  switch (f.specials) {
    case SpecialValues::kIeee:
      return (Mask(f.exponent_bits) << f.mantissa_bits) | (1ull << (f.mantissa_bits - 1));
    case SpecialValues::kFiniteNan:
      return Mask(f.exponent_bits + f.mantissa_bits);
    case SpecialValues::kUnsignedZeroNan:
      return SignBit(f);
    case SpecialValues::kFiniteNoNan:
      return 0;
    case SpecialValues::kExponentOnly:
      return Mask(f.exponent_bits);
  }
  return 0;
}

// Magnitude encoding of the largest finite value.
uint64_t MaxFiniteBits(const FloatFormat& f) {
  uint64_t all = Mask(f.exponent_bits + f.mantissa_bits);
  switch (f.specials) {
    case SpecialValues::kIeee:
      return all - (1ull << f.mantissa_bits);  // exponent all-ones minus one
    case SpecialValues::kFiniteNan:
      return all - 1;
    case SpecialValues::kUnsignedZeroNan:
    case SpecialValues::kFiniteNoNan:
      return all;
    case SpecialValues::kExponentOnly:
      return Mask(f.exponent_bits) - 1;
  }
  return all;
}

bool IsNanBits(const FloatFormat& f, uint64_t mag, bool negative) {
  switch (f.specials) {
    case SpecialValues::kIeee:
      return (mag >> f.mantissa_bits) == Mask(f.exponent_bits) &&
             (mag & Mask(f.mantissa_bits)) != 0;
    case SpecialValues::kFiniteNan:
      return mag == Mask(f.exponent_bits + f.mantissa_bits);
    case SpecialValues::kUnsignedZeroNan:
      return negative && mag == 0;
    case SpecialValues::kFiniteNoNan:
      return false;
    case SpecialValues::kExponentOnly:
      return mag == Mask(f.exponent_bits);
  }
  return false;
}

// Rounds a non-negative integer-valued quotient to nearest, ties to even.
double RoundHalfEven(double q) {
  double floor_q = std::floor(q);
  double diff = q - floor_q;
  if (diff > 0.5) return floor_q + 1;
  if (diff < 0.5) return floor_q;
  return std::fmod(floor_q, 2.0) == 0 ? floor_q : floor_q + 1;
}

// Encodes |value| (finite, > 0) as a magnitude; may exceed MaxFiniteBits.
uint64_t EncodeMagnitude(const FloatFormat& f, double a) {
  int exp2;
  std::frexp(a, &exp2);  // a = m * 2^exp2, m in [0.5, 1)
  int e = exp2 - 1;      // a in [2^e, 2^(e+1))
  const int min_normal_exp = 1 - f.bias;
  const int m = f.mantissa_bits;
  if (f.specials == SpecialValues::kExponentOnly) {
    // Value 2^(field - bias); no subnormals, no zero: clamp small values.
    double frac = std::ldexp(a, -e);  // in [1, 2)
    int field = e + f.bias;
    if (frac > 1.5 || (frac == 1.5 && ((field & 1) != 0))) ++field;
    if (field < 0) return 0;  // below 2^-bias: the smallest value
    return static_cast<uint64_t>(field);
  }
  if (e < min_normal_exp) {
    double quantum_exp = min_normal_exp - m;
    double n = RoundHalfEven(std::ldexp(a, -static_cast<int>(quantum_exp)));
    return static_cast<uint64_t>(n);  // n == 2^m becomes the smallest normal
  }
  double n = RoundHalfEven(std::ldexp(a, m - e));  // in [2^m, 2^(m+1)]
  uint64_t mant = static_cast<uint64_t>(n);
  if (mant == (1ull << (m + 1))) {
    ++e;
    mant = 1ull << m;
  }
  uint64_t field = static_cast<uint64_t>(e + f.bias);
  return (field << m) | (mant - (1ull << m));
}

}  // namespace

const FloatFormat& GetFloatFormat(FloatFormatId id) {
  XLA_CHECK(id != FloatFormatId::kNone) << "not a float format";
  return kFormats[static_cast<int>(id)];
}

double DecodeFloat(FloatFormatId id, uint64_t bits) {
  if (id == FloatFormatId::kF32) {
    uint32_t b = static_cast<uint32_t>(bits);
    float v;
    std::memcpy(&v, &b, sizeof(v));
    return v;
  }
  if (id == FloatFormatId::kF64) {
    double v;
    std::memcpy(&v, &bits, sizeof(v));
    return v;
  }
  const FloatFormat& f = GetFloatFormat(id);
  bits &= Mask(f.total_bits());
  const bool negative = HasSign(f) && (bits & SignBit(f)) != 0;
  const uint64_t mag = HasSign(f) ? bits & ~SignBit(f) : bits;
  if (IsNanBits(f, mag, negative)) return std::numeric_limits<double>::quiet_NaN();
  const int m = f.mantissa_bits;
  const uint64_t field = mag >> m;
  const uint64_t mant = mag & Mask(m);
  double value;
  if (f.specials == SpecialValues::kIeee && field == Mask(f.exponent_bits)) {
    value = std::numeric_limits<double>::infinity();
  } else if (f.specials == SpecialValues::kExponentOnly) {
    value = std::ldexp(1.0, static_cast<int>(field) - f.bias);
  } else if (field == 0) {
    value = std::ldexp(static_cast<double>(mant), 1 - f.bias - m);
  } else {
    value = std::ldexp(static_cast<double>(mant | (1ull << m)),
                       static_cast<int>(field) - f.bias - m);
  }
  return negative ? -value : value;
}

uint64_t EncodeFloat(FloatFormatId id, double value) {
  if (id == FloatFormatId::kF32) {
    float v = static_cast<float>(value);
    uint32_t b;
    std::memcpy(&b, &v, sizeof(b));
    return b;
  }
  if (id == FloatFormatId::kF64) {
    uint64_t b;
    std::memcpy(&b, &value, sizeof(b));
    return b;
  }
  const FloatFormat& f = GetFloatFormat(id);
  if (std::isnan(value)) return NanBits(f);
  const bool negative = std::signbit(value);
  if (f.specials == SpecialValues::kExponentOnly && (negative || value == 0)) {
    return NanBits(f);  // no sign and no zero
  }
  const uint64_t sign = (negative && HasSign(f)) ? SignBit(f) : 0;
  const double a = std::fabs(value);
  uint64_t mag;
  if (a == 0) {
    mag = 0;
  } else if (std::isinf(a)) {
    mag = MaxFiniteBits(f) + 1;  // forces the overflow path
  } else {
    mag = EncodeMagnitude(f, a);
  }
  if (mag > MaxFiniteBits(f)) {
    switch (f.specials) {
      case SpecialValues::kIeee:
        return sign | (Mask(f.exponent_bits) << f.mantissa_bits);
      case SpecialValues::kFiniteNoNan:
        return sign | MaxFiniteBits(f);
      case SpecialValues::kFiniteNan:
      case SpecialValues::kUnsignedZeroNan:
      case SpecialValues::kExponentOnly:
        return NanBits(f) | (f.specials == SpecialValues::kFiniteNan ? sign : 0);
    }
  }
  if (mag == 0 && f.specials == SpecialValues::kUnsignedZeroNan) return 0;
  return sign | mag;
}

float RoundToTf32(float value) {
  uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7f800000u) == 0x7f800000u) return value;  // inf and NaN
  constexpr uint32_t kDropped = 13;
  const uint32_t lsb = (bits >> kDropped) & 1u;
  bits += ((1u << (kDropped - 1)) - 1u) + lsb;  // ties to even
  bits &= ~((1u << kDropped) - 1u);
  float rounded = 0;
  std::memcpy(&rounded, &bits, sizeof(bits));
  return rounded;
}

}  // namespace xla
