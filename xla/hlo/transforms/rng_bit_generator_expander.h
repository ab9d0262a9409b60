// RngBitGeneratorExpander: rewrites every rng-bit-generator into plain HLO
// (iota, convert, add, multiply, xor, or, shifts, compare/select, reshape,
// concatenate, slice, bitcast-convert, broadcast, tuple) so fusion and the
// ordinary kernel emitters compile it for every target. The expansion is
// bit-exact with the evaluator (xla/hlo/evaluator/prng.h and rng_ops.cc
// define the algorithms and the bit layout, which follow XLA's own
// RngBitGeneratorExpander):
//   * rng_three_fry: ThreeFry-2x32-20, state (key, counter) as u64[2] (or a
//     longer u64[N] whose first two words are key and counter and whose
//     other words pass through unchanged); 64-bit elements take one block
//     each, narrower elements split one dimension in halves and take the two
//     words of a block;
//   * rng_philox and rng_default (or no algorithm): Philox-4x32-10 with a
//     128-bit counter; state u64[3] (key, counter low, counter high) or
//     u64[2] (key, counter low; the high word is then the key, and the new
//     state keeps only the new low word);
//   * the state may be u64 or s64 (same bits); bits may be any integer or
//     float type of 1 to 64 bits: floats get the raw bits, types narrower than
//     32 bits keep the low bits of a 32-bit draw.
// The generator rounds run on u32 arrays with one element per block; the
// words are then interleaved into the output layout with reshape,
// concatenate and slice. The replacement is a tuple (new_state, bits);
// TupleSimplifier folds it into its get-tuple-element users.
//
// Control edges of a replaced instruction move to the replacement tuple.
// Not thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_RNG_BIT_GENERATOR_EXPANDER_H_
#define XLA_HLO_TRANSFORMS_RNG_BIT_GENERATOR_EXPANDER_H_

#include "absl/status/statusor.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class RngBitGeneratorExpander : public HloPass {
 public:
  // With `leave_unsupported`, an instruction the checks below reject is left
  // as it is instead of failing the pass (the compiler pipeline uses this:
  // the target then refuses the instruction by name, as for any op it cannot
  // run).
  explicit RngBitGeneratorExpander(bool leave_unsupported = false)
      : leave_unsupported_(leave_unsupported) {}
  absl::string_view name() const override { return "rng-bit-generator-expander"; }

  // Expands every rng-bit-generator of every computation; returns true when
  // there was one. Fails with InvalidArgumentError (or UnimplementedError for
  // an unknown algorithm) naming the instruction when it is not of the form
  // above: a result that is not a (state, bits) tuple, a state that is not
  // u64/s64 [2] (or [3] for Philox), bits wider than 64 bits or not integer
  // or float. Every instruction is checked before the module is changed, so
  // on error the module is left as it was.
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  bool leave_unsupported_;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_RNG_BIT_GENERATOR_EXPANDER_H_
