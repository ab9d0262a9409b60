#include "xla/service/canonicalize/reduction_canonicalizer.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "xla/service/canonicalize/reduction_kind.h"
#include "xla/service/canonicalize/rewrite_util.h"

namespace xla {
namespace {

using canonicalize::AddGetTupleElement;
using canonicalize::AddReshape;
using canonicalize::AddTranspose;
using canonicalize::AddTuple;
using canonicalize::IsStaticShape;

// How the inputs are brought into canonical form.
struct Plan {
  std::vector<int64_t> perm;        // transpose first (identity: none)
  std::vector<int64_t> input_dims;  // then reshape to these
  int64_t reduce_dim = 0;
  std::vector<int64_t> output_dims;
};

int64_t SizeOf(const std::vector<int64_t>& dims, const std::vector<int64_t>& which) {
  int64_t p = 1;
  for (int64_t d : which) p *= dims[d];
  return p;
}

// Groups of adjacent non-unit dims with the same role.
struct Group {
  bool reduced;
  int64_t size;
};

Plan MakePlan(const std::vector<int64_t>& dims, const std::vector<bool>& reduced) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<Group> groups;
  std::vector<int64_t> kept_all, reduced_all;
  for (int64_t d = 0; d < rank; ++d) {
    (reduced[d] ? reduced_all : kept_all).push_back(d);
    if (dims[d] == 1) continue;
    if (!groups.empty() && groups.back().reduced == reduced[d]) {
      groups.back().size *= dims[d];
    } else {
      groups.push_back({reduced[d], dims[d]});
    }
  }
  Plan p;
  for (int64_t d = 0; d < rank; ++d) p.perm.push_back(d);
  const int64_t kept = SizeOf(dims, kept_all), red = SizeOf(dims, reduced_all);
  auto pattern = [&](std::initializer_list<bool> roles) {
    if (groups.size() != roles.size()) return false;
    size_t i = 0;
    for (bool r : roles) {
      if (groups[i++].reduced != r) return false;
    }
    return true;
  };
  if (kept_all.empty() || (groups.empty() && !reduced_all.empty()) || pattern({true})) {
    p.input_dims = {red};  // whole
    p.reduce_dim = 0;
    p.output_dims = {};
  } else if (pattern({false, true, false})) {
    p.input_dims = {groups[0].size, groups[1].size, groups[2].size};
    p.reduce_dim = 1;
    p.output_dims = {groups[0].size, groups[2].size};
  } else if (pattern({true, false})) {
    p.input_dims = {red, kept};
    p.reduce_dim = 0;
    p.output_dims = {kept};
  } else {
    // [kept..., reduced...]: row form, transposing when the roles interleave.
    if (!(pattern({false, true}) || pattern({false}) || groups.empty())) {
      p.perm = kept_all;
      p.perm.insert(p.perm.end(), reduced_all.begin(), reduced_all.end());
    }
    p.input_dims = {kept, red};
    p.reduce_dim = 1;
    p.output_dims = {kept};
  }
  return p;
}

absl::StatusOr<HloInstruction*> RewriteReduce(HloInstruction* reduce, HloComputation* comp,
                                              NameUniquer* names) {
  if (ClassifyReduction(*reduce).form != ReductionForm::kOther) return nullptr;
  const int64_t count = reduce->operand_count();
  const std::vector<int64_t>& rdims = reduce->dimensions();
  if (count < 2 || count % 2 != 0 || !reduce->operand(0)->shape().IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat("reduction-canonicalizer: reduce '",
                                                   reduce->name(), "' is malformed; run the verifier"));
  }
  const Shape& in = reduce->operand(0)->shape();
  const int64_t n = count / 2;
  for (int64_t i = 0; i < count; ++i) {
    if (!IsStaticShape(reduce->operand(i)->shape())) return nullptr;
  }
  if (!IsStaticShape(reduce->shape())) return nullptr;
  std::vector<bool> reduced(in.rank(), false);
  for (int64_t d : rdims) {
    if (d < 0 || d >= in.rank() || reduced[d]) {
      return absl::InvalidArgumentError(absl::StrCat("reduction-canonicalizer: reduce '",
                                                     reduce->name(), "' has invalid dimensions"));
    }
    reduced[d] = true;
  }
  const Plan plan = MakePlan(in.dimensions(), reduced);
  std::vector<HloInstruction*> operands;
  for (int64_t i = 0; i < n; ++i) {
    HloInstruction* t = AddTranspose(comp, names, reduce->operand(i), plan.perm);
    operands.push_back(AddReshape(comp, names, t, plan.input_dims));
  }
  for (int64_t i = n; i < count; ++i) operands.push_back(reduce->operand(i));
  const Shape& out = reduce->shape();
  Shape new_shape;
  if (n == 1) {
    new_shape = Shape::Array(out.element_type(), plan.output_dims);
  } else {
    std::vector<Shape> elements;
    for (int64_t i = 0; i < n; ++i) {
      elements.push_back(Shape::Array(out.tuple_shapes(i).element_type(), plan.output_dims));
    }
    new_shape = Shape::Tuple(std::move(elements));
  }
  std::unique_ptr<HloInstruction> clone =
      reduce->CloneWithNewOperands(new_shape, operands, names->Unique(reduce->name()));
  clone->SetAttr(AttrId::kDimensions, std::vector<int64_t>{plan.reduce_dim});
  HloInstruction* new_reduce = comp->AddInstruction(std::move(clone));
  // Reshapes one result back, keeping the original shape (and layout).
  auto back = [&](HloInstruction* value, const Shape& original) {
    if (value->shape().dimensions() == original.dimensions()) {
      *value->mutable_shape() = original;
      return value;
    }
    HloInstruction* r = AddReshape(comp, names, value, original.dimensions());
    *r->mutable_shape() = original;
    return r;
  };
  if (n == 1) return back(new_reduce, out);
  std::vector<HloInstruction*> results;
  for (int64_t i = 0; i < n; ++i) {
    results.push_back(back(AddGetTupleElement(comp, names, new_reduce, i), out.tuple_shapes(i)));
  }
  HloInstruction* tuple = AddTuple(comp, names, results);
  *tuple->mutable_shape() = out;
  return tuple;
}

}  // namespace

absl::StatusOr<bool> ReductionCanonicalizer::Run(HloModule* module) {
  return canonicalize::RewriteEach(module, HloOpcode::kReduce, RewriteReduce);
}

}  // namespace xla
