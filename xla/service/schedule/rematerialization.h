// Rematerialization under a memory limit (XLA's HloRematerialization idea,
// on this project's memory model).
//
// Works on the scheduled entry computation, before buffer assignment. While
// the schedule's peak is above the limit (peak_memory.h's live buffer bytes,
// parameters and constants counted as 0, callees' peaks added at their
// callers, except that the entry's results count for the whole run, as
// buffer assignment gives them allocations of their own), it looks at the first position where the peak is reached and
// at the values live across it that it does not read there. A value is a
// candidate when it is cheap to compute again and recomputing it extends no
// other buffer's life:
//   * one array result, written by broadcast, iota, an elementwise op
//     (the opcode table's, plus select, clamp and convert), or a loop
//     fusion whose fused instructions are only those (and parameters,
//     constants, reshapes, bitcasts, transposes);
//   * every operand is a parameter or constant of the computation (0 bytes
//     in the model), or a buffer that is live anyway at the value's next
//     use after the peak;
//   * no control edges, not a result of the computation, every user reads
//     it directly (no tuple, get-tuple-element or bitcast in between).
// The candidate with the most bytes saved per element computed is cloned
// (name `<name>.remat`) just before its first use after the peak, and every
// use after the peak reads the clone. This repeats until the peak fits,
// nothing at the peak can be recomputed, or max_rematerializations clones
// were made. Results are unchanged: a clone computes the same values from
// the same operands.
//
// Not done (see docs/perf.md): computations other than the entry (while
// bodies, branches), moving values to host memory, and recomputing chains
// whose operands would have to be kept alive longer.
//
// Not thread-safe (mutates the module and the schedule).
#ifndef XLA_SERVICE_SCHEDULE_REMATERIALIZATION_H_
#define XLA_SERVICE_SCHEDULE_REMATERIALIZATION_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/service/schedule/hlo_schedule.h"

namespace xla {

struct RematerializationOptions {
  // The target for the schedule's peak (bytes, the figure above); 0 turns
  // the pass off (the figures are still computed).
  int64_t peak_limit_bytes = 0;
  // Stops after this many clones.
  int64_t max_rematerializations = 1000;
};

struct RematerializationResult {
  int64_t peak_before = 0;  // the schedule's peak (figure above) before the pass
  int64_t peak_after = 0;   // and after it
  int64_t rematerialized = 0;  // clones added
};

// Rematerializes in `module`'s entry computation, updating `schedule` (its
// entry sequence gets the clones). Returns the figures; a peak still above
// the limit is not an error (the caller's device-memory check reports it).
// Errors: `schedule` does not verify against `module`.
absl::StatusOr<RematerializationResult> Rematerialize(HloModule* module, HloSchedule* schedule,
                                                      const RematerializationOptions& options);

// Whether `instr` is cheap enough to compute twice (the first bullet above).
bool IsCheapToRecompute(const HloInstruction& instr);

}  // namespace xla

#endif  // XLA_SERVICE_SCHEDULE_REMATERIALIZATION_H_
