#include "xla/types/random_literal.h"

#include <algorithm>
#include <random>

#include "absl/strings/str_cat.h"

namespace xla {
namespace {

absl::Status Fill(Literal& lit, std::mt19937_64& rng, int64_t index_bound) {
  const Shape& shape = lit.shape();
  if (shape.IsTuple()) {
    for (Literal& e : *lit.mutable_tuple_elements()) {
      absl::Status s = Fill(e, rng, index_bound);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot draw random values of shape ", shape.ToString(false)));
  }
  const PrimitiveType t = shape.element_type();
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  const int64_t hi = index_bound >= 0 ? index_bound : 7;
  std::uniform_int_distribution<int64_t> integer(0, std::max<int64_t>(hi, 0));
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
      case TypeKind::kUnsigned: {
        const int64_t type_max = BitWidth(t) >= 63 ? hi : (int64_t{1} << (BitWidth(t) - (IsSignedInt(t) ? 1 : 0))) - 1;
        lit.SetInt(i, std::min(integer(rng), type_max));
        break;
      }
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

}  // namespace

absl::StatusOr<Literal> MakeRandomLiteral(const Shape& shape, uint64_t seed, int64_t index_bound) {
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
  absl::Status s = Fill(lit, rng, index_bound);
  if (!s.ok()) return s;
  return lit;
}

}  // namespace xla
