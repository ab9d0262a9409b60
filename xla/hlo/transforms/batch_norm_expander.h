// BatchNormExpander: rewrites batch-norm-training, batch-norm-inference and
// batch-norm-grad into reduce / elementwise / broadcast instructions, so
// later passes, the evaluator and the backends never see them.
//
// With F the size of dimension feature_index of the operand x, N the number
// of elements per feature (elements of x / F), and every per-feature vector
// broadcast along feature_index:
//   training(x, scale, offset):
//     mean = sum(x) / N, var = sum((x - mean)^2) / N   (biased variance)
//     out  = (x - mean) * scale * rsqrt(var + epsilon) + offset
//     result (out, mean, var)
//   inference(x, scale, offset, mean, var): out as above, given mean and var
//   grad(x, scale, mean, var, grad_out):
//     inv = rsqrt(var + epsilon), c = x - mean
//     grad_offset  = sum(grad_out)
//     grad_scale   = sum(grad_out * c) * inv
//     grad_operand = scale * inv * (grad_out - grad_offset / N
//                                   - c * sum(grad_out * c) / (N * (var + epsilon)))
//     result (grad_operand, grad_scale, grad_offset)
// Sums reduce every dimension but feature_index with an add computation the
// pass creates (one per element type per run). bf16 and f16 operands are
// computed in f32 and the results converted back; other float types compute
// in their own type. Instructions with control edges are left alone.
// Not thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_BATCH_NORM_EXPANDER_H_
#define XLA_HLO_TRANSFORMS_BATCH_NORM_EXPANDER_H_

#include "absl/status/statusor.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class BatchNormExpander : public HloPass {
 public:
  absl::string_view name() const override { return "batch-norm-expander"; }
  // Fails on malformed batch-norm instructions (wrong operand count,
  // feature_index out of range, non-float operand), naming the instruction;
  // the verifier rejects those first in practice.
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_BATCH_NORM_EXPANDER_H_
