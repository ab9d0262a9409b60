#include "xla/hlo/ir/hlo_module.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace xla {

HloComputation* HloModule::AddComputation(std::unique_ptr<HloComputation> computation) {
  HloComputation* raw = computation.get();
  raw->set_parent(this);
  for (const auto& instr : raw->instructions()) instr->set_unique_id(NextUniqueId());
  computations_.push_back(std::move(computation));
  return raw;
}

bool HloModule::RemoveComputation(HloComputation* computation) {
  if (computation == entry_) return false;
  for (const auto& c : computations_) {
    for (const auto& instr : c->instructions()) {
      for (const HloComputation* callee : instr->called_computations()) {
        if (callee == computation) return false;
      }
    }
  }
  for (auto it = computations_.begin(); it != computations_.end(); ++it) {
    if (it->get() == computation) {
      computations_.erase(it);
      return true;
    }
  }
  return false;
}

int64_t HloModule::RemoveComputations(const std::vector<HloComputation*>& dead) {
  absl::flat_hash_set<const HloComputation*> doomed(dead.begin(), dead.end());
  doomed.erase(entry_);
  // Keep anything a surviving computation calls, transitively.
  std::vector<const HloComputation*> kept_callers;
  for (const auto& c : computations_) {
    if (!doomed.contains(c.get())) kept_callers.push_back(c.get());
  }
  while (!kept_callers.empty()) {
    const HloComputation* c = kept_callers.back();
    kept_callers.pop_back();
    for (const auto& instr : c->instructions()) {
      for (const HloComputation* callee : instr->called_computations()) {
        if (callee != nullptr && doomed.erase(callee) > 0) kept_callers.push_back(callee);
      }
    }
  }
  const size_t before = computations_.size();
  computations_.erase(std::remove_if(computations_.begin(), computations_.end(),
                                     [&](const auto& c) { return doomed.contains(c.get()); }),
                      computations_.end());
  return static_cast<int64_t>(before - computations_.size());
}

std::string HloModule::UniqueComputationName(const std::string& base) const {
  if (GetComputation(base) == nullptr) return base;
  for (int64_t n = 1;; ++n) {
    std::string candidate = absl::StrCat(base, ".", n);
    if (GetComputation(candidate) == nullptr) return candidate;
  }
}

HloComputation* HloModule::GetComputation(const std::string& name) const {
  for (const auto& c : computations_) {
    if (c->name() == name) return c.get();
  }
  return nullptr;
}

void HloModule::set_entry_computation(HloComputation* entry) {
  if (entry_ != nullptr) entry_->set_is_entry(false);
  entry_ = entry;
  if (entry_ != nullptr) entry_->set_is_entry(true);
}

std::vector<HloComputation*> HloModule::MakeComputationPostOrder() const {
  std::vector<HloComputation*> order;
  absl::flat_hash_set<const HloComputation*> visited;
  std::vector<std::pair<HloComputation*, std::vector<HloComputation*>>> stack;
  auto callees = [](const HloComputation* c) {
    std::vector<HloComputation*> out;
    for (const auto& instr : c->instructions()) {
      for (HloComputation* callee : instr->called_computations()) out.push_back(callee);
    }
    return out;
  };
  auto visit = [&](HloComputation* root) {
    if (!visited.insert(root).second) return;
    stack.push_back({root, callees(root)});
    while (!stack.empty()) {
      auto& [c, pending] = stack.back();
      if (!pending.empty()) {
        HloComputation* next = pending.back();
        pending.pop_back();
        if (visited.insert(next).second) stack.push_back({next, callees(next)});
        continue;
      }
      order.push_back(c);
      stack.pop_back();
    }
  };
  for (const auto& c : computations_) {
    if (c.get() != entry_) visit(c.get());
  }
  if (entry_ != nullptr) visit(entry_);
  return order;
}

}  // namespace xla
