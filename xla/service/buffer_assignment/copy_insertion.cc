#include "xla/service/buffer_assignment/copy_insertion.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/transforms/hlo_util.h"
#include "xla/service/buffer_assignment/alias_analysis.h"
#include "xla/service/buffer_assignment/in_place.h"
#include "xla/service/schedule/hlo_schedule.h"

namespace xla {
namespace {

bool IsPassThrough(const HloInstruction& instr, int64_t operand) {
  const HloOpcode op = instr.opcode();
  if (op == HloOpcode::kBitcast || op == HloOpcode::kOptimizationBarrier ||
      op == HloOpcode::kDomain) {
    return true;
  }
  return op == HloOpcode::kAddDependency && operand == 0;
}

struct Leaf {
  HloInstruction* instr;
  ShapeIndex index;
};

// Follows get-tuple-element, tuple and pass-through ops back to the
// instruction that produces the leaf.
Leaf Source(HloInstruction* instr, ShapeIndex index) {
  while (true) {
    const HloOpcode op = instr->opcode();
    if (op == HloOpcode::kGetTupleElement) {
      index.insert(index.begin(), instr->tuple_index());
      instr = instr->operand(0);
    } else if (op == HloOpcode::kTuple && !index.empty() && index[0] < instr->operand_count()) {
      const int64_t k = index[0];
      index.erase(index.begin());
      instr = instr->operand(k);
    } else if (IsPassThrough(*instr, 0) && instr->operand_count() > 0) {
      instr = instr->operand(0);
    } else {
      return {instr, index};
    }
  }
}

bool IsWhileReadOnlyLeaf(const HloInstruction& w, const ShapeIndex& index);

// The value a leaf holds, past the loops that only read it: Source, then
// through each while whose loop buffer at that leaf is read-only
// (IsWhileReadOnlyLeaf) to the while's init, whose buffer the loop shares.
Leaf Origin(HloInstruction* instr, ShapeIndex index) {
  Leaf leaf = Source(instr, std::move(index));
  while (leaf.instr->opcode() == HloOpcode::kWhile && IsWhileReadOnlyLeaf(*leaf.instr, leaf.index)) {
    leaf = Source(leaf.instr->operand(0), leaf.index);
  }
  return leaf;
}

// Whether leaf `index` of while `w`'s loop state is only read by the loop:
// the body's root returns the body parameter's own leaf there (directly,
// through forwarding ops, or through nested loops that only read it).
// Nothing in the body or condition can write that buffer in place: it is
// live across the whole loop, and copy insertion copies a body parameter
// leaf before anything that writes it. Such a leaf needs no init copy: the
// loop, and its result leaf, share the init's buffer.
bool IsWhileReadOnlyLeaf(const HloInstruction& w, const ShapeIndex& index) {
  const HloComputation* body = w.GetComputation(AttrId::kBody);
  if (body == nullptr || body->num_parameters() != 1) return false;
  HloInstruction* param = body->parameter_instruction(0);
  const Leaf source = Origin(body->root_instruction(), index);
  return source.instr == param && source.index == index;
}

// A consumer of a leaf: (instruction, operand number); {nullptr, -1} for
// "returned by the computation's root".
using Consumer = std::pair<HloInstruction*, int64_t>;

// Every reader of leaf `index` of `instr`. A while that only reads the leaf
// (IsWhileReadOnlyLeaf) is a reader, and so is every reader of its result
// leaf, which is the same buffer.
void CollectConsumers(HloInstruction* instr, const ShapeIndex& index, std::vector<Consumer>* out) {
  if (instr == instr->parent()->root_instruction()) out->push_back({nullptr, -1});
  for (HloInstruction* user : instr->users()) {
    for (int64_t k = 0; k < user->operand_count(); ++k) {
      if (user->operand(k) != instr) continue;
      const HloOpcode op = user->opcode();
      if (op == HloOpcode::kGetTupleElement) {
        if (!index.empty() && index[0] == user->tuple_index()) {
          CollectConsumers(user, ShapeIndex(index.begin() + 1, index.end()), out);
        }
      } else if (op == HloOpcode::kTuple) {
        ShapeIndex deeper = {k};
        deeper.insert(deeper.end(), index.begin(), index.end());
        CollectConsumers(user, deeper, out);
      } else if (IsPassThrough(*user, k)) {
        CollectConsumers(user, index, out);
      } else if (op != HloOpcode::kAddDependency) {
        out->push_back({user, k});
        if (op == HloOpcode::kWhile && IsWhileReadOnlyLeaf(*user, index)) {
          CollectConsumers(user, index, out);
        }
      }
    }
  }
}

std::vector<Consumer> Consumers(const Leaf& leaf) {
  std::vector<Consumer> out;
  CollectConsumers(leaf.instr, leaf.index, &out);
  return out;
}

// Whether any of `targets` is reachable from `from` through users and
// control successors.
bool Reaches(const HloInstruction* from, const absl::flat_hash_set<const HloInstruction*>& targets) {
  if (targets.empty()) return false;
  std::vector<const HloInstruction*> stack = {from};
  absl::flat_hash_set<const HloInstruction*> seen = {from};
  while (!stack.empty()) {
    const HloInstruction* at = stack.back();
    stack.pop_back();
    if (at != from && targets.contains(at)) return true;
    for (const auto* next : at->users()) {
      if (seen.insert(next).second) stack.push_back(next);
    }
    for (const auto* next : at->control_successors()) {
      if (seen.insert(next).second) stack.push_back(next);
    }
  }
  return false;
}

bool IsFixed(const HloInstruction& instr) {
  return instr.opcode() == HloOpcode::kParameter || instr.opcode() == HloOpcode::kConstant;
}

// Creates instructions in one computation with unique names.
class Builder {
 public:
  explicit Builder(HloComputation* c) : c_(c), names_(*c) {}

  HloInstruction* Copy(HloInstruction* value) {
    return Add(HloOpcode::kCopy, value->shape(), {value}, value->name() + ".copy");
  }
  // A second `value`, computed again from the same operands.
  HloInstruction* Clone(HloInstruction* value) {
    std::vector<HloInstruction*> operands(value->operands().begin(), value->operands().end());
    return c_->AddInstruction(
        value->CloneWithNewOperands(value->shape(), operands, names_.Unique(value->name() + ".clone")));
  }
  // The leaf `index` of `value`, through get-tuple-elements.
  HloInstruction* Materialize(HloInstruction* value, const ShapeIndex& index) {
    for (int64_t k : index) {
      HloInstruction* gte = Add(HloOpcode::kGetTupleElement, value->shape().tuple_shapes(k),
                                {value}, absl::StrCat(value->name(), ".gte", k));
      gte->SetAttr(AttrId::kIndex, k);
      value = gte;
    }
    return value;
  }
  // A value of `original`'s shape whose array leaves are leaf(index) and
  // whose other leaves (tokens) are taken from `original`.
  HloInstruction* Build(HloInstruction* original, ShapeIndex* prefix,
                        const std::function<HloInstruction*(const ShapeIndex&)>& leaf) {
    const Shape& shape = *SubshapeAt(original->shape(), *prefix);
    if (shape.IsArray()) return FitShape(leaf(*prefix), shape);
    if (!shape.IsTuple()) return Materialize(original, *prefix);
    std::vector<HloInstruction*> elements;
    for (int64_t k = 0; k < shape.tuple_shapes_size(); ++k) {
      prefix->push_back(k);
      elements.push_back(Build(original, prefix, leaf));
      prefix->pop_back();
    }
    return Add(HloOpcode::kTuple, shape, elements, original->name() + ".tuple");
  }
  HloComputation* computation() const { return c_; }

  // `value` itself when it has `shape`, else bitcast(value) to it: a leaf's
  // source reached through bitcasts (Source) has the pre-bitcast shape.
  HloInstruction* FitShape(HloInstruction* value, const Shape& shape) {
    if (value->shape() == shape) return value;
    return Add(HloOpcode::kBitcast, shape, {value}, value->name() + ".bitcast");
  }

 private:
  HloInstruction* Add(HloOpcode op, const Shape& shape, std::vector<HloInstruction*> operands,
                      const std::string& name) {
    return c_->AddInstruction(HloInstruction::Create(op, shape, std::move(operands), names_.Unique(name)));
  }

  HloComputation* c_;
  NameUniquer names_;
};

// Replaces the root of `c` by a value whose leaves come from `leaf`; removes
// the old root when nothing uses it any more.
void ReplaceRoot(Builder* b, const std::function<HloInstruction*(const ShapeIndex&)>& leaf) {
  HloComputation* c = b->computation();
  HloInstruction* old_root = c->root_instruction();
  ShapeIndex prefix;
  HloInstruction* new_root = b->Build(old_root, &prefix, leaf);
  c->set_root_instruction(new_root);
  c->RemoveInstruction(old_root);
}

// A root leaf that is a fresh value: produced in this computation by an
// instruction that is not a parameter or constant, and consumed only by the
// root, once.
bool IsFreshRootLeaf(const Leaf& source) {
  if (IsFixed(*source.instr) || IsForwardingInstruction(*source.instr)) {
    const HloOpcode op = source.instr->opcode();
    if (op != HloOpcode::kWhile && op != HloOpcode::kConditional && op != HloOpcode::kCall) {
      return false;
    }
  }
  std::vector<Consumer> consumers = Consumers(source);
  return consumers.size() == 1 && consumers[0].first == nullptr;
}

// A while body's root leaf that may be computed straight into its loop
// buffer: produced in the body by an instruction that is not a parameter,
// constant or forwarding op, returned at exactly one root leaf, and
// otherwise read only by ordinary instructions of the body (which then read
// it from the loop buffer, where nothing else writes it in this iteration).
// A nested while, conditional or call taking it as an operand would share
// the loop buffer's bytes with its own, so those are excluded.
bool IsFreshBodyResult(const Leaf& source) {
  if (IsFixed(*source.instr) || IsForwardingInstruction(*source.instr)) return false;
  int64_t returned = 0;
  for (const Consumer& c : Consumers(source)) {
    if (c.first == nullptr) {
      ++returned;
      continue;
    }
    const HloOpcode op = c.first->opcode();
    if (op == HloOpcode::kWhile || op == HloOpcode::kConditional || op == HloOpcode::kCall) {
      return false;
    }
  }
  return returned == 1;
}

bool CopyRootsOf(HloComputation* c) {
  HloInstruction* root = c->root_instruction();
  std::map<ShapeIndex, Leaf> copies;
  for (const ShapeIndex& index : ArrayLeaves(root->shape())) {
    if (!IsFreshRootLeaf(Origin(root, index))) copies[index] = Source(root, index);
  }
  if (copies.empty()) return false;
  Builder b(c);
  ReplaceRoot(&b, [&](const ShapeIndex& index) {
    auto it = copies.find(index);
    Leaf source = it != copies.end() ? it->second : Source(root, index);
    HloInstruction* value = b.Materialize(source.instr, source.index);
    return it != copies.end() ? b.Copy(value) : value;
  });
  return true;
}

// The ops a fusion without operands may consist of for IsCloneableInit:
// each computes the same array every time it runs.
bool IsConstantShapingOp(HloOpcode op) {
  static constexpr HloOpcode kOps[] = {HloOpcode::kConstant, HloOpcode::kBroadcast,
                                       HloOpcode::kIota,     HloOpcode::kConvert,
                                       HloOpcode::kReshape,  HloOpcode::kBitcast};
  return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}

// Whether `instr` computes an array from constants alone (a broadcast of a
// constant, an iota, a fusion without operands made of IsConstantShapingOp
// ops), so that a clone of it writes a loop's own init buffer for no more
// than a copy would cost, and without the copy's read.
bool IsCloneableInit(const HloInstruction& instr) {
  if (!instr.shape().IsArray()) return false;
  const HloOpcode op = instr.opcode();
  if (op == HloOpcode::kBroadcast) {
    return instr.operand_count() == 1 && instr.operand(0)->opcode() == HloOpcode::kConstant;
  }
  if (instr.operand_count() != 0) return false;
  if (op == HloOpcode::kIota) return true;
  if (op != HloOpcode::kFusion) return false;
  for (const HloComputation* fused : instr.called_computations()) {
    for (const auto& inner : fused->instructions()) {
      if (!IsConstantShapingOp(inner->opcode())) return false;
    }
  }
  return true;
}

bool CopyWhileInit(HloInstruction* w) {
  HloInstruction* init = w->operand(0);
  std::set<ShapeIndex> copies;
  for (const ShapeIndex& index : ArrayLeaves(init->shape())) {
    if (IsWhileReadOnlyLeaf(*w, index)) continue;  // the loop shares the init's buffer
    Leaf source = Origin(init, index);
    const HloOpcode op = source.instr->opcode();
    const bool shareable_kind = !IsFixed(*source.instr) &&
                                (!IsForwardingInstruction(*source.instr) || op == HloOpcode::kWhile ||
                                 op == HloOpcode::kConditional || op == HloOpcode::kCall);
    std::vector<Consumer> consumers = Consumers(source);
    const bool only_this_while = consumers.size() == 1 && consumers[0].first == w;
    if (!shareable_kind || !only_this_while) copies.insert(index);
  }
  if (copies.empty()) return false;
  Builder b(w->parent());
  ShapeIndex prefix;
  absl::flat_hash_set<HloInstruction*> cloned;
  HloInstruction* new_init = b.Build(init, &prefix, [&](const ShapeIndex& index) {
    Leaf source = Source(init, index);
    if (!copies.count(index)) return b.Materialize(source.instr, source.index);
    if (source.index.empty() && IsCloneableInit(*source.instr)) {
      cloned.insert(source.instr);
      return b.Clone(source.instr);
    }
    return b.Copy(b.Materialize(source.instr, source.index));
  });
  w->ReplaceOperandWith(0, new_init);
  HloComputation* c = w->parent();
  if (init->users().empty() && init != c->root_instruction()) c->RemoveInstruction(init);
  for (HloInstruction* original : cloned) c->RemoveInstruction(original);  // when now unused
  return true;
}

bool CopyWhileBodyRoot(HloComputation* body) {
  HloInstruction* param = body->parameter_instruction(0);
  HloInstruction* root = body->root_instruction();
  if (param == nullptr || root == nullptr) return false;
  const std::vector<ShapeIndex> leaves = ArrayLeaves(root->shape());
  Builder b(body);
  bool changed = false;
  // Phase A: sources that are another leaf of the parameter go through a
  // temporary first, so that swaps never need each other's old value.
  std::map<ShapeIndex, HloInstruction*> staged;
  for (const ShapeIndex& index : leaves) {
    Leaf source = Origin(root, index);
    if (source.instr != param || source.index == index) continue;
    staged[index] = b.Copy(b.Materialize(param, source.index));
  }
  // Phase B: every other non-pass-through leaf is written into the loop
  // buffer after the old value's last reader.
  std::map<ShapeIndex, HloInstruction*> finals;
  for (const ShapeIndex& index : leaves) {
    Leaf source = Origin(root, index);
    if (source.instr == param && source.index == index) continue;
    std::vector<Consumer> readers = Consumers({param, index});
    auto order_after_readers = [&](HloInstruction* writer) {
      for (const Consumer& r : readers) {
        if (r.first == nullptr || r.first == writer) continue;
        writer->AddControlPredecessor(r.first);
      }
    };
    if (!staged.count(index) && source.index.empty() && IsFreshBodyResult(source)) {
      bool in_place_ok = true;
      absl::flat_hash_set<const HloInstruction*> others;
      for (const Consumer& r : readers) {
        if (r.first == nullptr) continue;
        if (r.first == source.instr) {
          in_place_ok = in_place_ok && CanShareOperandBuffer(*source.instr, r.second);
        } else {
          others.insert(r.first);
        }
      }
      if (in_place_ok && !Reaches(source.instr, others)) {
        order_after_readers(source.instr);
        changed = changed || !others.empty();
        continue;
      }
    }
    auto it = staged.find(index);
    HloInstruction* from =
        it != staged.end() ? it->second : b.Materialize(source.instr, source.index);
    HloInstruction* final_copy = b.Copy(from);
    order_after_readers(final_copy);
    finals[index] = final_copy;
    changed = true;
  }
  if (!staged.empty() || !finals.empty()) changed = true;
  if (finals.empty()) return changed;
  ReplaceRoot(&b, [&](const ShapeIndex& index) {
    auto it = finals.find(index);
    if (it != finals.end()) return it->second;
    Leaf source = Source(root, index);
    return b.Materialize(source.instr, source.index);
  });
  return true;
}

bool EntryParameterMayBeReturned(const HloModuleConfig& config, const Leaf& source,
                                 const ShapeIndex& output_index) {
  const int64_t number = source.instr->parameter_number();
  for (const InputOutputAlias& alias : config.input_output_alias) {
    if (alias.output_index == output_index && alias.parameter_number == number &&
        alias.parameter_index == source.index) {
      return true;
    }
  }
  for (const BufferDonor& donor : config.buffer_donor) {
    if (donor.parameter_number == number && donor.parameter_index == source.index) return true;
  }
  return false;
}

bool CopyEntryRoot(HloModule* module) {
  HloComputation* entry = module->entry_computation();
  HloInstruction* root = entry->root_instruction();
  std::set<ShapeIndex> copies;
  std::set<std::pair<const HloInstruction*, ShapeIndex>> returned;
  for (const ShapeIndex& index : ArrayLeaves(root->shape())) {
    Leaf source = Origin(root, index);
    const bool first = returned.insert({source.instr, source.index}).second;
    const HloOpcode op = source.instr->opcode();
    const bool ok = first && op != HloOpcode::kConstant &&
                    (op != HloOpcode::kParameter ||
                     EntryParameterMayBeReturned(module->config(), source, index));
    if (!ok) copies.insert(index);
  }
  if (copies.empty()) return false;
  Builder b(entry);
  ReplaceRoot(&b, [&](const ShapeIndex& index) {
    Leaf source = Source(root, index);
    HloInstruction* value = b.Materialize(source.instr, source.index);
    return copies.count(index) ? b.Copy(value) : value;
  });
  return true;
}

// A copy of `original` in the same module (called computations it uses are
// shared, not copied).
HloComputation* CloneComputation(HloModule* module, const HloComputation& original) {
  auto clone = std::make_unique<HloComputation>(module->UniqueComputationName(original.name()));
  clone->set_has_printed_signature(original.has_printed_signature());
  clone->set_execution_thread(original.execution_thread());
  HloComputation* c = module->AddComputation(std::move(clone));
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> map;
  for (HloInstruction* instr : original.MakePostOrder()) {
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* op : instr->operands()) operands.push_back(map.at(op));
    HloInstruction* copy =
        c->AddInstruction(instr->CloneWithNewOperands(instr->shape(), operands, instr->name()));
    for (const HloInstruction* pred : instr->control_predecessors()) {
      copy->AddControlPredecessor(map.at(pred));
    }
    map[instr] = copy;
  }
  c->set_root_instruction(map.at(original.root_instruction()));
  return c;
}

// Makes `caller` call `replacement` instead of the `occurrence`-th (0-based)
// appearance of `callee` among its computation attributes.
void Recall(HloInstruction* caller, const HloComputation* callee, int occurrence,
            HloComputation* replacement) {
  int seen = 0;
  std::vector<std::pair<AttrId, AttrValue>> attrs = caller->attrs();
  for (auto& [id, value] : attrs) {
    if (auto* single = std::get_if<HloComputation*>(&value)) {
      if (*single == callee && seen++ == occurrence) {
        caller->SetAttr(id, replacement);
        return;
      }
    } else if (auto* list = std::get_if<std::vector<HloComputation*>>(&value)) {
      for (HloComputation*& c : *list) {
        if (c == callee && seen++ == occurrence) {
          c = replacement;
          caller->SetAttr(id, *list);
          return;
        }
      }
    }
  }
}

// Gives every computation that owns buffers a single call site by cloning
// the ones called more than once (breadth first from the entry, so clones
// are visited, and their own callees split, in turn).
bool CloneSharedComputations(HloModule* module) {
  bool changed = false;
  std::vector<HloComputation*> queue = {module->entry_computation()};
  absl::flat_hash_set<const HloComputation*> claimed = {module->entry_computation()};
  for (size_t i = 0; i < queue.size(); ++i) {
    std::vector<HloInstruction*> callers;
    for (const auto& instr : queue[i]->instructions()) callers.push_back(instr.get());
    for (HloInstruction* caller : callers) {
      std::vector<const HloComputation*> callees = ScheduledCallees(*caller);
      absl::flat_hash_map<const HloComputation*, int> occurrence;
      for (const HloComputation* callee : callees) {
        const int n = occurrence[callee]++;
        HloComputation* target = const_cast<HloComputation*>(callee);
        if (!claimed.insert(callee).second) {
          target = CloneComputation(module, *callee);
          claimed.insert(target);
          Recall(caller, callee, n, target);
          --occurrence[callee];  // that appearance no longer names `callee`
          changed = true;
        }
        queue.push_back(target);
      }
    }
  }
  return changed;
}

}  // namespace

absl::StatusOr<bool> AddCopiesForWhileAndConditional(HloModule* module) {
  if (module->entry_computation() == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("module ", module->name(), " has no entry"));
  }
  bool changed = CloneSharedComputations(module);
  for (const HloComputation* const_c : ComputationsNeedingSchedule(*module)) {
    HloComputation* c = const_cast<HloComputation*>(const_c);
    std::vector<HloInstruction*> callers;
    for (const auto& instr : c->instructions()) {
      const HloOpcode op = instr->opcode();
      if (op == HloOpcode::kWhile || op == HloOpcode::kConditional || op == HloOpcode::kCall) {
        callers.push_back(instr.get());
      }
    }
    for (HloInstruction* caller : callers) {
      if (caller->opcode() == HloOpcode::kWhile) {
        HloComputation* body = caller->GetComputation(AttrId::kBody);
        if (body == nullptr) {
          return absl::InvalidArgumentError(absl::StrCat("while ", caller->name(), " has no body"));
        }
        changed |= CopyWhileInit(caller);
        changed |= CopyWhileBodyRoot(body);
        continue;
      }
      for (HloComputation* callee : caller->called_computations()) changed |= CopyRootsOf(callee);
    }
  }
  changed |= CopyEntryRoot(module);
  return changed;
}

}  // namespace xla
