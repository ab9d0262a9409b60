// While-loop trip-count analysis and the pass that records it.
//
// A loop has a known trip count when its state is a tuple and one element is
// an integer induction variable that
//   * starts at a constant (the while operand is a tuple instruction with a
//     scalar integer constant there, or a constant tuple),
//   * is updated by the body as gte(param, i) + C or gte(param, i) - C
//     (C a scalar integer constant),
//   * is tested by the condition's root: compare(gte(param, i), K) or
//     compare(K, gte(param, i)) with direction LT, LE, GT, GE, NE or EQ,
//     K a scalar integer constant,
// and no value it takes wraps around its integer type.
#ifndef XLA_HLO_TRANSFORMS_WHILE_LOOP_TRIP_COUNT_H_
#define XLA_HLO_TRANSFORMS_WHILE_LOOP_TRIP_COUNT_H_

#include <cstdint>
#include <optional>
#include <string>

#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

// The number of times `while_instr`'s body runs, when the pattern above
// matches; nullopt otherwise (also for loops that would never end). Reads
// only the loop, its operand and its computations; thread-safe on a module
// nobody mutates.
std::optional<int64_t> ComputeWhileTripCount(const HloInstruction& while_instr);

// The backend_config text recording a trip count:
// {"known_trip_count":{"n":"N"}}.
std::string KnownTripCountConfig(int64_t n);

// The trip count recorded in `loop`'s backend_config in that form (by
// WhileLoopTripCountAnnotator, before fusion hid the pattern), or nullopt
// when there is none or it does not parse. Pure; thread-safe.
std::optional<int64_t> RecordedTripCount(const HloInstruction& loop);

// Annotates every while loop whose trip count is known (and that has no
// backend_config yet) with backend_config=KnownTripCountConfig(n).
// Deterministic. Not thread-safe (mutates the module).
class WhileLoopTripCountAnnotator : public HloPass {
 public:
  absl::string_view name() const override { return "while-loop-trip-count-annotator"; }
  // Never fails.
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_WHILE_LOOP_TRIP_COUNT_H_
