// RngSeedExpander: XLA's `GetRngSeed` custom call (`u64[] custom-call()`,
// which XLA's RngExpander leaves to seed the generators it builds for
// `rng`) becomes a read of the program's RNG state:
//
//   s = u64[2] rng-get-and-update-state(), delta=1
//   seed = or(s[0], 1)
//
// XLA's runtime (RngSeedThunk) returns the caller's run-option seed, or,
// when that is 0 (unset), a random non-zero 64-bit value per execution.
// This runtime has no such run option, so the seed is the second case made
// reproducible: the low word of XLA's per-executable, per-device RNG state
// (the one rng-get-and-update-state advances, starting at 0x7012395), with
// bit 0 set so that it is never 0. Each call and each run advances the
// state, so successive runs get new seeds, and a reloaded artifact starts
// the sequence again. The evaluator computes the same value (its
// `GetRngSeed` reads EvalContext::TakeRngState(1)), so compiled programs
// match it.
//
// Run fails (InvalidArgument naming the instruction) on a GetRngSeed call
// with operands or a result other than u64[] / s64[]. Not thread-safe
// (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_RNG_SEED_EXPANDER_H_
#define XLA_HLO_TRANSFORMS_RNG_SEED_EXPANDER_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

// The custom-call target, "GetRngSeed".
inline constexpr absl::string_view kGetRngSeedTarget = "GetRngSeed";

class RngSeedExpander : public HloPass {
 public:
  absl::string_view name() const override { return "rng-seed-expander"; }
  // Returns whether a call was rewritten (errors: above).
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_RNG_SEED_EXPANDER_H_
