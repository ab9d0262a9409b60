#include "xla/types/random_literal.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "absl/strings/str_cat.h"

namespace xla {
namespace {

// What Fill draws: reals uniform in [real_low, real_high), integers uniform
// in [int_low, int_high] (capped at the type's maximum when `cap`).
struct Ranges {
  double real_low = -1.0;
  double real_high = 1.0;
  int64_t int_low = 0;
  int64_t int_high = 7;
  bool cap = true;
};

// The largest and smallest value of integer type `t` (clamped to int64).
int64_t TypeMax(PrimitiveType t) {
  if (BitWidth(t) >= 63) return std::numeric_limits<int64_t>::max();
  return (int64_t{1} << (BitWidth(t) - (IsSignedInt(t) ? 1 : 0))) - 1;
}
int64_t TypeMin(PrimitiveType t) {
  if (!IsSignedInt(t)) return 0;
  if (BitWidth(t) >= 64) return std::numeric_limits<int64_t>::min();
  return -(int64_t{1} << (BitWidth(t) - 1));
}

absl::Status Fill(Literal& lit, std::mt19937_64& rng, const Ranges& ranges) {
  const Shape& shape = lit.shape();
  if (shape.IsTuple()) {
    for (Literal& e : *lit.mutable_tuple_elements()) {
      absl::Status s = Fill(e, rng, ranges);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot draw random values of shape ", shape.ToString(false)));
  }
  const PrimitiveType t = shape.element_type();
  std::uniform_real_distribution<double> real(ranges.real_low, ranges.real_high);
  int64_t lo = ranges.int_low, hi = ranges.int_high;
  if (IsInteger(t) && (!ranges.cap && (lo < TypeMin(t) || hi > TypeMax(t)))) {
    return absl::InvalidArgumentError(absl::StrCat("integers in [", lo, ", ", hi, "] do not fit ",
                                                   PrimitiveTypeName(t)));
  }
  std::uniform_int_distribution<int64_t> integer(lo, std::max(hi, lo));
  for (int64_t i = 0; i < lit.element_count(); ++i) {
    switch (KindOf(t)) {
      case TypeKind::kFloat:
        lit.SetDouble(i, real(rng));
        break;
      case TypeKind::kComplex:
        lit.SetComplex(i, {real(rng), real(rng)});
        break;
      case TypeKind::kPred:
        lit.SetInt(i, rng() & 1);
        break;
      case TypeKind::kSigned:
      case TypeKind::kUnsigned:
        lit.SetInt(i, ranges.cap ? std::min(integer(rng), TypeMax(t)) : integer(rng));
        break;
      case TypeKind::kToken:
      case TypeKind::kTuple:
      case TypeKind::kOpaque:
      case TypeKind::kBuffer:
        return absl::InvalidArgumentError(
            absl::StrCat("cannot draw random values of type ", PrimitiveTypeName(t)));
    }
  }
  return absl::OkStatus();
}

bool HasIntegers(const Shape& shape) {
  if (!shape.IsTuple()) return shape.IsArray() && IsInteger(shape.element_type());
  for (const Shape& e : shape.tuple_shapes()) {
    if (HasIntegers(e)) return true;
  }
  return false;
}

absl::StatusOr<Literal> Draw(const Shape& shape, uint64_t seed, const Ranges& ranges) {
  if (!shape.is_static()) {
    for (int64_t i = 0; shape.IsArray() && i < shape.rank(); ++i) {
      if (shape.is_unbounded_dimension(i)) {
        return absl::InvalidArgumentError(
            absl::StrCat("cannot draw values for ", shape.ToString(false), " (unbounded dimension)"));
      }
    }
  }
  if (absl::Status fits = CheckLiteralFitsInMemory(shape, "a random input"); !fits.ok()) return fits;
  std::mt19937_64 rng(seed);
  Literal lit(shape);
  absl::Status s = Fill(lit, rng, ranges);
  if (!s.ok()) return s;
  return lit;
}

}  // namespace

absl::StatusOr<Literal> MakeRandomLiteral(const Shape& shape, uint64_t seed, int64_t index_bound) {
  Ranges ranges;
  if (index_bound >= 0) ranges.int_high = index_bound;
  return Draw(shape, seed, ranges);
}

absl::StatusOr<Literal> MakeRandomLiteralInRange(const Shape& shape, uint64_t seed, double low,
                                                 double high) {
  if (!(low < high) || !std::isfinite(low) || !std::isfinite(high)) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad range [", low, ", ", high, ") (finite, low < high)"));
  }
  constexpr double kLimit = 9.2e18;  // inside int64
  if (std::fabs(low) > kLimit || std::fabs(high) > kLimit) {
    return absl::InvalidArgumentError(absl::StrCat("range [", low, ", ", high, ") is too wide"));
  }
  Ranges ranges;
  ranges.real_low = low;
  ranges.real_high = high;
  ranges.int_low = static_cast<int64_t>(std::ceil(low));
  ranges.int_high = static_cast<int64_t>(std::ceil(high)) - 1;
  ranges.cap = false;
  if (ranges.int_high < ranges.int_low) {
    if (HasIntegers(shape)) {
      return absl::InvalidArgumentError(
          absl::StrCat("no integer in [", low, ", ", high, ") for ", shape.ToString(false)));
    }
  }
  return Draw(shape, seed, ranges);
}

}  // namespace xla
