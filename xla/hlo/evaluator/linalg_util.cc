#include "xla/hlo/evaluator/linalg_util.h"

#include <vector>

#include "xla/hlo/evaluator/op_helpers.h"
#include "xla/util/status_macros.h"

namespace xla::evaluator::linalg {

absl::Status CheckDotDims(const HloInstruction& instr, const Shape& lhs, const Shape& rhs,
                          absl::Span<const int64_t> rhs_other_dims) {
  const auto& lb = instr.GetIntList(AttrId::kLhsBatchDims);
  const auto& rb = instr.GetIntList(AttrId::kRhsBatchDims);
  const auto& lc = instr.GetIntList(AttrId::kLhsContractingDims);
  const auto& rc = instr.GetIntList(AttrId::kRhsContractingDims);
  if (lb.size() != rb.size() || lc.size() != rc.size()) {
    return op_helpers::OpError(instr, "lhs and rhs batch (and contracting) dimension lists must "
                                      "have the same lengths");
  }
  std::vector<int64_t> lhs_used(lb), rhs_used(rb);
  lhs_used.insert(lhs_used.end(), lc.begin(), lc.end());
  rhs_used.insert(rhs_used.end(), rc.begin(), rc.end());
  std::vector<int64_t> rhs_named = rhs_used;
  rhs_named.insert(rhs_named.end(), rhs_other_dims.begin(), rhs_other_dims.end());
  RETURN_IF_ERROR(op_helpers::CheckDimList(instr, "lhs batch+contracting dims", lhs_used,
                                           lhs.rank()));
  RETURN_IF_ERROR(op_helpers::CheckDimList(
      instr, rhs_other_dims.empty() ? "rhs batch+contracting dims" : "rhs batch+contracting+group dims",
      rhs_named, rhs.rank()));
  for (size_t i = 0; i < lhs_used.size(); ++i) {
    if (lhs.dimensions(lhs_used[i]) != rhs.dimensions(rhs_used[i])) {
      return op_helpers::OpError(instr, "lhs dimension ", lhs_used[i], " of ", lhs.ToString(false),
                                 " does not match rhs dimension ", rhs_used[i], " of ",
                                 rhs.ToString(false));
    }
  }
  return absl::OkStatus();
}

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
