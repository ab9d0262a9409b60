// ElidedConstantFiller: gives the constants whose values the HLO text
// elided (`constant({...})`, Literal::elided()) invented values, so that a
// dumped benchmark program compiles, evaluates and runs. The results are
// then not the real model's: callers record or print that they invented
// values (the artifact's payload.invented_constants, `xla_aot run`'s
// warning).
//
// One transform for every path (xla_aot compile through
// CompileOptions::elided_constants, xla_aot eval, xla_aot run --reference),
// so they agree bit for bit: in kRandom mode each constant's values depend
// only on its instruction name, its shape (layout ignored) and the seed
// (InventedConstantSeed), not on the order or number of other constants.
//
// Thread-safety: the functions are pure except that FillElidedConstants
// mutates `module` (not thread-safe on the same module).
#ifndef XLA_HLO_TRANSFORMS_ELIDED_CONSTANT_FILLER_H_
#define XLA_HLO_TRANSFORMS_ELIDED_CONSTANT_FILLER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/types/literal.h"
#include "xla/types/shape.h"

namespace xla {

enum class ElidedConstantsMode {
  kError,   // refuse a module with elided constants (the default)
  kZeros,   // every element zero (false for pred)
  kRandom,  // floats in [-1, 1), integers in [0, 8), pred a fair coin
};

// "error", "zeros", "random".
absl::string_view ElidedConstantsModeName(ElidedConstantsMode mode);
// The inverse of ElidedConstantsModeName; nullopt for any other text.
std::optional<ElidedConstantsMode> ParseElidedConstantsMode(absl::string_view text);

struct ElidedConstantsOptions {
  ElidedConstantsMode mode = ElidedConstantsMode::kError;
  uint64_t seed = 0;  // kRandom only
  // The file name kError's message names ("model.hlo:57: ...", the line
  // from the constant's HloInstruction::source_location when it has one).
  std::string source_name = "<text>";
};

// The PRNG seed of constant `name` of `shape` in kRandom mode: a fixed
// 64-bit hash (FNV-1a, then a SplitMix64 finalizer) of the name, the shape
// printed without layout, and `seed`. Stable across runs and builds.
uint64_t InventedConstantSeed(absl::string_view name, const Shape& shape, uint64_t seed);

// The values constant `name` of `shape` gets in `mode` (kZeros or kRandom;
// tuples element by element). Errors: InvalidArgument for kError, for an
// unbounded dynamic dimension, for token or opaque elements in kRandom;
// ResourceExhausted when the shape does not fit in memory.
absl::StatusOr<Literal> InventConstant(absl::string_view name, const Shape& shape,
                                       ElidedConstantsMode mode, uint64_t seed);

// Replaces the literal of every elided constant in `module` (all
// computations) with InventConstant's values. Returns the names of the
// constants filled, in computation and instruction order (empty when none
// was elided; the module is then untouched).
// Errors: in kError mode, InvalidArgument naming the first elided constant
// (source_name:line when the parser recorded it), its shape, how many others
// there are, and the flag that invents them; InventConstant's errors,
// naming the constant.
absl::StatusOr<std::vector<std::string>> FillElidedConstants(HloModule* module,
                                                             const ElidedConstantsOptions& options);

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_ELIDED_CONSTANT_FILLER_H_
