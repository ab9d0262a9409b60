#include "xla/hlo/evaluator/linalg_util.h"

namespace xla::evaluator::linalg {

AccumKind AccumKindFor(PrimitiveType a, PrimitiveType b, PrimitiveType out) {
  if (IsComplex(a) || IsComplex(b) || IsComplex(out)) return AccumKind::kComplex;
  if (IsFloat(a) || IsFloat(b) || IsFloat(out)) return AccumKind::kFloat;
  return AccumKind::kInt;
}

DecodedArray Decode(const Literal& l, AccumKind kind) {
  DecodedArray d;
  d.kind = kind;
  const int64_t n = l.element_count();
  switch (kind) {
    case AccumKind::kInt:
      d.ints.resize(n);
      for (int64_t i = 0; i < n; ++i) d.ints[i] = static_cast<uint64_t>(l.GetInt(i));
      break;
    case AccumKind::kFloat:
      d.reals.resize(n);
      for (int64_t i = 0; i < n; ++i) d.reals[i] = l.GetDouble(i);
      break;
    case AccumKind::kComplex:
      d.complexes.resize(n);
      for (int64_t i = 0; i < n; ++i) d.complexes[i] = l.GetComplex(i);
      break;
  }
  return d;
}

void Accumulator::Store(Literal& out, int64_t i) const {
  switch (kind_) {
    case AccumKind::kInt:
      out.SetInt(i, static_cast<int64_t>(int_sum_));
      return;
    case AccumKind::kFloat:
      out.SetDouble(i, real_sum_);
      return;
    case AccumKind::kComplex:
      out.SetComplex(i, complex_sum_);
      return;
  }
}

}  // namespace xla::evaluator::linalg
