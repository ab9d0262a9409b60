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

// One literal per entry parameter. Errors for parameters of a kind that has
// no values (token, opaque) and for unbounded dynamic dimensions.
absl::StatusOr<std::vector<Literal>> MakeRandomInputs(const HloModule& module, uint64_t seed);

}  // namespace xla

#endif  // XLA_HLO_EVALUATOR_RANDOM_INPUTS_H_
