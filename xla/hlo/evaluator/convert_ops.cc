// Conversions of the elementwise family: convert, bitcast-convert,
// stochastic-convert and reduce-precision (registered by
// RegisterElementwiseOps; see elementwise_internal.h).
#include <cmath>
#include <cstring>
#include <vector>

#include "xla/hlo/evaluator/elementwise_internal.h"
#include "xla/hlo/evaluator/eval_util.h"
#include "xla/hlo/evaluator/numeric_util.h"
#include "xla/types/float_format.h"
#include "xla/util/status_macros.h"

namespace xla::evaluator {
namespace {

using Operands = absl::Span<const Literal* const>;

// The declared array element type of `instr`'s result.
absl::StatusOr<PrimitiveType> ResultType(const HloInstruction& instr) {
  if (!instr.shape().IsArray()) {
    return InstrError(instr, "result must be an array, got ", instr.shape().ToString(false));
  }
  return instr.shape().element_type();
}

// Bitcast between element widths that are not both whole bytes (or wider
// than 64 bits): assembles or splits the raw encodings, little end first.
absl::Status BitcastPieces(const HloInstruction& instr, const Literal& in, Literal& out) {
  const int from_bits = BitWidth(in.shape().element_type());
  const int to_bits = BitWidth(out.shape().element_type());
  if (from_bits > 64 || to_bits > 64) {
    return InstrUnimplemented(instr, "bitcast-convert between ",
                              PrimitiveTypeName(in.shape().element_type()), " and ",
                              PrimitiveTypeName(out.shape().element_type()));
  }
  if (from_bits >= to_bits) {
    const int pieces = from_bits / to_bits;
    for (int64_t i = 0; i < in.element_count(); ++i) {
      const uint64_t bits = in.GetBits(i);
      for (int k = 0; k < pieces; ++k) {
        out.SetBits(i * pieces + k, (bits >> (k * to_bits)) & LowBitsMask(to_bits));
      }
    }
    return absl::OkStatus();
  }
  const int pieces = to_bits / from_bits;
  for (int64_t o = 0; o < out.element_count(); ++o) {
    uint64_t bits = 0;
    for (int k = 0; k < pieces; ++k) bits |= in.GetBits(o * pieces + k) << (k * from_bits);
    out.SetBits(o, bits);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Literal> EvalConvert(const HloInstruction& instr, Operands operands,
                                    EvalContext&) {
  RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, 0));
  ASSIGN_OR_RETURN(PrimitiveType to, ResultType(instr));
  const Literal& in = *operands[0];
  Literal out(ArrayShape(to, in.shape().dimensions()));
  for (int64_t i = 0; i < in.element_count(); ++i) ConvertElement(in, i, out, i);
  return out;
}

// Same width: the encodings are kept. A wider source splits into a new minor
// dimension of narrower elements (least significant piece first, as XLA's
// little-endian layout does); a narrower source joins its minor dimension.
absl::StatusOr<Literal> EvalBitcastConvert(const HloInstruction& instr, Operands operands,
                                           EvalContext&) {
  RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, 0));
  ASSIGN_OR_RETURN(PrimitiveType to, ResultType(instr));
  const Literal& in = *operands[0];
  const PrimitiveType from = in.shape().element_type();
  const int from_bits = BitWidth(from);
  const int to_bits = BitWidth(to);
  std::vector<int64_t> dims = in.shape().dimensions();
  if (from_bits > to_bits && to_bits > 0 && from_bits % to_bits == 0) {
    dims.push_back(from_bits / to_bits);
  } else if (from_bits < to_bits && from_bits > 0 && to_bits % from_bits == 0 && !dims.empty() &&
             dims.back() == to_bits / from_bits) {
    dims.pop_back();
  } else if (from_bits != to_bits) {
    return InstrError(instr, "cannot bitcast-convert ", in.shape().ToString(false), " to ",
                      PrimitiveTypeName(to));
  }
  Literal out(ArrayShape(to, dims));
  if (from_bits % 8 == 0 && to_bits % 8 == 0) {
    std::memcpy(out.mutable_data().data(), in.data().data(), in.data().size());
    return out;
  }
  RETURN_IF_ERROR(BitcastPieces(instr, in, out));
  return out;
}

// XLA's decomposition (StochasticConvertDecomposer): |x| = t + f with
// t = floor(|x|); t rounds up when random < f * 2^bits(random); the sign is
// reapplied; x <= MIN or x >= MAX (compared in x's type) saturate. Only
// float -> signed integer is defined.
absl::StatusOr<Literal> EvalStochasticConvert(const HloInstruction& instr, Operands operands,
                                              EvalContext&) {
  RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, 0));
  RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, 1));
  ASSIGN_OR_RETURN(PrimitiveType to, ResultType(instr));
  const Literal& in = *operands[0];
  const Literal& random = *operands[1];
  const PrimitiveType from = in.shape().element_type();
  const PrimitiveType random_type = random.shape().element_type();
  if (!IsFloat(from) || !IsSignedInt(to)) {
    return InstrUnimplemented(instr, "stochastic-convert from ", PrimitiveTypeName(from), " to ",
                              PrimitiveTypeName(to), " (only float -> signed integer)");
  }
  if (!IsUnsignedInt(random_type) || random.shape().dimensions() != in.shape().dimensions()) {
    return InstrError(instr, "random bits ", random.shape().ToString(false),
                      " must be unsigned and shaped like ", in.shape().ToString(false));
  }
  const int width = BitWidth(to);
  const int64_t min = SignExtend(uint64_t{1} << (width - 1), width);
  const int64_t max = static_cast<int64_t>(LowBitsMask(width - 1));
  const FloatFormatId fmt = FloatFormatOf(from);
  const double min_as_float =
      DecodeFloat(fmt, IntegerToFloatBits(from, true, uint64_t{0} - static_cast<uint64_t>(min)));
  const double max_as_float =
      DecodeFloat(fmt, IntegerToFloatBits(from, false, static_cast<uint64_t>(max)));
  Literal out(ArrayShape(to, in.shape().dimensions()));
  for (int64_t i = 0; i < in.element_count(); ++i) {
    const double x = in.GetDouble(i);
    const double magnitude = std::fabs(x);
    const double truncated = std::floor(magnitude);
    const double fraction = magnitude - truncated;  // exact
    const double fixed = std::ldexp(fraction, BitWidth(random_type));
    const bool round_up = random.GetBits(i) < FloatToIntegerBits(random_type, fixed);
    uint64_t result = FloatToIntegerBits(to, truncated) + (round_up ? 1 : 0);
    if (x < 0) result = uint64_t{0} - result;
    if (x <= min_as_float) result = static_cast<uint64_t>(min);
    if (x >= max_as_float) result = static_cast<uint64_t>(max);
    out.SetBits(i, result);
  }
  return out;
}

absl::StatusOr<Literal> EvalReducePrecision(const HloInstruction& instr, Operands operands,
                                            EvalContext&) {
  RETURN_IF_ERROR(ExpectArrayOperand(instr, operands, 0));
  const Literal& in = *operands[0];
  if (!IsFloat(in.shape().element_type())) {
    return InstrError(instr, "reduce-precision needs a float operand, got ",
                      in.shape().ToString(false));
  }
  const int64_t exponent_bits = instr.GetInt(AttrId::kExponentBits, -1);
  const int64_t mantissa_bits = instr.GetInt(AttrId::kMantissaBits, -1);
  if (exponent_bits < 1 || mantissa_bits < 0) {
    return InstrError(instr, "needs exponent_bits >= 1 and mantissa_bits >= 0, got ",
                      exponent_bits, " and ", mantissa_bits);
  }
  Literal out(in.shape());
  for (int64_t i = 0; i < in.element_count(); ++i) {
    ReducePrecisionElement(in, out, i, exponent_bits, mantissa_bits);
  }
  return out;
}

}  // namespace xla::evaluator
