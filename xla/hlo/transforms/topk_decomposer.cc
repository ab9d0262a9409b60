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

// The chunk length for a two-stage top-k of n elements, or 0 for one sort.
// Sorts cost about len^2 / 4 steps per line on targets whose sort kernels
// are insertion sorts (the host's), so the chunk is the divisor c of n with
// 2k <= c < n that minimizes n*c + (n/c*k)^2, when that is under half of
// n^2 (a power of two n = 8192 with k = 16 takes c = 128: 30x fewer steps).
int64_t ChunkLength(int64_t n, int64_t k) {
  if (k <= 0 || n < 256) return 0;
  int64_t best = 0;
  double best_cost = 0.5 * static_cast<double>(n) * static_cast<double>(n);
  for (int64_t c = 2 * k; c < n; ++c) {
    if (n % c != 0) continue;
    const double candidates = static_cast<double>(n / c) * static_cast<double>(k);
    const double cost = static_cast<double>(n) * static_cast<double>(c) + candidates * candidates;
    if (cost < best_cost) {
      best_cost = cost;
      best = c;
    }
  }
  return best;
}

// Adds sort((keys, indices)) along the last dim of `keys` (stable, cmp).
HloInstruction* AddSort(HloComputation* c, HloInstruction* keys, HloInstruction* indices,
                        HloComputation* cmp, NameUniquer* names, const std::string& name) {
  const Shape& ks = keys->shape();
  HloInstruction* sort = c->AddInstruction(HloInstruction::Create(
      HloOpcode::kSort, Shape::Tuple({Shape::Array(ks.element_type(), ks.dimensions()),
                                      Shape::Array(PrimitiveType::S32, ks.dimensions())}),
      {keys, indices}, names->Unique(name)));
  sort->SetAttr(AttrId::kDimensions, std::vector<int64_t>{ks.rank() - 1});
  sort->SetAttr(AttrId::kIsStable, true);
  sort->SetAttr(AttrId::kToApply, cmp);
  return sort;
}

// The first `k` along the last dim of sort result `i` (0 keys, 1 indices).
HloInstruction* AddFirstK(HloComputation* c, HloInstruction* sort, int64_t i, int64_t k,
                          NameUniquer* names, const std::string& name) {
  const Shape& sorted_shape = sort->shape().tuple_shapes(i);
  HloInstruction* gte = c->AddInstruction(HloInstruction::Create(
      HloOpcode::kGetTupleElement, sorted_shape, {sort}, names->Unique(name + "_sorted")));
  gte->SetAttr(AttrId::kIndex, i);
  std::vector<SliceDim> window;
  std::vector<int64_t> dims = sorted_shape.dimensions();
  for (int64_t d : dims) window.push_back({0, d, 1});
  window.back().limit = k;
  dims.back() = k;
  HloInstruction* slice = c->AddInstruction(HloInstruction::Create(
      HloOpcode::kSlice, Shape::Array(sorted_shape.element_type(), dims), {gte},
      names->Unique(name)));
  slice->SetAttr(AttrId::kSlice, window);
  return slice;
}

HloInstruction* AddReshape(HloComputation* c, HloInstruction* x, std::vector<int64_t> dims,
                           NameUniquer* names, const std::string& name) {
  return c->AddInstruction(HloInstruction::Create(
      HloOpcode::kReshape, Shape::Array(x->shape().element_type(), dims), {x},
      names->Unique(name)));
}

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
  const int64_t n = xs.dimensions(last);
  const bool custom_call = topk->opcode() == HloOpcode::kCustomCall;
  const Shape& values_shape = topk->shape().tuple_shapes(0);
  const int64_t k = custom_call ? values_shape.dimensions(values_shape.rank() - 1)
                                : topk->GetInt(AttrId::kK);
  RETURN_IF_ERROR(CheckShape(*topk, k));
  const bool largest = topk->GetBool(AttrId::kLargest, true);
  // XLA's TopK custom call brings its own comparator; chunking keeps its
  // order too, since each stage is a stable sort under it over the
  // original indices.
  HloComputation* cmp = custom_call ? topk->called_computations()[0]
                                    : comparators->Get(xs.element_type(), largest);
  const std::string base = topk->name();

  const Shape index_shape = Shape::Array(PrimitiveType::S32, xs.dimensions());
  HloInstruction* iota = c->AddInstruction(
      HloInstruction::Create(HloOpcode::kIota, index_shape, {}, names->Unique(base + ".iota")));
  iota->SetAttr(AttrId::kIotaDimension, last);
  HloInstruction* keys = x;
  HloInstruction* indices = iota;
  // While it pays: the top k of each chunk, with their original indices,
  // become the candidates of the next stage.
  for (int64_t len = n, chunk = ChunkLength(len, k); chunk > 0; chunk = ChunkLength(len, k)) {
    std::vector<int64_t> split = xs.dimensions();
    split.back() = chunk;
    split.insert(split.end() - 1, len / chunk);
    HloInstruction* chunks = AddSort(c, AddReshape(c, keys, split, names, base + ".chunks"),
                                     AddReshape(c, indices, split, names, base + ".chunk_iota"),
                                     cmp, names, base + ".chunk_sort");
    len = len / chunk * k;
    std::vector<int64_t> merged = xs.dimensions();
    merged.back() = len;
    keys = AddReshape(c, AddFirstK(c, chunks, 0, k, names, base + ".chunk_values"), merged,
                      names, base + ".candidates");
    indices = AddReshape(c, AddFirstK(c, chunks, 1, k, names, base + ".chunk_indices"), merged,
                         names, base + ".candidate_indices");
  }
  // The candidates keep index order among equal keys (chunk by chunk, each
  // stable), so each later stable sort breaks ties as one sort of x would.
  HloInstruction* sort = AddSort(c, keys, indices, cmp, names, base + ".sort");
  std::vector<HloInstruction*> parts = {
      AddFirstK(c, sort, 0, k, names, base + ".values"),
      AddFirstK(c, sort, 1, k, names, base + ".indices")};
  // The result leaves keep the layouts the topk declared.
  for (int64_t i = 0; i < 2; ++i) *parts[i]->mutable_shape() = topk->shape().tuple_shapes(i);
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
      const bool kept = instr->opcode() == HloOpcode::kTopK &&
                        instr->GetInt(AttrId::kK) <= keep_topk_up_to_k_;
      if ((instr->opcode() == HloOpcode::kTopK || IsTopKCustomCall(*instr)) && !kept &&
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
