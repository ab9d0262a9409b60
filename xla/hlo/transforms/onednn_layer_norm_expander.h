// OneDnnLayerNormExpander: XLA:CPU's oneDNN layer-norm custom call
// (`__onednn$layernorm`, in programs dumped after XLA:CPU's optimizations;
// xla/hlo/proto/onednn_layer_norm_call.h says what it computes) becomes
// the plain ops it stands for, so that both targets compile it with their
// own reduction fusions and no oneDNN:
//
//   mean = sum(x) / C, d = x - mean, var = sum(d * d) / C,
//   y = d * rsqrt(var + epsilon) * scale + shift
//
// with the sums over the last dimension (length C), computed in f32 (f16
// and bf16 values converted, the result rounded once back).
//
// Run returns the reader's error, naming the instruction, for a call it
// refuses (InvalidArgument for a bad config, operand or epsilon;
// Unimplemented naming a rescale other than SCALE_AND_SHIFT or the fused
// operations), so such a program fails to compile rather than reaching
// thunk emission. Not thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_ONEDNN_LAYER_NORM_EXPANDER_H_
#define XLA_HLO_TRANSFORMS_ONEDNN_LAYER_NORM_EXPANDER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class OneDnnLayerNormExpander : public HloPass {
 public:
  // When `keep` names `__onednn$layernorm` the calls stay custom calls (for
  // a handler the runtime registers: `--allow_custom_calls`).
  explicit OneDnnLayerNormExpander(const std::vector<std::string>& keep = {});

  absl::string_view name() const override { return "onednn-layer-norm-expander"; }
  // Returns whether a call was rewritten (errors: above).
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  bool keep_call_;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_ONEDNN_LAYER_NORM_EXPANDER_H_
