// TeSoftmaxExpander: Transformer Engine's scaled-softmax custom calls
// (`te_scaled_softmax_forward_ffi`, its backward, masked and
// upper-triangular forms; xla/hlo/proto/te_softmax_call.h says what each
// computes) become the plain ops they stand for, so that both targets
// compile them with their own reduction fusions and no FFI handler:
//
//   forward:  v = s * x (masked: -10000 where the mask byte is 1; causal:
//             -inf above the diagonal), m = max(v), e = exp(v - m),
//             y = e / sum(e) (masked: 0 in rows whose m is -10000)
//   backward: (causal: y = 0 above the diagonal) g = dy * y,
//             dx = s * (g - y * sum(g))
//
// with max and sum reductions over the last dimension, computed in f32
// (f16 and bf16 operands are converted, the result rounded once back).
//
// Run returns the reader's InvalidArgument, naming the instruction and the
// attribute or operand, for a call it cannot read (a missing or non-float
// scale_factor, wrong operand counts, types or mask shapes), so such a
// program fails to compile rather than reaching thunk emission. Not
// thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_TE_SOFTMAX_EXPANDER_H_
#define XLA_HLO_TRANSFORMS_TE_SOFTMAX_EXPANDER_H_

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class TeSoftmaxExpander : public HloPass {
 public:
  // Calls to the targets in `keep` stay custom calls (for a handler the
  // runtime registers: `--allow_custom_calls`).
  explicit TeSoftmaxExpander(std::vector<std::string> keep = {})
      : keep_(keep.begin(), keep.end()) {}

  absl::string_view name() const override { return "te-softmax-expander"; }
  // Returns whether a TE softmax call was rewritten (errors: above).
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  std::set<std::string, std::less<>> keep_;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_TE_SOFTMAX_EXPANDER_H_
