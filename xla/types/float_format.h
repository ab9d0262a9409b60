// Binary floating-point formats narrower than or equal to f64, described by a
// table, with exact decoding and round-to-nearest-even encoding.
//
// One generic implementation serves f16, bf16 and every f8/f4 variant, so the
// evaluator, the literal printer and the code generators agree bit for bit.
// All functions are pure and thread-safe.
#ifndef XLA_TYPES_FLOAT_FORMAT_H_
#define XLA_TYPES_FLOAT_FORMAT_H_

#include <cstdint>

namespace xla {

// How a format spends its special encodings.
enum class SpecialValues {
  kIeee,         // all-ones exponent: inf (mantissa 0) or NaN; signed zeros.
  kFiniteNan,    // "fn": no inf; only all-ones exponent+mantissa is NaN.
  kUnsignedZeroNan,  // "fnuz": no inf, no -0; sign bit with zero payload is NaN.
  kFiniteNoNan,  // "fn" 4-bit: no inf and no NaN; overflow saturates.
  kExponentOnly, // e8m0fnu: no sign, no zero, no mantissa; all-ones is NaN.
};

enum class FloatFormatId : uint8_t {
  kNone,
  kF16,
  kBF16,
  kF32,
  kF64,
  kF8E5M2,
  kF8E4M3,
  kF8E4M3FN,
  kF8E4M3FNUZ,
  kF8E5M2FNUZ,
  kF8E4M3B11FNUZ,
  kF8E3M4,
  kF8E8M0FNU,
  kF4E2M1FN,
};

struct FloatFormat {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  SpecialValues specials;
  int total_bits() const {
    return exponent_bits + mantissa_bits +
           (specials == SpecialValues::kExponentOnly ? 0 : 1);
  }
};

// The description of `id`. `id` must not be kNone.
const FloatFormat& GetFloatFormat(FloatFormatId id);

// Exact value of the encoding `bits` (low total_bits() bits are used).
double DecodeFloat(FloatFormatId id, uint64_t bits);

// Rounds `value` to the nearest representable value (ties to even) and returns
// its encoding. Overflow gives inf (kIeee), NaN (fn, fnuz, e8m0) or the
// largest finite value (kFiniteNoNan); NaN input gives NaN, or +0 where the
// format has no NaN. For kF32/kF64 this is the plain IEEE conversion.
uint64_t EncodeFloat(FloatFormatId id, double value);

// Encodes then decodes: `value` rounded to the format.
inline double RoundToFormat(FloatFormatId id, double value) {
  return DecodeFloat(id, EncodeFloat(id, value));
}

// `value` rounded to TF32 (an f32 with 10 explicit mantissa bits, the
// operand format of NVIDIA tensor cores for f32 GEMMs with TF32 allowed):
// the low 13 mantissa bits rounded to nearest, ties to even, carrying into
// the exponent (a value that rounds past the largest finite f32 becomes
// inf). NaN and inf pass through. The fake cuBLAS libraries and the tests
// use it as the model of CUBLAS_COMPUTE_32F_FAST_TF32's operand rounding.
// Pure.
float RoundToTf32(float value);

}  // namespace xla

#endif  // XLA_TYPES_FLOAT_FORMAT_H_
