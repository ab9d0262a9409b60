#include "xla/service/schedule/hlo_schedule.h"

#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace xla {

std::vector<const HloComputation*> ScheduledCallees(const HloInstruction& caller) {
  const HloOpcode op = caller.opcode();
  if (op != HloOpcode::kWhile && op != HloOpcode::kConditional && op != HloOpcode::kCall) {
    return {};
  }
  std::vector<HloComputation*> called = caller.called_computations();
  return std::vector<const HloComputation*>(called.begin(), called.end());
}

std::vector<const HloComputation*> ComputationsNeedingSchedule(const HloModule& module) {
  std::vector<const HloComputation*> out;
  const HloComputation* entry = module.entry_computation();
  if (entry == nullptr) return out;
  absl::flat_hash_set<const HloComputation*> seen = {entry};
  out.push_back(entry);
  // Breadth over `out` itself: each computation's callees are appended in
  // instruction order.
  for (size_t i = 0; i < out.size(); ++i) {
    for (const auto& instr : out[i]->instructions()) {
      for (const HloComputation* callee : ScheduledCallees(*instr)) {
        if (callee != nullptr && seen.insert(callee).second) out.push_back(callee);
      }
    }
  }
  return out;
}

void HloSchedule::set_sequence(const HloComputation* computation,
                               std::vector<const HloInstruction*> sequence) {
  auto [it, inserted] = sequences_.insert({computation, {}});
  if (inserted) order_.push_back(computation);
  it->second = std::move(sequence);
}

const std::vector<const HloInstruction*>& HloSchedule::sequence(
    const HloComputation* computation) const {
  static const std::vector<const HloInstruction*>* const kEmpty =
      new std::vector<const HloInstruction*>();
  auto it = sequences_.find(computation);
  return it == sequences_.end() ? *kEmpty : it->second;
}

namespace {

absl::Status VerifySequence(const HloComputation& computation,
                            const std::vector<const HloInstruction*>& sequence) {
  absl::flat_hash_map<const HloInstruction*, size_t> position;
  position.reserve(sequence.size());
  for (size_t i = 0; i < sequence.size(); ++i) {
    const HloInstruction* instr = sequence[i];
    if (instr->parent() != &computation) {
      return absl::InvalidArgumentError(
          absl::StrCat("schedule of computation ", computation.name(), " lists instruction ",
                       instr->name(), " of another computation at position ", i));
    }
    if (!position.insert({instr, i}).second) {
      return absl::InvalidArgumentError(absl::StrCat("schedule of computation ",
                                                     computation.name(), " lists instruction ",
                                                     instr->name(), " twice"));
    }
  }
  for (const auto& owned : computation.instructions()) {
    const HloInstruction* instr = owned.get();
    auto it = position.find(instr);
    if (it == position.end()) {
      return absl::InvalidArgumentError(absl::StrCat("schedule of computation ",
                                                     computation.name(), " misses instruction ",
                                                     instr->name()));
    }
    auto check_before = [&](const HloInstruction* input, absl::string_view what) {
      auto in = position.find(input);
      if (in != position.end() && in->second < it->second) return absl::OkStatus();
      return absl::InvalidArgumentError(absl::StrCat(
          "schedule of computation ", computation.name(), " places instruction ", instr->name(),
          " before its ", what, " ", input->name()));
    };
    for (const HloInstruction* op : instr->operands()) {
      absl::Status s = check_before(op, "operand");
      if (!s.ok()) return s;
    }
    for (const HloInstruction* pred : instr->control_predecessors()) {
      absl::Status s = check_before(pred, "control predecessor");
      if (!s.ok()) return s;
    }
  }
  if (sequence.size() != computation.instructions().size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "schedule of computation ", computation.name(), " has ", sequence.size(),
        " entries but the computation has ", computation.instructions().size(), " instructions"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status HloSchedule::Verify(const HloModule& module) const {
  for (const HloComputation* c : ComputationsNeedingSchedule(module)) {
    auto it = sequences_.find(c);
    if (it == sequences_.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("schedule has no sequence for computation ", c->name()));
    }
    absl::Status s = VerifySequence(*c, it->second);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

std::string HloSchedule::ToString() const {
  std::string out;
  for (const HloComputation* c : order_) {
    const auto& seq = sequences_.at(c);
    absl::StrAppend(&out, "computation ", c->name(), " (", seq.size(), " instructions)\n");
    for (size_t i = 0; i < seq.size(); ++i) {
      absl::StrAppend(&out, "  ", i, " ", seq[i]->name(), "\n");
    }
  }
  return out;
}

absl::Status ApplySchedule(HloModule* module, const HloSchedule& schedule) {
  absl::Status valid = schedule.Verify(*module);
  if (!valid.ok()) return valid;
  for (const HloComputation* c : schedule.computations()) {
    const auto& seq = schedule.sequence(c);
    if (seq.empty()) continue;
    if (!const_cast<HloComputation*>(c)->ReorderInstructions(seq)) {
      return absl::InternalError(absl::StrCat("schedule of computation '", c->name(),
                                              "' does not list each instruction once"));
    }
  }
  module->mutable_config()->is_scheduled = true;
  return absl::OkStatus();
}

}  // namespace xla
