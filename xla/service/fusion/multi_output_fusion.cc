#include "xla/service/fusion/multi_output_fusion.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/transforms/hlo_util.h"
#include "xla/service/fusion/fusion_analysis.h"
#include "xla/service/fusion/fusion_util.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

// The iteration space two merge candidates must share.
struct Signature {
  enum Kind { kNone, kLoop, kReduce } kind = kNone;
  std::vector<int64_t> dims;         // output dims (loop) or reduce input dims
  std::vector<int64_t> reduce_dims;  // sorted reduced dimensions
  bool operator==(const Signature& o) const {
    return kind == o.kind && dims == o.dims && reduce_dims == o.reduce_dims;
  }
};

std::vector<int64_t> SortedDims(const HloInstruction& reduce) {
  std::vector<int64_t> d = reduce.dimensions();
  std::sort(d.begin(), d.end());
  return d;
}

Signature SignatureOf(const HloInstruction& x) {
  Signature s;
  if (x.opcode() == HloOpcode::kFusion) {
    if (!IsMergeableFusion(x)) return s;
    absl::StatusOr<FusionKindAnalysis> a = ClassifyFusion(x);
    if (!a.ok()) return s;
    switch (a->kind) {
      case FusionKind::kLoop:
        s.kind = Signature::kLoop;
        s.dims = a->iteration_dims;
        return s;
      case FusionKind::kRowReduction:
      case FusionKind::kRowNormalization:
      case FusionKind::kWholeReduction:
      case FusionKind::kColumnReduction:
        s.kind = Signature::kReduce;
        s.dims = a->iteration_dims;
        s.reduce_dims = SortedDims(*a->hero);
        return s;
      case FusionKind::kTranspose:
      case FusionKind::kDynamicUpdateSliceInPlace:
      case FusionKind::kScatter:
      case FusionKind::kGenericReduction:
        return s;
    }
    return s;
  }
  switch (FusionCostClassOf(x.opcode())) {
    case FusionCostClass::kCheap:
    case FusionCostClass::kExpensive:
      if (x.shape().IsArray()) {
        s.kind = Signature::kLoop;
        s.dims = x.shape().dimensions();
      }
      return s;
    case FusionCostClass::kReduction:
      if (x.opcode() == HloOpcode::kReduce && x.operand_count() == 2 && x.shape().IsArray()) {
        s.kind = Signature::kReduce;
        s.dims = x.operand(0)->shape().dimensions();
        s.reduce_dims = SortedDims(x);
      }
      return s;
    case FusionCostClass::kRootOnly:
    case FusionCostClass::kOutside:
    case FusionCostClass::kNeverFuse:
      return s;
  }
  return s;
}

int64_t SizeOf(const HloInstruction& x) {
  const HloComputation* body = FusedComputation(x);
  return body == nullptr ? 1 : body->instruction_count() - body->num_parameters();
}

int64_t Bytes(const Shape& s) { return s.IsArray() ? s.ByteSize().value_or(0) : 0; }

class ComputationMerger {
 public:
  ComputationMerger(HloComputation* computation, const MultiOutputFusionOptions& options,
                    ComputationNamer* namer, std::vector<HloComputation*>* orphans)
      : computation_(computation), options_(options), namer_(namer), orphans_(orphans) {}

  absl::StatusOr<bool> Run() {
    bool changed = false;
    for (int sweep = 0; sweep < options_.max_sweeps; ++sweep) {
      ASSIGN_OR_RETURN(bool c, Sweep());
      if (!c) break;
      changed = true;
    }
    if (changed) computation_->SortInstructionsInPostOrder();
    return changed;
  }

 private:
  absl::StatusOr<bool> Sweep() {
    order_ = computation_->MakePostOrder();
    index_.clear();
    for (size_t i = 0; i < order_.size(); ++i) index_[order_[i]] = static_cast<int64_t>(i);
    frozen_.clear();
    dead_.clear();
    stale_ = false;
    control_ = ControlPredecessorSet(*computation_);
    names_ = std::make_unique<NameUniquer>(*computation_);
    bool changed = false;
    if (options_.producer_consumer) {
      for (size_t i = 0; i < order_.size() && !stale_; ++i) {
        ASSIGN_OR_RETURN(bool c, TryProducerConsumer(order_[i]));
        changed |= c;
      }
    }
    for (size_t i = 0; i < order_.size() && !stale_; ++i) {
      HloInstruction* operand = order_[i];
      if (Bytes(operand->shape()) < options_.min_shared_operand_bytes || operand->users().size() < 2) {
        continue;
      }
      std::vector<HloInstruction*> candidates;
      for (HloInstruction* u : operand->users()) {
        if (Usable(*u) && Sig(u).kind != Signature::kNone) candidates.push_back(u);
      }
      std::sort(candidates.begin(), candidates.end(),
                [&](HloInstruction* a, HloInstruction* b) { return Idx(a) < Idx(b); });
      if (static_cast<int64_t>(candidates.size()) > options_.max_siblings_per_operand) {
        candidates.resize(options_.max_siblings_per_operand);
      }
      for (size_t a = 0; a < candidates.size() && !stale_; ++a) {
        for (size_t b = a + 1; b < candidates.size() && !stale_; ++b) {
          if (frozen_.contains(candidates[a])) break;
          if (frozen_.contains(candidates[b])) continue;
          ASSIGN_OR_RETURN(bool c, TrySiblings(candidates[a], candidates[b]));
          changed |= c;
        }
      }
    }
    if (!dead_.empty()) {
      const int64_t removed = computation_->RemoveInstructions(dead_);
      if (removed != static_cast<int64_t>(dead_.size())) {
        return absl::InternalError(absl::StrCat("multi-output-fusion: in ", computation_->name(),
                                                " only ", removed, " of ", dead_.size(),
                                                " merged instructions could be removed; this is a bug"));
      }
    }
    return changed;
  }

  int64_t Idx(const HloInstruction* x) const { return index_.at(x); }

  // SignatureOf, computed once per instruction (ClassifyFusion walks the
  // fused body).
  const Signature& Sig(const HloInstruction* x) {
    auto it = signatures_.find(x->unique_id());
    if (it != signatures_.end()) return it->second;
    return signatures_.emplace(x->unique_id(), SignatureOf(*x)).first->second;
  }

  bool Usable(const HloInstruction& x) const {
    if (frozen_.contains(&x) || !x.control_predecessors().empty() || control_.contains(&x)) return false;
    return x.opcode() == HloOpcode::kFusion ? IsMergeableFusion(x) : !HasSideEffect(x);
  }

  // True when `target` may be reachable from one of `starts` (a path of
  // users): found, or the search budget ran out. `*visited` tells whether
  // any node before `target` in the order was explored.
  bool MayReach(const std::vector<HloInstruction*>& starts, const HloInstruction* target,
                bool* visited) const {
    *visited = false;
    const int64_t limit = Idx(target);
    std::vector<const HloInstruction*> stack;
    absl::flat_hash_set<const HloInstruction*> seen;
    for (const HloInstruction* s : starts) {
      if (s == target) return true;
      if (Idx(s) < limit && seen.insert(s).second) stack.push_back(s);
    }
    while (!stack.empty()) {
      *visited = true;
      if (static_cast<int64_t>(seen.size()) > options_.max_search_nodes) return true;
      const HloInstruction* x = stack.back();
      stack.pop_back();
      for (const HloInstruction* u : x->users()) {
        if (u == target) return true;
        if (Idx(u) < limit && seen.insert(u).second) stack.push_back(u);
      }
    }
    return false;
  }

  bool WithinLimits(const HloInstruction& a, const HloInstruction& b, const HloInstruction* skip) const {
    if (SizeOf(a) + SizeOf(b) > options_.limits.max_instructions) return false;
    absl::flat_hash_set<const HloInstruction*> params;
    for (const HloInstruction* o : a.operands()) params.insert(o);
    for (const HloInstruction* o : b.operands()) {
      if (o != skip) params.insert(o);
    }
    return static_cast<int64_t>(params.size()) <= options_.limits.max_parameters;
  }

  absl::StatusOr<bool> TrySiblings(HloInstruction* a, HloInstruction* b) {
    const Signature sa = Sig(a);
    if (sa.kind == Signature::kNone || !(sa == Sig(b))) return false;
    // Two unfused ops gain little and instruction fusion already had its say.
    if (a->opcode() != HloOpcode::kFusion && b->opcode() != HloOpcode::kFusion) return false;
    if (!WithinLimits(*a, *b, nullptr)) return false;
    bool visited = false;
    if (MayReach(a->users(), b, &visited)) return false;
    // The merged fusion keeps the order valid at b's place when no user of a
    // comes before b, or at a's place when no operand of b comes after a.
    int64_t idx = Idx(b);
    if (visited) {
      bool operands_before_a = true;
      for (const HloInstruction* o : b->operands()) operands_before_a &= Idx(o) < Idx(a);
      if (operands_before_a) {
        idx = Idx(a);
        visited = false;
      }
    }
    RETURN_IF_ERROR(Merge(/*first=*/a, /*second=*/b, /*producer=*/nullptr, idx));
    stale_ |= visited;
    return true;
  }

  // `param` of `consumer`'s body reads the producer: true when every read is
  // elementwise at the same index (elementwise-like users of the same
  // dimensions, or the reduce input).
  static bool ReadsElementwise(const HloInstruction* param) {
    for (const HloInstruction* u : param->users()) {
      if (u->opcode() == HloOpcode::kReduce && u->operand(0) == param && u->operand_count() == 2) continue;
      if (!IsElementwiseLike(*u) || u->shape().dimensions() != param->shape().dimensions()) return false;
    }
    return true;
  }

  absl::StatusOr<bool> TryProducerConsumer(HloInstruction* producer) {
    if (frozen_.contains(producer) || producer->opcode() != HloOpcode::kFusion || !Usable(*producer) ||
        producer->users().size() < 2 || !producer->shape().IsArray() ||
        Bytes(producer->shape()) < options_.min_shared_operand_bytes) {
      return false;
    }
    bool has_input_user = false;
    for (const HloInstruction* u : producer->users()) {
      has_input_user |= u->opcode() == HloOpcode::kFusion && u->GetString(AttrId::kFusionKind) == "kInput";
    }
    if (!has_input_user) return false;
    const Signature sp = Sig(producer);
    if (sp.kind != Signature::kLoop) return false;
    for (HloInstruction* consumer : producer->users()) {
      if (consumer->opcode() != HloOpcode::kFusion || !Usable(*consumer)) continue;
      const Signature& sc = Sig(consumer);
      if (sc.kind != Signature::kReduce || sc.dims != sp.dims) continue;
      const HloComputation* body = FusedComputation(*consumer);
      bool elementwise = true;
      for (int64_t k = 0; k < consumer->operand_count(); ++k) {
        if (consumer->operand(k) == producer) {
          elementwise &= ReadsElementwise(body->parameter_instruction(k));
        }
      }
      if (!elementwise || !WithinLimits(*consumer, *producer, producer)) continue;
      std::vector<HloInstruction*> others;
      for (HloInstruction* u : producer->users()) {
        if (u != consumer) others.push_back(u);
      }
      bool visited = false;
      if (MayReach(others, consumer, &visited)) continue;
      int64_t idx = Idx(consumer);
      if (visited) {
        bool operands_before_producer = true;
        for (const HloInstruction* o : consumer->operands()) {
          operands_before_producer &= o == producer || Idx(o) < Idx(producer);
        }
        if (operands_before_producer) {
          idx = Idx(producer);
          visited = false;
        }
      }
      RETURN_IF_ERROR(Merge(/*first=*/consumer, /*second=*/producer, producer, idx));
      stale_ |= visited;
      return true;
    }
    return false;
  }

  // Clones `x` (its fused body, or `x` itself) into `body`; `value_of`
  // maps each operand of `x` to its value in `body`. Returns the outputs.
  std::vector<HloInstruction*> Inline(HloInstruction* x, const std::vector<HloInstruction*>& operand_values,
                                      HloComputation* body, NameUniquer* names) {
    HloInstruction* root = nullptr;
    if (HloComputation* callee = FusedComputation(*x)) {
      orphans_->push_back(callee);
      absl::flat_hash_map<const HloInstruction*, HloInstruction*> map;
      for (HloInstruction* p : callee->parameter_instructions()) map[p] = operand_values[p->parameter_number()];
      for (HloInstruction* i : callee->MakePostOrder()) {
        if (i->opcode() == HloOpcode::kParameter) continue;
        std::vector<HloInstruction*> ops;
        for (HloInstruction* o : i->operands()) ops.push_back(map.at(o));
        map[i] = body->AddInstruction(i->CloneWithNewOperands(i->shape(), ops, names->Unique(i->name())));
      }
      root = map.at(callee->root_instruction());
    } else {
      root = body->AddInstruction(x->CloneWithNewOperands(x->shape(), operand_values, names->Unique(x->name())));
    }
    if (!root->shape().IsTuple()) return {root};
    if (root->opcode() == HloOpcode::kTuple) {
      std::vector<HloInstruction*> outs(root->operands().begin(), root->operands().end());
      body->RemoveInstruction(root);
      return outs;
    }
    std::vector<HloInstruction*> outs;
    for (int64_t i = 0; i < root->shape().tuple_shapes_size(); ++i) {
      HloInstruction* gte = body->AddInstruction(HloInstruction::Create(
          HloOpcode::kGetTupleElement, root->shape().tuple_shapes(i), {root}, names->Unique("get-tuple-element")));
      gte->SetAttr(AttrId::kIndex, i);
      outs.push_back(gte);
    }
    return outs;
  }

  // Makes the users of `old` (all but `skip`) read outputs [offset, ...) of
  // `merged`.
  void Rewire(HloInstruction* old, HloInstruction* merged, int64_t offset, const HloInstruction* skip) {
    const std::vector<HloInstruction*> users = old->users();
    HloInstruction* replacement = nullptr;
    auto make_replacement = [&]() {
      if (replacement != nullptr) return replacement;
      auto gte = [&](int64_t i, const Shape& shape) {
        HloInstruction* g = computation_->AddInstruction(HloInstruction::Create(
            HloOpcode::kGetTupleElement, shape, {merged}, names_->Unique("get-tuple-element")));
        g->SetAttr(AttrId::kIndex, i);
        index_[g] = Idx(merged);
        return g;
      };
      if (!old->shape().IsTuple()) {
        replacement = gte(offset, old->shape());
      } else {
        std::vector<HloInstruction*> elems;
        for (int64_t i = 0; i < old->shape().tuple_shapes_size(); ++i) {
          elems.push_back(gte(offset + i, old->shape().tuple_shapes(i)));
        }
        replacement = computation_->AddInstruction(
            HloInstruction::Create(HloOpcode::kTuple, old->shape(), elems, names_->Unique("tuple")));
        index_[replacement] = Idx(merged);
      }
      return replacement;
    };
    for (HloInstruction* u : users) {
      if (u == skip) continue;
      if (old->shape().IsTuple() && u->opcode() == HloOpcode::kGetTupleElement) {
        const int64_t i = u->tuple_index();
        u->ReplaceOperand(old, merged);
        u->SetAttr(AttrId::kIndex, offset + i);
        continue;
      }
      u->ReplaceOperand(old, make_replacement());
    }
    if (computation_->root_instruction() == old) computation_->set_root_instruction(make_replacement());
  }

  // Merges `second` into `first` (and, when `producer` == second, feeds
  // first's reads of it from inside). The result takes order index `idx`.
  absl::Status Merge(HloInstruction* first, HloInstruction* second, HloInstruction* producer, int64_t idx) {
    auto body = std::make_unique<HloComputation>(namer_->Unique("fused_multi_" + first->name()));
    NameUniquer names(*body);
    std::vector<HloInstruction*> operands;
    absl::flat_hash_map<const HloInstruction*, HloInstruction*> params;
    auto param_for = [&](HloInstruction* op) {
      auto it = params.find(op);
      if (it != params.end()) return it->second;
      const int64_t n = static_cast<int64_t>(operands.size());
      operands.push_back(op);
      HloInstruction* p = body->AddInstruction(
          HloInstruction::CreateParameter(n, op->shape(), names.Unique(absl::StrCat("param_", n))));
      params[op] = p;
      return p;
    };
    std::vector<HloInstruction*> second_values;
    for (HloInstruction* o : second->operands()) second_values.push_back(param_for(o));
    std::vector<HloInstruction*> second_outs;
    HloInstruction* producer_value = nullptr;
    if (producer != nullptr) {
      second_outs = Inline(second, second_values, body.get(), &names);
      producer_value = second_outs.front();
    }
    std::vector<HloInstruction*> first_values;
    for (HloInstruction* o : first->operands()) {
      first_values.push_back(o == producer ? producer_value : param_for(o));
    }
    std::vector<HloInstruction*> outs = Inline(first, first_values, body.get(), &names);
    const int64_t second_offset = static_cast<int64_t>(outs.size());
    if (producer == nullptr) second_outs = Inline(second, second_values, body.get(), &names);
    outs.insert(outs.end(), second_outs.begin(), second_outs.end());
    std::vector<Shape> shapes;
    for (const HloInstruction* o : outs) shapes.push_back(o->shape());
    HloInstruction* root = body->AddInstruction(
        HloInstruction::Create(HloOpcode::kTuple, Shape::Tuple(shapes), outs, names.Unique("tuple")));
    body->set_root_instruction(root);
    bool has_reduce = false;
    for (const auto& i : body->instructions()) has_reduce |= i->opcode() == HloOpcode::kReduce;
    HloComputation* callee = computation_->parent()->AddComputation(std::move(body));
    HloInstruction* merged = computation_->AddInstruction(HloInstruction::Create(
        HloOpcode::kFusion, root->shape(), operands, names_->Unique("fusion")));
    merged->SetAttr(AttrId::kFusionKind, std::string(has_reduce ? "kInput" : "kLoop"));
    merged->SetAttr(AttrId::kCalls, std::vector<HloComputation*>{callee});
    index_[merged] = idx;
    Rewire(first, merged, 0, nullptr);
    Rewire(second, merged, second_offset, producer != nullptr ? first : nullptr);
    for (HloInstruction* x : {first, second, merged}) frozen_.insert(x);
    dead_.push_back(first);
    dead_.push_back(second);
    return absl::OkStatus();
  }

  HloComputation* computation_;
  const MultiOutputFusionOptions& options_;
  ComputationNamer* namer_;
  std::vector<HloComputation*>* orphans_;
  std::vector<HloInstruction*> order_;
  absl::flat_hash_map<const HloInstruction*, int64_t> index_;
  absl::flat_hash_set<const HloInstruction*> frozen_;
  // By unique id (ids are never reused, pointers may be), across sweeps.
  absl::flat_hash_map<int64_t, Signature> signatures_;
  absl::flat_hash_set<const HloInstruction*> control_;
  std::vector<HloInstruction*> dead_;
  std::unique_ptr<NameUniquer> names_;
  bool stale_ = false;
};

}  // namespace

absl::StatusOr<bool> MultiOutputFusion::Run(HloModule* module) {
  ComputationNamer namer(*module);
  std::vector<HloComputation*> orphans;
  bool changed = false;
  for (HloComputation* computation : ComputationsToFuse(*module)) {
    ComputationMerger merger(computation, options_, &namer, &orphans);
    ASSIGN_OR_RETURN(bool c, merger.Run());
    changed |= c;
  }
  // Old fused computations, now called by nobody (a computation shared by
  // several fusions stays while any of them remains).
  absl::flat_hash_set<HloComputation*> still_called;
  if (!orphans.empty()) {
    for (const auto& c : module->computations()) {
      for (const auto& instr : c->instructions()) {
        for (HloComputation* callee : instr->called_computations()) still_called.insert(callee);
      }
    }
  }
  absl::flat_hash_set<HloComputation*> unique;
  std::vector<HloComputation*> to_remove;
  for (HloComputation* c : orphans) {
    if (!still_called.contains(c) && unique.insert(c).second) to_remove.push_back(c);
  }
  const int64_t removed = module->RemoveComputations(to_remove);
  if (removed != static_cast<int64_t>(to_remove.size())) {
    return absl::InternalError(absl::StrCat("multi-output-fusion: removed ", removed, " of ",
                                            to_remove.size(),
                                            " merged fusion computations; this is a bug"));
  }
  return changed;
}

}  // namespace xla
