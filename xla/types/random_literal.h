// Random values for arrays and tuples: inputs for `xla_aot eval` and
// `xla_aot run --random_inputs`, and for tests.
//
// Floats (and complex parts) are uniform in [-1, 1); integers uniform in
// [0, 8), or in [0, index_bound] when index_bound >= 0, capped at the type's
// maximum; pred is a fair coin. Deterministic for a given shape and seed.
// Thread-safe (pure).
#ifndef XLA_TYPES_RANDOM_LITERAL_H_
#define XLA_TYPES_RANDOM_LITERAL_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "xla/types/literal.h"
#include "xla/types/shape.h"

namespace xla {

// Errors for token/opaque elements and unbounded dynamic dimensions.
absl::StatusOr<Literal> MakeRandomLiteral(const Shape& shape, uint64_t seed,
                                          int64_t index_bound = -1);

// Values in [low, high) instead (a benchmark's .inputs.json ranges, as
// numpy's default_rng draws them): floats and both complex parts uniform in
// [low, high); integers uniform in [ceil(low), ceil(high) - 1], which must
// fit the type; pred a fair coin. Errors as above, and for high <= low or
// an integer range with no value of the type in it.
absl::StatusOr<Literal> MakeRandomLiteralInRange(const Shape& shape, uint64_t seed, double low,
                                                 double high);

}  // namespace xla

#endif  // XLA_TYPES_RANDOM_LITERAL_H_
