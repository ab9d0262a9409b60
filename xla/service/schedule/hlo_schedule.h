// HloSchedule: a sequential order of instructions for each computation that
// owns buffers (the entry, while bodies and conditions, conditional branches
// and call targets, transitively). Fused computations and scalar reducers
// (`calls=` of fusion, `to_apply=` of reduce, sort, map, ...) run inside
// kernels and get no sequence.
//
// The schedule holds non-owning pointers into one HloModule; it must not
// outlive it, and the module must not gain or lose instructions while a
// schedule is in use. Const methods are thread-safe; mutation is not.
#ifndef XLA_SERVICE_SCHEDULE_HLO_SCHEDULE_H_
#define XLA_SERVICE_SCHEDULE_HLO_SCHEDULE_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "xla/hlo/ir/hlo_module.h"

namespace xla {

// The computations of `module` that own buffers, in a deterministic order:
// the entry first, then each callee in the order its first caller reaches it
// (depth first, following the schedule-independent instruction list). Only
// while (body, condition), conditional (branches) and call (to_apply) edges
// are followed. Thread-safe for a const module.
std::vector<const HloComputation*> ComputationsNeedingSchedule(const HloModule& module);

// The computations `caller` calls through the edges that
// ComputationsNeedingSchedule follows (while body and condition, conditional
// branches, call to_apply), in attribute order; empty for other opcodes.
std::vector<const HloComputation*> ScheduledCallees(const HloInstruction& caller);

class HloSchedule {
 public:
  HloSchedule() = default;

  // Sets (replacing) the sequence of `computation`.
  void set_sequence(const HloComputation* computation,
                    std::vector<const HloInstruction*> sequence);
  // The sequence of `computation`; empty when it has none.
  const std::vector<const HloInstruction*>& sequence(const HloComputation* computation) const;
  bool has_sequence(const HloComputation* computation) const {
    return sequences_.contains(computation);
  }
  // Computations with a sequence, in insertion order.
  const std::vector<const HloComputation*>& computations() const { return order_; }

  // Checks that every computation of ComputationsNeedingSchedule(module)
  // has a sequence and that each sequence lists every instruction of its
  // computation exactly once, operands and control predecessors first.
  // Errors name the computation and the instruction at fault.
  absl::Status Verify(const HloModule& module) const;

  // Text for schedule.txt: per computation, a header line and one line per
  // position: `  <index> <instruction name>`. Deterministic.
  std::string ToString() const;

 private:
  absl::flat_hash_map<const HloComputation*, std::vector<const HloInstruction*>> sequences_;
  std::vector<const HloComputation*> order_;
};

// Reorders the instruction list of every scheduled computation of `module`
// to its sequence (so the printed module shows the schedule) and sets the
// module's is_scheduled to true. Control edges are preserved. Fails, changing
// nothing, when `schedule` does not Verify against `module`. Not thread-safe.
absl::Status ApplySchedule(HloModule* module, const HloSchedule& schedule);

}  // namespace xla

#endif  // XLA_SERVICE_SCHEDULE_HLO_SCHEDULE_H_
