// Random arguments for a module's entry computation, for `xla_aot eval
// --random_inputs` and corpus tests.
//
// Floats are uniform in [-1, 1); integers uniform in [0, 8) (signed and
// unsigned alike, so they are valid sizes and shifts); pred is a fair coin.
// A parameter that feeds an index operand (dynamic-slice and
// dynamic-update-slice starts, gather and scatter indices, a conditional's
// branch index), directly or through reshape/convert/bitcast/broadcast/copy/
// slice, is drawn in [0, bound] where bound keeps every such use in range.
// Deterministic for a given module and seed. Thread-safe (pure).
#ifndef XLA_HLO_EVALUATOR_RANDOM_INPUTS_H_
#define XLA_HLO_EVALUATOR_RANDOM_INPUTS_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/types/literal.h"
#include "xla/types/random_literal.h"

namespace xla {

// One literal per entry parameter; a token parameter gets a token (it holds
// nothing). Errors for parameters of a kind that has no values (opaque, a
// token inside a tuple) and for unbounded dynamic dimensions.
absl::StatusOr<std::vector<Literal>> MakeRandomInputs(const HloModule& module, uint64_t seed);

// The seed of participant `participant`'s random inputs in a replicated run:
// `seed` itself for participant 0, a distinct mix for the others. Shared by
// `xla_aot eval --replicas=N --random_inputs` and the golden suite, so one
// reproduces the other.
inline uint64_t ParticipantSeed(uint64_t seed, int64_t participant) {
  return participant == 0 ? seed
                          : seed ^ (static_cast<uint64_t>(participant) * 0x9E3779B97F4A7C15ull);
}

}  // namespace xla

#endif  // XLA_HLO_EVALUATOR_RANDOM_INPUTS_H_
