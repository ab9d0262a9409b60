// SelectAndScatterExpander ("select-and-scatter-expander"): rewrites a
// select-and-scatter into a reduce-window that finds each window's
// selected element and a scatter that adds the source there, so that the
// op runs on whatever lowers those two. ComplexExpander runs it on the
// select-and-scatters whose operand is complex (their select computation
// compares whole complex values, e.g. through real, imag or abs, which
// XLA:CPU accepts), whose reduce-window and scatter it then splits into
// real parts like any other; real ones keep the targets' own kernels.
//
// For operand O[d...] (n elements, n < 2^31), source S[w...] and init I:
//   1. idx = s32 iota of O's linear indices (reshaped to d...);
//   2. (v, k) = reduce-window((O, idx), (I, -1)) with O's window and the
//      reducer (a, i, b, j) -> keep ? (a, i) : (b, j), keep = j < 0 or
//      (i >= 0 and select(a, b)): a left fold in row-major window order
//      from the "no element" init, which is the select-and-scatter's
//      "first element, then replace it with each later one the select does
//      not keep" (XLA's semantics, ties included); padding never wins;
//   3. k's coordinates (k / stride_d mod d_d; a window of padding alone
//      has k = -1 and gets d_d, out of bounds, which scatter skips);
//   4. scatter(broadcast(I), coordinates, S), one point per window, with
//      the scatter computation given (source, current) as XLA's evaluator
//      gives it (the scatter op passes (current, update), so the
//      parameters are swapped unless the computation is a plain add).
//
// Not thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_SELECT_AND_SCATTER_EXPANDER_H_
#define XLA_HLO_TRANSFORMS_SELECT_AND_SCATTER_EXPANDER_H_

#include "absl/status/statusor.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class SelectAndScatterExpander : public HloPass {
 public:
  // complex_operands_only: rewrite only the select-and-scatters whose
  // operand is complex (as ComplexExpander uses it); otherwise every one.
  explicit SelectAndScatterExpander(bool complex_operands_only = true)
      : complex_operands_only_(complex_operands_only) {}

  absl::string_view name() const override { return "select-and-scatter-expander"; }
  // Returns whether one was rewritten. InvalidArgument naming the
  // instruction when its operand has 2^31 elements or more (the s32
  // iota's limit) or is not an array with a window of its rank.
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  bool complex_operands_only_;
};

// Rewrites the one select-and-scatter `instr` as above, replaces its uses
// and removes it (the reducer, and a swapped scatter computation when one
// is needed, are added to the module). Errors as Run, before any change.
// Not thread-safe (mutates the module).
absl::Status ExpandSelectAndScatter(HloInstruction* instr);

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_SELECT_AND_SCATTER_EXPANDER_H_
