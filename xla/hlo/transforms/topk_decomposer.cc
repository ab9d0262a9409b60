#include "xla/hlo/transforms/topk_decomposer.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/transforms/hlo_util.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

bool CanDecompose(const HloInstruction& topk,
                  const absl::flat_hash_set<const HloInstruction*>& control_preds) {
  const Shape& x = topk.operand(0)->shape();
  return x.IsArray() && x.rank() >= 1 && !IsComplex(x.element_type()) &&
         topk.control_predecessors().empty() && !control_preds.contains(&topk);
}

absl::Status CheckShape(const HloInstruction& topk, int64_t k) {
  const Shape& x = topk.operand(0)->shape();
  const int64_t n = x.dimensions(x.rank() - 1);
  std::vector<int64_t> dims = x.dimensions();
  dims.back() = k;
  const Shape& s = topk.shape();
  const bool ok = k >= 0 && k <= n && s.IsTuple() && s.tuple_shapes_size() == 2 &&
                  s.tuple_shapes(0).IsArray() && s.tuple_shapes(1).IsArray() &&
                  s.tuple_shapes(0).element_type() == x.element_type() &&
                  s.tuple_shapes(1).element_type() == PrimitiveType::S32 &&
                  s.tuple_shapes(0).dimensions() == dims && s.tuple_shapes(1).dimensions() == dims;
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("topk '", topk.name(), "': k=", k,
                                                 " and result ", s.ToString(),
                                                 " do not fit operand ", x.ToString()));
}

// The comparator computations, one per (element type, direction).
class Comparators {
 public:
  explicit Comparators(HloModule* module) : module_(module) {}

  HloComputation* Get(PrimitiveType type, bool largest) {
    const std::pair<PrimitiveType, bool> key(type, largest);
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    auto comp = std::make_unique<HloComputation>(module_->UniqueComputationName(
        absl::StrCat("topk_", largest ? "gt_" : "lt_", PrimitiveTypeName(type))));
    const Shape scalar = Shape::Scalar(type);
    const Shape index = Shape::Scalar(PrimitiveType::S32);
    HloInstruction* a = comp->AddInstruction(HloInstruction::CreateParameter(0, scalar, "a"));
    HloInstruction* b = comp->AddInstruction(HloInstruction::CreateParameter(1, scalar, "b"));
    comp->AddInstruction(HloInstruction::CreateParameter(2, index, "ia"));
    comp->AddInstruction(HloInstruction::CreateParameter(3, index, "ib"));
    HloInstruction* cmp = comp->AddInstruction(HloInstruction::Create(
        HloOpcode::kCompare, Shape::Scalar(PrimitiveType::PRED), {a, b}, "cmp"));
    cmp->SetAttr(AttrId::kDirection, std::string(largest ? "GT" : "LT"));
    cmp->SetAttr(AttrId::kCompareType, std::string("TOTALORDER"));
    comp->set_root_instruction(cmp);
    HloComputation* added = module_->AddComputation(std::move(comp));
    cache_[key] = added;
    return added;
  }

 private:
  HloModule* module_;
  absl::flat_hash_map<std::pair<PrimitiveType, bool>, HloComputation*> cache_;
};

// XLA's TopK custom call: one operand, a (values, s32 indices) result and a
// sort comparator over (value a, value b, s32 index a, s32 index b).
bool IsTopKCustomCall(const HloInstruction& instr) {
  if (instr.opcode() != HloOpcode::kCustomCall ||
      instr.GetString(AttrId::kCustomCallTarget) != "TopK" || instr.operand_count() != 1) {
    return false;
  }
  const std::vector<HloComputation*> called = instr.called_computations();
  const Shape& out = instr.shape();
  if (called.size() != 1 || called[0]->num_parameters() != 4 || !out.IsTuple() ||
      out.tuple_shapes_size() != 2 || !out.tuple_shapes(0).IsArray() ||
      out.tuple_shapes(0).rank() < 1) {
    return false;
  }
  const PrimitiveType t = instr.operand(0)->shape().element_type();
  const std::vector<PrimitiveType> want = {t, t, PrimitiveType::S32, PrimitiveType::S32};
  for (int64_t i = 0; i < 4; ++i) {
    const HloInstruction* p = called[0]->parameter_instruction(i);
    if (p == nullptr || !p->shape().IsArray() || p->shape().rank() != 0 ||
        p->shape().element_type() != want[i]) {
      return false;
    }
  }
  return true;
}

absl::Status Decompose(HloInstruction* topk, Comparators* comparators, NameUniquer* names) {
  HloComputation* c = topk->parent();
  HloInstruction* x = topk->operand(0);
  const Shape& xs = x->shape();
  const int64_t last = xs.rank() - 1;
  const bool custom_call = topk->opcode() == HloOpcode::kCustomCall;
  const Shape& values_shape = topk->shape().tuple_shapes(0);
  const int64_t k = custom_call ? values_shape.dimensions(values_shape.rank() - 1)
                                : topk->GetInt(AttrId::kK);
  RETURN_IF_ERROR(CheckShape(*topk, k));
  const bool largest = topk->GetBool(AttrId::kLargest, true);
  HloComputation* comparator = custom_call ? topk->called_computations()[0]
                                           : comparators->Get(xs.element_type(), largest);
  const std::string base = topk->name();

  const Shape index_shape = Shape::Array(PrimitiveType::S32, xs.dimensions());
  HloInstruction* iota = c->AddInstruction(
      HloInstruction::Create(HloOpcode::kIota, index_shape, {}, names->Unique(base + ".iota")));
  iota->SetAttr(AttrId::kIotaDimension, last);
  HloInstruction* sort = c->AddInstruction(HloInstruction::Create(
      HloOpcode::kSort, Shape::Tuple({Shape::Array(xs.element_type(), xs.dimensions()), index_shape}),
      {x, iota}, names->Unique(base + ".sort")));
  sort->SetAttr(AttrId::kDimensions, std::vector<int64_t>{last});
  sort->SetAttr(AttrId::kIsStable, true);
  sort->SetAttr(AttrId::kToApply, comparator);

  std::vector<SliceDim> window;
  for (int64_t d : xs.dimensions()) window.push_back({0, d, 1});
  window.back().limit = k;
  std::vector<HloInstruction*> parts;
  for (int64_t i = 0; i < 2; ++i) {
    const Shape& sorted_shape = sort->shape().tuple_shapes(i);
    HloInstruction* gte = c->AddInstruction(HloInstruction::Create(
        HloOpcode::kGetTupleElement, sorted_shape, {sort},
        names->Unique(absl::StrCat(base, i == 0 ? ".sorted_values" : ".sorted_indices"))));
    gte->SetAttr(AttrId::kIndex, i);
    HloInstruction* slice = c->AddInstruction(HloInstruction::Create(
        HloOpcode::kSlice, topk->shape().tuple_shapes(i), {gte},
        names->Unique(absl::StrCat(base, i == 0 ? ".values" : ".indices"))));
    slice->SetAttr(AttrId::kSlice, window);
    parts.push_back(slice);
  }
  HloInstruction* tuple = c->AddInstruction(
      HloInstruction::Create(HloOpcode::kTuple, topk->shape(), parts, names->Unique(base + ".tuple")));
  return ReplaceInstruction(topk, tuple);
}

}  // namespace

absl::StatusOr<bool> TopKDecomposer::Run(HloModule* module) {
  bool changed = false;
  Comparators comparators(module);
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    const absl::flat_hash_set<const HloInstruction*> control_preds =
        ControlPredecessorSet(*computation);
    std::vector<HloInstruction*> topks;
    for (const auto& instr : computation->instructions()) {
      if ((instr->opcode() == HloOpcode::kTopK || IsTopKCustomCall(*instr)) &&
          CanDecompose(*instr, control_preds)) {
        topks.push_back(instr.get());
      }
    }
    if (topks.empty()) continue;
    NameUniquer names(*computation);
    for (HloInstruction* topk : topks) {
      RETURN_IF_ERROR(Decompose(topk, &comparators, &names));
      changed = true;
    }
  }
  return changed;
}

}  // namespace xla
