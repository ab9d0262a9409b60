#include "xla/service/fusion/instruction_fusion.h"

#include <algorithm>
#include <memory>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/transforms/hlo_util.h"
#include "xla/service/fusion/fusion_util.h"
#include "xla/service/fusion/reshapes_to_bitcasts.h"
#include "xla/util/status_macros.h"

namespace xla {

namespace {

bool BodyHasOpcodeClass(const HloComputation& body, FusionCostClass c1, FusionCostClass c2) {
  for (const auto& i : body.instructions()) {
    const FusionCostClass c = FusionCostClassOf(i->opcode());
    if (c == c1 || c == c2) return true;
  }
  return false;
}

int64_t InstructionSize(const HloInstruction& instr) {
  const HloComputation* body = FusedComputation(instr);
  if (body == nullptr) return 1;
  return body->instruction_count() - body->num_parameters();
}

struct Group {
  HloInstruction* root = nullptr;
  std::vector<HloInstruction*> members;
  absl::flat_hash_set<const HloInstruction*> member_set;
  absl::flat_hash_set<const HloInstruction*> params;
  int64_t size = 0;
  // Elements and dimensions of the largest array member.
  int64_t max_elements = 0;
  std::vector<int64_t> max_dims;
  // Row-normalization signature, once a reduce joined as a producer.
  bool has_row_signature = false;
  std::vector<int64_t> row_full_dims;
  int64_t row_rank = 0;
  // How many times the fused kernel computes each member's value in all
  // (see EvaluationsOf).
  absl::flat_hash_map<const HloInstruction*, int64_t> evaluations;
  // Arithmetic instructions copied into the group from producers that are
  // also computed elsewhere (FusionLimits::max_duplicated_arithmetic).
  int64_t duplicated_arithmetic = 0;
};

// Elements of an array instruction; 0 for tuples, tokens and dynamic shapes.
int64_t Elements(const HloInstruction& instr) {
  if (!instr.shape().IsArray()) return 0;
  return instr.shape().ElementCount().value_or(0);
}

// a * b for non-negative counts, at most kMaxCount (the evaluation counts
// of deep chains of windows would overflow).
constexpr int64_t kMaxCount = int64_t{1} << 62;
int64_t SaturatingMul(int64_t a, int64_t b) {
  return (b != 0 && a > kMaxCount / b) ? kMaxCount : a * b;
}

// Elements of its operand a user reads per value it computes: the window of
// a reduce-window, the reduced elements of a (single-result) reduce, else
// one.
int64_t ReadsPerValue(const HloInstruction& user) {
  if (user.opcode() == HloOpcode::kReduceWindow) {
    const AttrValue* v = user.FindAttr(AttrId::kWindow);
    const Window* w = v == nullptr ? nullptr : std::get_if<Window>(v);
    if (w == nullptr) return 1;
    int64_t n = 1;
    for (const WindowDim& d : w->dims) n = SaturatingMul(n, std::max<int64_t>(1, d.size));
    return n;
  }
  if (user.opcode() == HloOpcode::kReduce && user.operand_count() == 2 && Elements(user) > 0) {
    return std::max<int64_t>(1, Elements(*user.operand(0)) / Elements(user));
  }
  return 1;
}

// Makes `instr` the group's largest member when it has more elements.
void NoteLargest(const HloInstruction& instr, Group* group) {
  const int64_t elements = Elements(instr);
  if (elements <= group->max_elements) return;
  group->max_elements = elements;
  group->max_dims = instr.shape().dimensions();
}

// True when `instr`'s dimensions, without unit dimensions, lead `dims`
// (also without them): a per-row value of a [rows, columns] iteration,
// which the kernel's inner loop does not recompute (it is loop-invariant
// there), unlike a per-column value.
bool IsLeadingPart(const HloInstruction& instr, const std::vector<int64_t>& dims) {
  auto strip = [](const std::vector<int64_t>& d) {
    std::vector<int64_t> out;
    for (int64_t x : d) {
      if (x != 1) out.push_back(x);
    }
    return out;
  };
  if (!instr.shape().IsArray()) return false;
  const std::vector<int64_t> lead = strip(instr.shape().dimensions());
  const std::vector<int64_t> all = strip(dims);
  return lead.size() <= all.size() && std::equal(lead.begin(), lead.end(), all.begin());
}

// Plans and materializes fusions for one computation.
class ComputationFuser {
 public:
  ComputationFuser(HloComputation* computation, const FusionLimits& limits,
                   ComputationNamer* namer)
      : computation_(computation), limits_(limits), namer_(namer) {}

  absl::StatusOr<bool> Run() {
    order_ = computation_->MakePostOrder();
    const int64_t n = static_cast<int64_t>(order_.size());
    index_.reserve(n);
    for (int64_t i = 0; i < n; ++i) index_[order_[i]] = i;
    memberships_.assign(n, {});
    absorbed_in_.assign(n, -1);
    root_group_.assign(n, -1);
    materialized_.assign(n, false);
    control_ = ControlPredecessorSet(*computation_);
    for (int64_t i = n - 1; i >= 0; --i) {
      HloInstruction* instr = order_[i];
      if (!IsNeeded(instr)) continue;
      materialized_[i] = true;
      if (CanBeRoot(*instr)) FormGroup(instr);
    }
    return Materialize();
  }

 private:
  int64_t Idx(const HloInstruction* instr) const { return index_.at(instr); }

  bool HasControl(const HloInstruction& instr) const {
    return !instr.control_predecessors().empty() || control_.contains(&instr);
  }

  bool GroupContains(int64_t g, const HloInstruction* instr) const {
    return groups_[g].member_set.contains(instr);
  }

  // True when some user needs `instr` computed outside every fusion it
  // belongs to (see the header). All users were decided before `instr`.
  bool IsNeeded(const HloInstruction* instr) const {
    if (instr == computation_->root_instruction() || instr->users().empty() || HasControl(*instr)) {
      return true;
    }
    for (const HloInstruction* user : instr->users()) {
      const int64_t u = Idx(user);
      for (int64_t g : memberships_[u]) {
        if (g != root_group_[u] && !GroupContains(g, instr)) return true;
      }
      if (materialized_[u] && (root_group_[u] < 0 || !GroupContains(root_group_[u], instr))) {
        return true;
      }
    }
    return false;
  }

  bool CanBeRoot(const HloInstruction& instr) const {
    if (HasControl(instr) || HasSideEffect(instr)) return false;
    if (instr.operand_count() > limits_.max_parameters) return false;
    if (instr.opcode() == HloOpcode::kFusion) return IsMergeableFusion(instr);
    // Left alone, it costs nothing; as a root it would give its producers
    // its shape (softmax's rows, reshaped for the next batched dot, would
    // no longer be one row-normalization fusion).
    if (BecomesBitcast(instr)) return false;
    switch (FusionCostClassOf(instr.opcode())) {
      case FusionCostClass::kCheap:
      case FusionCostClass::kExpensive:
      case FusionCostClass::kReduction:
      case FusionCostClass::kRootOnly:
        return instr.shape().IsArray() || instr.opcode() == HloOpcode::kReduce;
      case FusionCostClass::kOutside:
      case FusionCostClass::kNeverFuse:
        return false;
    }
    return false;
  }

  // Whether `producer` may be fused at all, and whether it may be copied.
  bool FusibleProducer(const HloInstruction& producer, bool* duplicable) const {
    *duplicable = false;
    if (HasControl(producer) || HasSideEffect(producer) || !producer.shape().IsArray()) return false;
    if (producer.opcode() == HloOpcode::kConstant) {
      *duplicable = true;
      return FusionMayFuseConstant(producer, limits_);
    }
    if (producer.opcode() == HloOpcode::kFusion) {
      if (!IsMergeableFusion(producer)) return false;
      const HloComputation* body = FusedComputation(producer);
      return !body->root_instruction()->shape().IsTuple() &&
             !BodyHasOpcodeClass(*body, FusionCostClass::kReduction, FusionCostClass::kRootOnly);
    }
    const FusionCostClass c = FusionCostClassOf(producer.opcode());
    if (c != FusionCostClass::kCheap && c != FusionCostClass::kExpensive &&
        c != FusionCostClass::kReduction) {
      return false;
    }
    *duplicable = FusionMayDuplicate(producer, static_cast<int64_t>(producer.users().size()), limits_);
    return true;
  }

  // Checks the row-normalization rules for fusing `reduce` into group `g`
  // (see the header); everything in `g` that depends on it is known.
  bool RowNormalizationAllows(Group& group, const HloInstruction& reduce) const {
    int64_t rows = 0;
    if (!IsRowReduction(reduce, &rows)) return false;
    const std::vector<int64_t>& full = reduce.operand(0)->shape().dimensions();
    int64_t row_length = 1;
    for (size_t i = rows; i < full.size(); ++i) row_length *= full[i];
    if (row_length > limits_.max_row_length) return false;
    if (group.has_row_signature && (group.row_full_dims != full || group.row_rank != rows)) {
      return false;
    }
    const std::vector<int64_t> row_dims(full.begin(), full.begin() + rows);
    std::vector<int64_t> iota(rows);
    for (int64_t i = 0; i < rows; ++i) iota[i] = i;
    std::vector<const HloInstruction*> stack = {&reduce};
    absl::flat_hash_set<const HloInstruction*> seen = {&reduce};
    while (!stack.empty()) {
      const HloInstruction* x = stack.back();
      stack.pop_back();
      for (const HloInstruction* user : x->users()) {
        if (!group.member_set.contains(user) || !seen.insert(user).second) continue;
        if (!user->shape().IsArray() || user->opcode() == HloOpcode::kFusion) return false;
        const std::vector<int64_t>& dims = user->shape().dimensions();
        bool ok = false;
        if (dims == full) {
          ok = user->opcode() == HloOpcode::kBroadcast
                   ? x->shape().dimensions() == row_dims && user->dimensions() == iota
                   : IsElementwiseLike(*user);
        } else if (dims == row_dims) {
          int64_t user_rows = 0;
          ok = user->opcode() == HloOpcode::kReduce
                   ? IsRowReduction(*user, &user_rows) && user_rows == rows &&
                         user->operand(0)->shape().dimensions() == full
                   : IsElementwiseLike(*user);
        }
        if (!ok) return false;
        stack.push_back(user);
      }
    }
    group.has_row_signature = true;
    group.row_full_dims = full;
    group.row_rank = rows;
    return true;
  }

  // How many values of `producer` the group's kernel would compute: one per
  // read by each of its users in the group (all of which joined before it).
  static int64_t EvaluationsOf(const Group& group, const HloInstruction& producer) {
    int64_t total = 0;
    for (const HloInstruction* user : producer.users()) {
      auto it = group.evaluations.find(user);
      if (it == group.evaluations.end()) continue;
      total = std::min(kMaxCount, total + SaturatingMul(it->second, ReadsPerValue(*user)));
    }
    return total;
  }

  bool TryJoin(int64_t g, HloInstruction* producer) {
    Group& group = groups_[g];
    bool duplicable = false;
    if (!FusibleProducer(*producer, &duplicable)) return false;
    bool all_absorbed = true;
    for (const HloInstruction* user : producer->users()) {
      if (absorbed_in_[Idx(user)] != g) {
        all_absorbed = false;
        break;
      }
    }
    if (!all_absorbed && !duplicable) return false;
    if (group.size + InstructionSize(*producer) > limits_.max_instructions) return false;
    // A copy (its value is also computed outside the group) of arithmetic.
    const int64_t copied_arithmetic =
        all_absorbed || producer->opcode() == HloOpcode::kConstant ||
                FusionRecomputeIsALoad(producer->opcode())
            ? 0
            : InstructionSize(*producer);
    if (group.duplicated_arithmetic + copied_arithmetic > limits_.max_duplicated_arithmetic) {
      return false;
    }
    const int64_t producer_elements = Elements(*producer);
    if (FusionCostClassOf(producer->opcode()) == FusionCostClass::kExpensive &&
        producer_elements * limits_.max_expensive_expansion < group.max_elements &&
        !IsLeadingPart(*producer, group.max_dims)) {
      return false;
    }
    int64_t new_params = 0;
    absl::flat_hash_set<const HloInstruction*> fresh;
    for (const HloInstruction* op : producer->operands()) {
      if (!group.member_set.contains(op) && !group.params.contains(op) && fresh.insert(op).second) {
        ++new_params;
      }
    }
    if (static_cast<int64_t>(group.params.size()) - 1 + new_params > limits_.max_parameters) {
      return false;
    }
    if (producer->opcode() == HloOpcode::kReduce && !RowNormalizationAllows(group, *producer)) {
      return false;
    }
    // Fused, the producer is recomputed for every read: a large arithmetic
    // value read several times per element (through im2col's shifted
    // slices of one pad, or a reduce-window's windows) is computed once as
    // its own kernel instead, and the reads become loads. A row kernel
    // computes a reduction, and a per-row value (invariant in its inner
    // loop, see IsLeadingPart), once per element of their own.
    const bool once_per_element = producer->opcode() == HloOpcode::kReduce ||
                                  (producer_elements < group.max_elements &&
                                   IsLeadingPart(*producer, group.max_dims));
    const int64_t evaluations =
        once_per_element ? producer_elements : EvaluationsOf(group, *producer);
    if (!FusionRecomputeIsALoad(producer->opcode()) &&
        producer_elements >= limits_.min_recomputed_elements &&
        evaluations > limits_.max_recompute_factor * producer_elements) {
      return false;
    }
    group.evaluations[producer] = evaluations;
    group.members.push_back(producer);
    group.member_set.insert(producer);
    group.size += InstructionSize(*producer);
    group.duplicated_arithmetic += copied_arithmetic;
    NoteLargest(*producer, &group);
    group.params.erase(producer);
    for (const HloInstruction* op : fresh) group.params.insert(op);
    const int64_t p = Idx(producer);
    memberships_[p].push_back(g);
    if (all_absorbed) absorbed_in_[p] = g;
    return true;
  }

  void FormGroup(HloInstruction* root) {
    const int64_t g = static_cast<int64_t>(groups_.size());
    groups_.emplace_back();
    Group& group = groups_.back();
    group.root = root;
    group.members.push_back(root);
    group.member_set.insert(root);
    group.size = InstructionSize(*root);
    NoteLargest(*root, &group);
    group.evaluations[root] = Elements(*root);
    for (const HloInstruction* op : root->operands()) group.params.insert(op);
    const int64_t r = Idx(root);
    memberships_[r].push_back(g);
    absorbed_in_[r] = g;
    root_group_[r] = g;
    if (root->opcode() == HloOpcode::kReduce) {
      int64_t rows = 0;
      if (IsRowReduction(*root, &rows)) {
        group.has_row_signature = true;
        group.row_full_dims = root->operand(0)->shape().dimensions();
        group.row_rank = rows;
      }
    }
    // Producers, users before producers (largest post-order index first).
    std::priority_queue<std::pair<int64_t, HloInstruction*>> frontier;
    absl::flat_hash_set<const HloInstruction*> pushed;
    auto push_operands = [&](HloInstruction* instr) {
      for (HloInstruction* op : instr->operands()) {
        if (pushed.insert(op).second) frontier.push({Idx(op), op});
      }
    };
    push_operands(root);
    while (!frontier.empty()) {
      HloInstruction* producer = frontier.top().second;
      frontier.pop();
      if (TryJoin(g, producer)) push_operands(producer);
    }
  }

  absl::StatusOr<bool> Materialize() {
    bool changed = false;
    NameUniquer names(*computation_);
    std::vector<HloInstruction*> dead;
    absl::flat_hash_set<const HloInstruction*> dead_set;
    std::vector<HloComputation*> inlined;
    for (Group& group : groups_) {
      if (group.members.size() == 1 && group.root->opcode() == HloOpcode::kFusion) continue;
      changed = true;
      std::sort(group.members.begin(), group.members.end(),
                [&](const HloInstruction* a, const HloInstruction* b) { return Idx(a) < Idx(b); });
      auto body = std::make_unique<HloComputation>(namer_->Unique("fused_" + group.root->name()));
      NameUniquer body_names(*body);
      absl::flat_hash_map<const HloInstruction*, HloInstruction*> map;
      std::vector<HloInstruction*> operands;
      bool has_reduce = false;
      auto param_for = [&](HloInstruction* op) {
        auto it = map.find(op);
        if (it != map.end()) return it->second;
        const int64_t number = static_cast<int64_t>(operands.size());
        operands.push_back(op);
        HloInstruction* param = body->AddInstruction(HloInstruction::CreateParameter(
            number, op->shape(), body_names.Unique(absl::StrCat("param_", number))));
        map[op] = param;
        return param;
      };
      for (HloInstruction* member : group.members) {
        std::vector<HloInstruction*> new_operands;
        for (HloInstruction* op : member->operands()) {
          new_operands.push_back(group.member_set.contains(op) ? map.at(op) : param_for(op));
        }
        if (member->opcode() == HloOpcode::kFusion) {
          HloComputation* callee = FusedComputation(*member);
          inlined.push_back(callee);
          absl::flat_hash_map<const HloInstruction*, HloInstruction*> inner;
          for (HloInstruction* p : callee->parameter_instructions()) {
            inner[p] = new_operands[p->parameter_number()];
          }
          for (HloInstruction* i : callee->MakePostOrder()) {
            if (i->opcode() == HloOpcode::kParameter) continue;
            std::vector<HloInstruction*> ops;
            for (HloInstruction* o : i->operands()) ops.push_back(inner.at(o));
            has_reduce |= i->opcode() == HloOpcode::kReduce;
            inner[i] = body->AddInstruction(
                i->CloneWithNewOperands(i->shape(), ops, body_names.Unique(i->name())));
          }
          map[member] = inner.at(callee->root_instruction());
        } else {
          has_reduce |= member->opcode() == HloOpcode::kReduce;
          map[member] = body->AddInstruction(
              member->CloneWithNewOperands(member->shape(), new_operands, body_names.Unique(member->name())));
        }
        if (!materialized_[Idx(member)] && dead_set.insert(member).second) dead.push_back(member);
      }
      body->set_root_instruction(map.at(group.root));
      HloComputation* callee = computation_->parent()->AddComputation(std::move(body));
      HloInstruction* fusion = computation_->AddInstruction(HloInstruction::Create(
          HloOpcode::kFusion, group.root->shape(), operands, names.Unique("fusion")));
      fusion->SetAttr(AttrId::kFusionKind, std::string(has_reduce ? "kInput" : "kLoop"));
      fusion->SetAttr(AttrId::kCalls, std::vector<HloComputation*>{callee});
      absl::Status st = group.root->ReplaceAllUsesWith(fusion);
      if (!st.ok()) {
        return absl::InternalError(absl::StrCat("fusion: replacing ", group.root->name(), " in ",
                                                computation_->name(), ": ", st.message()));
      }
      dead.push_back(group.root);
    }
    if (!changed) return false;
    const int64_t removed = computation_->RemoveInstructions(dead);
    if (removed != static_cast<int64_t>(dead.size())) {
      return absl::InternalError(absl::StrCat("fusion: in computation ", computation_->name(), " only ",
                                              removed, " of ", dead.size(),
                                              " fused instructions could be removed (a fused "
                                              "instruction still has users); this is a bug"));
    }
    computation_->SortInstructionsInPostOrder();
    computation_->parent()->RemoveComputations(inlined);
    return true;
  }

  HloComputation* computation_;
  const FusionLimits& limits_;
  ComputationNamer* namer_;
  std::vector<HloInstruction*> order_;
  absl::flat_hash_map<const HloInstruction*, int64_t> index_;
  std::vector<std::vector<int64_t>> memberships_;
  std::vector<int64_t> absorbed_in_;
  std::vector<int64_t> root_group_;
  std::vector<bool> materialized_;
  absl::flat_hash_set<const HloInstruction*> control_;
  std::vector<Group> groups_;
};

}  // namespace

absl::StatusOr<bool> InstructionFusion::Run(HloModule* module) {
  ComputationNamer namer(*module);
  bool changed = false;
  for (HloComputation* computation : ComputationsToFuse(*module)) {
    ComputationFuser fuser(computation, limits_, &namer);
    ASSIGN_OR_RETURN(bool c, fuser.Run());
    changed |= c;
  }
  return changed;
}

}  // namespace xla
