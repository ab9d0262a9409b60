#include "xla/hlo/ir/hlo_computation.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/ir/hlo_module.h"

namespace xla {

HloInstruction* HloComputation::AddInstruction(std::unique_ptr<HloInstruction> instruction) {
  HloInstruction* raw = instruction.get();
  raw->set_parent(this);
  if (parent_ != nullptr) raw->set_unique_id(parent_->NextUniqueId());
  if (raw->opcode() == HloOpcode::kParameter && raw->parameter_number() >= 0) {
    size_t n = static_cast<size_t>(raw->parameter_number());
    if (n < (1u << 20)) {
      if (params_.size() <= n) params_.resize(n + 1, nullptr);
      params_[n] = raw;
    }
  }
  instructions_.push_back(std::move(instruction));
  return raw;
}

std::string HloComputation::UniqueInstructionName(const std::string& base) const {
  absl::flat_hash_set<absl::string_view> names;
  for (const auto& i : instructions_) names.insert(i->name());
  if (!names.contains(base)) return base;
  for (int64_t n = 1;; ++n) {
    std::string candidate = absl::StrCat(base, ".", n);
    if (!names.contains(candidate)) return candidate;
  }
}

HloInstruction* HloComputation::GetInstruction(const std::string& name) const {
  for (const auto& i : instructions_) {
    if (i->name() == name) return i.get();
  }
  return nullptr;
}

bool HloComputation::RemoveInstruction(HloInstruction* instruction) {
  if (!instruction->users().empty() || instruction == root_) return false;
  if (!instruction->control_successors().empty()) return false;
  auto it = std::find_if(instructions_.begin(), instructions_.end(),
                         [&](const auto& p) { return p.get() == instruction; });
  if (it == instructions_.end()) return false;
  instruction->DetachFromOperands();
  instruction->DropControlEdges();
  ForgetParameter(instruction);
  instructions_.erase(it);
  return true;
}

void HloComputation::ForgetParameter(const HloInstruction* instruction) {
  if (instruction->opcode() != HloOpcode::kParameter) return;
  for (auto& p : params_) {
    if (p == instruction) p = nullptr;
  }
}

int64_t HloComputation::RemoveInstructions(const std::vector<HloInstruction*>& dead) {
  absl::flat_hash_set<const HloInstruction*> doomed;
  for (HloInstruction* d : dead) {
    if (d->parent() == this && d != root_) doomed.insert(d);
  }
  // Keep anything still needed by an instruction that stays.
  bool pruned = true;
  while (pruned) {
    pruned = false;
    for (auto it = doomed.begin(); it != doomed.end();) {
      const HloInstruction* d = *it;
      auto outside = [&](const HloInstruction* u) { return !doomed.contains(u); };
      if (std::any_of(d->users().begin(), d->users().end(), outside) ||
          std::any_of(d->control_successors().begin(), d->control_successors().end(), outside)) {
        doomed.erase(it++);
        pruned = true;
        continue;
      }
      ++it;
    }
  }
  if (doomed.empty()) return 0;
  for (const auto& owned : instructions_) {
    if (!doomed.contains(owned.get())) continue;
    owned->DetachFromOperands();
    owned->DropControlEdges();
    ForgetParameter(owned.get());
  }
  const size_t before = instructions_.size();
  instructions_.erase(std::remove_if(instructions_.begin(), instructions_.end(),
                                     [&](const auto& p) { return doomed.contains(p.get()); }),
                      instructions_.end());
  return static_cast<int64_t>(before - instructions_.size());
}

bool HloComputation::ReorderInstructions(const std::vector<const HloInstruction*>& order) {
  if (order.size() != instructions_.size()) return false;
  absl::flat_hash_map<const HloInstruction*, size_t> position;
  position.reserve(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i]->parent() != this || !position.emplace(order[i], i).second) return false;
  }
  std::sort(instructions_.begin(), instructions_.end(), [&](const auto& a, const auto& b) {
    return position.at(a.get()) < position.at(b.get());
  });
  return true;
}

void HloComputation::SortInstructionsInPostOrder() {
  std::vector<HloInstruction*> order = MakePostOrder();
  // MakePostOrder lists every instruction once; move the owners into place.
  absl::flat_hash_map<const HloInstruction*, size_t> slot;
  slot.reserve(instructions_.size());
  for (size_t i = 0; i < instructions_.size(); ++i) slot[instructions_[i].get()] = i;
  std::vector<std::unique_ptr<HloInstruction>> sorted;
  sorted.reserve(instructions_.size());
  for (HloInstruction* instr : order) sorted.push_back(std::move(instructions_[slot.at(instr)]));
  instructions_ = std::move(sorted);
}

std::vector<HloInstruction*> HloComputation::MakePostOrder() const {
  std::vector<HloInstruction*> order;
  order.reserve(instructions_.size());
  absl::flat_hash_set<const HloInstruction*> visited;
  // Iterative DFS: (instruction, next input to visit).
  std::vector<std::pair<HloInstruction*, size_t>> stack;
  auto inputs_of = [](const HloInstruction* h, size_t i) -> HloInstruction* {
    size_t n_ops = h->operands().size();
    if (i < n_ops) return h->operand(static_cast<int64_t>(i));
    return h->control_predecessors()[i - n_ops];
  };
  for (const auto& owned : instructions_) {
    if (!visited.insert(owned.get()).second) continue;
    stack.push_back({owned.get(), 0});
    while (!stack.empty()) {
      auto& [h, next] = stack.back();
      size_t total = h->operands().size() + h->control_predecessors().size();
      if (next < total) {
        HloInstruction* input = inputs_of(h, next++);
        if (visited.insert(input).second) stack.push_back({input, 0});
        continue;
      }
      order.push_back(h);
      stack.pop_back();
    }
  }
  return order;
}

ProgramShape HloComputation::ComputeProgramShape() const {
  ProgramShape ps;
  for (const HloInstruction* p : params_) {
    ps.parameters.push_back(p ? p->shape() : Shape());
    ps.parameter_names.push_back(p ? p->name() : "");
  }
  if (root_ != nullptr) ps.result = root_->shape();
  return ps;
}

}  // namespace xla
