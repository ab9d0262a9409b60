#include "xla/hlo/transforms/ragged_dot_expander.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xla/hlo/transforms/hlo_util.h"
#include "xla/hlo/transforms/op_builder.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

enum class Mode { kNonContracting, kContracting, kBatch };

bool Has(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

int64_t IndexIn(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) - v.begin();
}

template <typename... Args>
absl::Status Refuse(const HloInstruction& instr, const Args&... pieces) {
  return absl::InvalidArgumentError(absl::StrCat("ragged-dot '", instr.name(), "': ", pieces...,
                                                 "; fix the instruction's attributes or shapes"));
}

// The attributes of one ragged-dot, checked against its operands.
struct Plan {
  Mode mode = Mode::kNonContracting;
  std::vector<int64_t> lb, lc, rb, rc;
  int64_t r = 0;                    // lhs ragged dimension
  int64_t group_dim = -1;           // rhs group dimension (non-contracting)
  std::vector<int64_t> outer;       // lhs dims indexing group_sizes' leading dims
  int64_t num_groups = 0;
  std::vector<int64_t> lhs_free;    // increasing
  std::vector<int64_t> rhs_free;    // increasing, the group dimension included
};

absl::StatusOr<Plan> MakePlan(const HloInstruction& instr) {
  const Shape& lhs = instr.operand(0)->shape();
  const Shape& rhs = instr.operand(1)->shape();
  const Shape& groups = instr.operand(2)->shape();
  Plan p;
  p.lb = instr.GetIntList(AttrId::kLhsBatchDims);
  p.lc = instr.GetIntList(AttrId::kLhsContractingDims);
  p.rb = instr.GetIntList(AttrId::kRhsBatchDims);
  p.rc = instr.GetIntList(AttrId::kRhsContractingDims);
  const std::vector<int64_t>& ragged = instr.GetIntList(AttrId::kLhsRaggedDims);
  const std::vector<int64_t>& group = instr.GetIntList(AttrId::kRhsGroupDims);
  if (!lhs.IsArray() || !rhs.IsArray() || !groups.IsArray() || !lhs.is_static() ||
      !rhs.is_static() || !groups.is_static() || !instr.shape().IsArray()) {
    return Refuse(instr, "needs static array operands and result");
  }
  if (groups.rank() < 1 || !IsInteger(groups.element_type())) {
    return Refuse(instr, "group sizes must be an integer array of rank >= 1, got ",
                  groups.ToString(false));
  }
  if (ragged.size() != 1 || ragged[0] < 0 || ragged[0] >= lhs.rank() ||
      p.lb.size() != p.rb.size() || p.lc.size() != p.rc.size() || group.size() > 1) {
    return Refuse(instr, "needs one lhs ragged dimension, at most one rhs group dimension and "
                         "batch and contracting lists of equal lengths");
  }
  p.r = ragged[0];
  p.num_groups = groups.dimensions(groups.rank() - 1);
  for (int64_t d = 0; d < lhs.rank(); ++d) {
    if (!Has(p.lb, d) && !Has(p.lc, d)) p.lhs_free.push_back(d);
  }
  for (int64_t d = 0; d < rhs.rank(); ++d) {
    if (!Has(p.rb, d) && !Has(p.rc, d)) p.rhs_free.push_back(d);
  }
  const std::vector<int64_t>* kind = &p.lhs_free;
  if (Has(p.lc, p.r)) {
    p.mode = Mode::kContracting;
    kind = &p.lc;
  } else if (Has(p.lb, p.r)) {
    p.mode = Mode::kBatch;
    kind = &p.lb;
  }
  if ((p.mode == Mode::kNonContracting) != (group.size() == 1)) {
    return Refuse(instr, "rhs_group_dims must name one dimension exactly when the lhs ragged "
                         "dimension ", p.r, " is neither batch nor contracting");
  }
  if (p.mode == Mode::kNonContracting) {
    p.group_dim = group[0];
    if (!Has(p.rhs_free, p.group_dim) || rhs.dimensions(p.group_dim) != p.num_groups) {
      return Refuse(instr, "rhs group dimension ", p.group_dim, " of ", rhs.ToString(false),
                    " must be a free dimension of ", p.num_groups, " groups");
    }
  }
  if (p.mode != Mode::kBatch) p.outer = p.lb;
  for (int64_t d : *kind) {
    if (d == p.r) break;
    p.outer.push_back(d);
  }
  if (groups.rank() > 1) {
    bool ok = groups.rank() == static_cast<int64_t>(p.outer.size()) + 1;
    for (size_t i = 0; ok && i < p.outer.size(); ++i) {
      ok = groups.dimensions(i) == lhs.dimensions(p.outer[i]);
    }
    if (!ok) {
      return Refuse(instr, "group sizes ", groups.ToString(false), " must be [g] or have one "
                    "leading dimension per outer lhs dimension (", p.outer.size(),
                    " here) of the same size, then g");
    }
  }
  return p;
}

// Builds the expansion of one ragged-dot into its computation.
class Expander {
 public:
  Expander(HloInstruction* instr, Plan plan)
      : instr_(instr), p_(std::move(plan)), o_(instr->parent()), base_(instr->name()),
        reducers_(instr->parent()->parent(), instr->name() + "_sum"),
        index_type_(instr->operand(2)->shape().element_type()),
        out_type_(instr->shape().element_type()) {}

  absl::StatusOr<HloInstruction*> Build() {
    MakeBounds();
    switch (p_.mode) {
      case Mode::kNonContracting: return NonContracting();
      case Mode::kContracting: return Contracting();
      case Mode::kBatch: return Batch();
    }
    return nullptr;
  }

 private:
  std::string N(const std::string& what) const { return base_ + "." + what; }

  // reduce(a) with add over `dims`, to the remaining dimensions.
  HloInstruction* Sum(HloInstruction* a, std::vector<int64_t> dims, const std::string& name) {
    const PrimitiveType t = a->shape().element_type();
    std::vector<int64_t> kept;
    for (int64_t d = 0; d < a->shape().rank(); ++d) {
      if (!Has(dims, d)) kept.push_back(a->shape().dimensions(d));
    }
    HloInstruction* r = o_.Op(HloOpcode::kReduce, Shape::Array(t, kept),
                              {a, o_.Scalar(t, 0, N("zero"))}, N(name));
    r->SetAttr(AttrId::kDimensions, std::move(dims));
    r->SetAttr(AttrId::kToApply, reducers_.Get(HloOpcode::kAdd, t));
    return r;
  }

  // starts_ and ends_: [outer..., g], in group_sizes' type. end_j = sum of
  // sizes i <= j, as a reduction over a [outer..., j, i] select.
  void MakeBounds() {
    HloInstruction* sizes = instr_->operand(2);
    std::vector<int64_t> dims = sizes->shape().dimensions();
    const int64_t nx = static_cast<int64_t>(dims.size()) - 1;
    std::vector<int64_t> square = dims;
    square.push_back(p_.num_groups);
    std::vector<int64_t> mapping;
    for (int64_t d = 0; d < nx; ++d) mapping.push_back(d);
    mapping.push_back(nx + 1);
    HloInstruction* by_i = o_.Broadcast(sizes, square, mapping, N("sizes_by_i"));
    HloInstruction* upto = o_.Compare(o_.Iota(square, nx + 1, N("i")), o_.Iota(square, nx, N("j")),
                                      "LE", N("i_le_j"));
    HloInstruction* zeros = o_.Broadcast(o_.Scalar(index_type_, 0, N("zero_size")), square, {},
                                         N("zero_sizes"));
    ends_ = Sum(o_.Select(upto, by_i, zeros, N("sizes_upto_j")), {nx + 1}, "group_ends");
    starts_ = o_.Binary(HloOpcode::kSubtract, ends_, sizes, N("group_starts"));
  }

  // pred over `dims`: dimension pos_r's coordinate lies in the group at
  // dimension pos_g, or, for pos_g < 0, before the end of the last group (in
  // some group, sizes being non-negative). `pos_outer` places group_sizes'
  // leading dimensions.
  HloInstruction* InGroup(const std::vector<int64_t>& dims, const std::vector<int64_t>& pos_outer,
                          int64_t pos_r, int64_t pos_g) {
    HloInstruction* x = o_.Convert(o_.Iota(dims, pos_r, N("ragged_position")), index_type_,
                                   N("ragged_position_converted"));
    const bool per_outer = ends_->shape().rank() > 1;
    std::vector<int64_t> mapping = per_outer ? pos_outer : std::vector<int64_t>{};
    if (pos_g < 0) {
      HloInstruction* total = Sum(instr_->operand(2),
                                  {instr_->operand(2)->shape().rank() - 1}, "total");
      return o_.Compare(x, o_.Broadcast(total, dims, mapping, N("total_b")), "LT",
                        N("in_some_group"));
    }
    mapping.push_back(pos_g);
    HloInstruction* start = o_.Broadcast(starts_, dims, mapping, N("starts_b"));
    HloInstruction* end = o_.Broadcast(ends_, dims, mapping, N("ends_b"));
    return o_.Binary(HloOpcode::kAnd, o_.Compare(x, start, "GE", N("after_start")),
                     o_.Compare(x, end, "LT", N("before_end")), N("in_group"));
  }

  HloInstruction* Zeros(const std::vector<int64_t>& dims, PrimitiveType t) {
    return o_.Broadcast(o_.Scalar(t, 0, N("zero_value")), dims, {}, N("zeros"));
  }

  // dot(a, b) of result type out_type_, with the ragged-dot's precision.
  HloInstruction* Dot(HloInstruction* a, HloInstruction* b, std::vector<int64_t> lb,
                      std::vector<int64_t> lc, std::vector<int64_t> rb, std::vector<int64_t> rc,
                      const std::string& name) {
    std::vector<int64_t> dims;
    const Shape& as = a->shape();
    const Shape& bs = b->shape();
    for (int64_t d : lb) dims.push_back(as.dimensions(d));
    for (int64_t d = 0; d < as.rank(); ++d) {
      if (!Has(lb, d) && !Has(lc, d)) dims.push_back(as.dimensions(d));
    }
    for (int64_t d = 0; d < bs.rank(); ++d) {
      if (!Has(rb, d) && !Has(rc, d)) dims.push_back(bs.dimensions(d));
    }
    HloInstruction* dot = o_.Op(HloOpcode::kDot, Shape::Array(out_type_, dims), {a, b}, N(name));
    dot->SetAttr(AttrId::kLhsBatchDims, std::move(lb));
    dot->SetAttr(AttrId::kLhsContractingDims, std::move(lc));
    dot->SetAttr(AttrId::kRhsBatchDims, std::move(rb));
    dot->SetAttr(AttrId::kRhsContractingDims, std::move(rc));
    for (const auto& [id, value] : instr_->attrs()) {
      if (id == AttrId::kOperandPrecision || id == AttrId::kAlgorithm) dot->SetAttr(id, value);
    }
    return dot;
  }

  // Position of lhs dimension d in a plain dot's result (batch, lhs free).
  int64_t ResultPos(int64_t d) const {
    if (Has(p_.lb, d)) return IndexIn(p_.lb, d);
    return static_cast<int64_t>(p_.lb.size()) + IndexIn(p_.lhs_free, d);
  }

  std::vector<int64_t> OuterPositions() const {
    std::vector<int64_t> pos;
    for (int64_t d : p_.outer) pos.push_back(ResultPos(d));
    return pos;
  }

  HloInstruction* NonContracting() {
    HloInstruction* dot = Dot(instr_->operand(0), instr_->operand(1), p_.lb, p_.lc,
                              p_.rb, p_.rc, "all_groups");
    const std::vector<int64_t> dims = dot->shape().dimensions();
    const int64_t pos_g = static_cast<int64_t>(p_.lb.size() + p_.lhs_free.size()) +
                          IndexIn(p_.rhs_free, p_.group_dim);
    HloInstruction* mask = InGroup(dims, OuterPositions(), ResultPos(p_.r), pos_g);
    HloInstruction* kept = o_.Select(mask, dot, Zeros(dims, out_type_), N("own_group"));
    return Sum(kept, {pos_g}, "result");
  }

  HloInstruction* Batch() {
    HloInstruction* dot = Dot(instr_->operand(0), instr_->operand(1), p_.lb, p_.lc,
                              p_.rb, p_.rc, "dot");
    const std::vector<int64_t> dims = dot->shape().dimensions();
    HloInstruction* mask = InGroup(dims, OuterPositions(), ResultPos(p_.r), -1);
    return o_.Select(mask, dot, Zeros(dims, out_type_), N("result"));
  }

  // Broadcasts `a` to a leading g dimension and keeps, in slice g, the
  // elements whose coordinate along `r` is in group g; `outer` are a's
  // dimensions matching group_sizes' leading ones.
  HloInstruction* MaskedPerGroup(HloInstruction* a, const std::vector<int64_t>& outer, int64_t r,
                                 const std::string& name) {
    std::vector<int64_t> dims = {p_.num_groups};
    std::vector<int64_t> mapping;
    for (int64_t d = 0; d < a->shape().rank(); ++d) {
      dims.push_back(a->shape().dimensions(d));
      mapping.push_back(d + 1);
    }
    std::vector<int64_t> pos_outer;
    for (int64_t d : outer) pos_outer.push_back(d + 1);
    HloInstruction* mask = InGroup(dims, pos_outer, r + 1, 0);
    HloInstruction* wide = o_.Broadcast(a, dims, mapping, N(name + "_per_group"));
    return o_.Select(mask, wide, Zeros(dims, a->shape().element_type()), N(name + "_masked"));
  }

  HloInstruction* Contracting() {
    // The rhs dimension matching each lhs batch or contracting dimension.
    auto rhs_of = [this](int64_t d) {
      return Has(p_.lb, d) ? p_.rb[IndexIn(p_.lb, d)] : p_.rc[IndexIn(p_.lc, d)];
    };
    std::vector<int64_t> rhs_outer;
    for (int64_t d : p_.outer) rhs_outer.push_back(rhs_of(d));
    HloInstruction* a = MaskedPerGroup(instr_->operand(0), p_.outer, p_.r, "lhs");
    HloInstruction* b = MaskedPerGroup(instr_->operand(1), rhs_outer, rhs_of(p_.r), "rhs");
    auto shifted = [](const std::vector<int64_t>& v, bool with_group) {
      std::vector<int64_t> out;
      if (with_group) out.push_back(0);
      for (int64_t d : v) out.push_back(d + 1);
      return out;
    };
    return Dot(a, b, shifted(p_.lb, true), shifted(p_.lc, false), shifted(p_.rb, true),
               shifted(p_.rc, false), "result");
  }

  HloInstruction* instr_;
  Plan p_;
  OpBuilder o_;
  std::string base_;
  ScalarReducers reducers_;
  PrimitiveType index_type_;
  PrimitiveType out_type_;
  HloInstruction* starts_ = nullptr;
  HloInstruction* ends_ = nullptr;
};

}  // namespace

absl::StatusOr<bool> RaggedDotExpander::Run(HloModule* module) {
  std::vector<HloInstruction*> todo;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (const auto& instr : computation->instructions()) {
      if (instr->opcode() == HloOpcode::kRaggedDot) todo.push_back(instr.get());
    }
  }
  for (HloInstruction* instr : todo) {
    ASSIGN_OR_RETURN(Plan plan, MakePlan(*instr));
    ASSIGN_OR_RETURN(HloInstruction * result, Expander(instr, std::move(plan)).Build());
    RETURN_IF_ERROR(ReplaceInstruction(instr, result));
  }
  return !todo.empty();
}

}  // namespace xla
