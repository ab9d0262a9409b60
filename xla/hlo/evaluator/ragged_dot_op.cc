// ragged-dot for the evaluator: a direct loop over result elements, written
// from the operation's definition (a grouped GEMM whose groups are runs of
// the lhs ragged dimension), for exactness, not speed.
//
// ragged-dot(lhs, rhs, group_sizes) takes dot dimension numbers plus one lhs
// ragged dimension r, and, in the first mode, one rhs group dimension. The
// groups are consecutive runs along r: group g covers positions
// [start_g, start_g + group_sizes[..., g]) with start_0 = 0 and each start
// the previous end. Positions past the last group belong to no group. The
// mode follows from what r is:
//   non-contracting  result [b..., m..., n...]: a row whose r-coordinate is
//                    in group g is multiplied with rhs[g] (the rhs group
//                    dimension fixed to g); a row in no group is zero.
//   contracting      result [g, b..., m..., n...]: entry g sums only the
//                    contracting positions whose r-coordinate is in group g.
//   batch            result [b..., m..., n...]: the plain dot, zero where the
//                    r-coordinate is in no group.
// group_sizes is [g] (the same groups everywhere) or [x..., g] with one
// leading dimension per "outer" lhs dimension: the lhs batch dimensions in
// lhs_batch_dims order (non-contracting and contracting modes only), then the
// dimensions of r's own kind that come before r (free dimensions in
// increasing order; contracting and batch dimensions in their list order).
// Accumulation is linalg_util.h's (exact integers, f64 or complex<double>
// with one final rounding).
#include <cstdint>
#include <vector>

#include "xla/hlo/evaluator/index_util.h"
#include "xla/hlo/evaluator/linalg_util.h"
#include "xla/hlo/evaluator/op_helpers.h"
#include "xla/util/status_macros.h"

namespace xla::evaluator::linalg {
namespace {

using op_helpers::Contains;
using op_helpers::OpError;

enum class RaggedMode { kNonContracting, kContracting, kBatch };

// Everything the loop needs, worked out once from the attributes.
struct RaggedPlan {
  RaggedMode mode = RaggedMode::kNonContracting;
  int64_t ragged_dim = 0;               // lhs dimension r
  int64_t group_dim = -1;               // rhs group dimension (non-contracting)
  std::vector<int64_t> outer_dims;      // lhs dims indexing group_sizes' leading dims
  bool broadcast_groups = false;        // group_sizes is [g]
  int64_t num_groups = 0;
  std::vector<int64_t> lhs_free, rhs_free;  // increasing order
  std::vector<int64_t> result_dims;
};

absl::StatusOr<RaggedPlan> PlanRaggedDot(const HloInstruction& instr, const Shape& lhs,
                                         const Shape& rhs, const Shape& groups) {
  const auto& lb = instr.GetIntList(AttrId::kLhsBatchDims);
  const auto& rb = instr.GetIntList(AttrId::kRhsBatchDims);
  const auto& lc = instr.GetIntList(AttrId::kLhsContractingDims);
  const auto& rc = instr.GetIntList(AttrId::kRhsContractingDims);
  const auto& ragged = instr.GetIntList(AttrId::kLhsRaggedDims);
  const auto& group = instr.GetIntList(AttrId::kRhsGroupDims);
  RETURN_IF_ERROR(CheckDotDims(instr, lhs, rhs, group));
  if (ragged.size() != 1 || ragged[0] < 0 || ragged[0] >= lhs.rank()) {
    return OpError(instr, "lhs_ragged_dims must name one dimension of ", lhs.ToString(false));
  }
  if (groups.rank() < 1 || !IsInteger(groups.element_type())) {
    return OpError(instr, "group sizes must be an integer array of rank >= 1, got ",
                   groups.ToString(false));
  }
  RaggedPlan plan;
  plan.ragged_dim = ragged[0];
  plan.num_groups = groups.dimensions(groups.rank() - 1);
  const int64_t r = plan.ragged_dim;
  for (int64_t d = 0; d < lhs.rank(); ++d) {
    if (!Contains(lb, d) && !Contains(lc, d)) plan.lhs_free.push_back(d);
  }
  for (int64_t d = 0; d < rhs.rank(); ++d) {
    if (!Contains(rb, d) && !Contains(rc, d) && !Contains(group, d)) plan.rhs_free.push_back(d);
  }
  // The outer dimensions of r's own kind, in that kind's order.
  std::vector<int64_t> same_kind_before;
  auto before_in_list = [&](const std::vector<int64_t>& list) {
    for (int64_t d : list) {
      if (d == r) break;
      same_kind_before.push_back(d);
    }
  };
  if (Contains(lc, r)) {
    plan.mode = RaggedMode::kContracting;
    before_in_list(lc);
  } else if (Contains(lb, r)) {
    plan.mode = RaggedMode::kBatch;
    before_in_list(lb);
  } else {
    plan.mode = RaggedMode::kNonContracting;
    before_in_list(plan.lhs_free);
  }
  const bool needs_group = plan.mode == RaggedMode::kNonContracting;
  if (needs_group != (group.size() == 1) || group.size() > 1) {
    return OpError(instr, "rhs_group_dims must name one dimension exactly when the lhs ragged "
                          "dimension is neither batch nor contracting");
  }
  if (needs_group) {
    plan.group_dim = group[0];
    if (rhs.dimensions(plan.group_dim) != plan.num_groups) {
      return OpError(instr, "rhs group dimension ", plan.group_dim, " of ", rhs.ToString(false),
                     " must have ", plan.num_groups, " groups (the minor dimension of ",
                     groups.ToString(false), ")");
    }
  }
  if (plan.mode != RaggedMode::kBatch) plan.outer_dims = lb;
  plan.outer_dims.insert(plan.outer_dims.end(), same_kind_before.begin(), same_kind_before.end());
  plan.broadcast_groups = groups.rank() == 1;
  if (!plan.broadcast_groups) {
    bool ok = groups.rank() == static_cast<int64_t>(plan.outer_dims.size()) + 1;
    for (size_t i = 0; ok && i < plan.outer_dims.size(); ++i) {
      ok = groups.dimensions(i) == lhs.dimensions(plan.outer_dims[i]);
    }
    if (!ok) {
      return OpError(instr, "group sizes ", groups.ToString(false), " must be [g] or have one "
                     "leading dimension per outer lhs dimension (", plan.outer_dims.size(),
                     " here) of the same size, then g");
    }
  }
  if (plan.mode == RaggedMode::kContracting) plan.result_dims.push_back(plan.num_groups);
  for (int64_t d : lb) plan.result_dims.push_back(lhs.dimensions(d));
  for (int64_t d : plan.lhs_free) plan.result_dims.push_back(lhs.dimensions(d));
  for (int64_t d : plan.rhs_free) plan.result_dims.push_back(rhs.dimensions(d));
  return plan;
}

// The group holding lhs position `lhs_index` (its r-coordinate), or -1.
int64_t GroupOf(const RaggedPlan& plan, const Literal& groups,
                const std::vector<int64_t>& lhs_index) {
  int64_t row = 0;
  if (!plan.broadcast_groups) {
    for (size_t i = 0; i < plan.outer_dims.size(); ++i) {
      row = row * groups.shape().dimensions(i) + lhs_index[plan.outer_dims[i]];
    }
  }
  const int64_t x = lhs_index[plan.ragged_dim];
  int64_t start = 0;
  for (int64_t g = 0; g < plan.num_groups; ++g) {
    const int64_t end = start + op_helpers::IndexValue(groups, row * plan.num_groups + g);
    if (start <= x && x < end) return g;
    start = end;
  }
  return -1;
}

}  // namespace

absl::StatusOr<Literal> EvalRaggedDot(const HloInstruction& instr,
                                      absl::Span<const Literal* const> operands,
                                      EvalContext& ctx) {
  (void)ctx;
  const Literal& lhs = *operands[0];
  const Literal& rhs = *operands[1];
  const Literal& groups = *operands[2];
  RETURN_IF_ERROR(op_helpers::ExpectArray(instr, lhs, "lhs"));
  RETURN_IF_ERROR(op_helpers::ExpectArray(instr, rhs, "rhs"));
  RETURN_IF_ERROR(op_helpers::ExpectArray(instr, groups, "group sizes"));
  ASSIGN_OR_RETURN(RaggedPlan plan, PlanRaggedDot(instr, lhs.shape(), rhs.shape(), groups.shape()));
  const PrimitiveType out_type = instr.shape().element_type();
  RETURN_IF_ERROR(op_helpers::CheckArrayResult(instr, plan.result_dims, out_type));
  const AccumKind kind = AccumKindFor(lhs.shape().element_type(), rhs.shape().element_type(),
                                      out_type);
  const DecodedArray a = Decode(lhs, kind);
  const DecodedArray b = Decode(rhs, kind);
  Literal out(instr.shape());
  if (out.element_count() == 0) return out;

  const auto& lb = instr.GetIntList(AttrId::kLhsBatchDims);
  const auto& rb = instr.GetIntList(AttrId::kRhsBatchDims);
  const auto& lc = instr.GetIntList(AttrId::kLhsContractingDims);
  const auto& rc = instr.GetIntList(AttrId::kRhsContractingDims);
  const std::vector<int64_t>& ldims = lhs.shape().dimensions();
  const std::vector<int64_t>& rdims = rhs.shape().dimensions();
  std::vector<int64_t> csizes;
  for (int64_t d : lc) csizes.push_back(ldims[d]);
  const bool has_contracting = ElementCount(csizes) > 0;

  std::vector<int64_t> index(plan.result_dims.size(), 0);
  std::vector<int64_t> li(ldims.size(), 0), ri(rdims.size(), 0);
  int64_t linear = 0;
  do {
    size_t pos = 0;
    const int64_t selected = plan.mode == RaggedMode::kContracting ? index[pos++] : -1;
    for (size_t k = 0; k < lb.size(); ++k, ++pos) li[lb[k]] = ri[rb[k]] = index[pos];
    for (int64_t d : plan.lhs_free) li[d] = index[pos++];
    for (int64_t d : plan.rhs_free) ri[d] = index[pos++];
    Accumulator acc(kind);
    bool in_group = true;
    if (plan.mode != RaggedMode::kContracting) {
      const int64_t g = GroupOf(plan, groups, li);
      in_group = g >= 0;
      if (plan.mode == RaggedMode::kNonContracting) ri[plan.group_dim] = g;
    }
    if (in_group && has_contracting) {
      std::vector<int64_t> c(csizes.size(), 0);
      do {
        for (size_t k = 0; k < c.size(); ++k) li[lc[k]] = ri[rc[k]] = c[k];
        if (plan.mode == RaggedMode::kContracting && GroupOf(plan, groups, li) != selected) {
          continue;
        }
        acc.AddProduct(a, LinearIndex(li, ldims), b, LinearIndex(ri, rdims));
      } while (NextIndex(c, csizes));
    }
    acc.Store(out, linear++);
  } while (NextIndex(index, plan.result_dims));
  return out;
}

}  // namespace xla::evaluator::linalg
