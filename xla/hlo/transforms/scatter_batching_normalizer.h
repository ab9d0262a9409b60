// ScatterBatchingNormalizer: rewrites a scatter with batching dimensions
// (input_batching_dims / scatter_indices_batching_dims, as JAX's vmap of a
// scatter produces) into the plain scatter the kernel emitters run.
//
// A batching pair (operand dimension o, indices dimension s) says: the
// update at indices position p goes to operand index p[s] along o. That is
// an explicit index whose value is the position along s, so:
//
//   * the indices get one more index-vector entry per pair: an iota along s
//     (of the indices' shape with the index vector dimension of size 1),
//     concatenated along index_vector_dim (made explicit first when it is
//     the implicit trailing one);
//   * scatter_dims_to_operand_dims gains o for each pair, and o joins
//     inserted_window_dims (the window spans one element there, as a
//     batching dimension's does);
//   * the batching lists become empty; indices_are_sorted is dropped (the
//     extra entries can break the order); unique_indices still holds.
//
// The result is the same for every input (the evaluator runs both forms).
// Index types other than s32 and s64 are widened to s64 first, so that the
// iota holds every position. Variadic scatters are rewritten the same way.
//
// Not thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_SCATTER_BATCHING_NORMALIZER_H_
#define XLA_HLO_TRANSFORMS_SCATTER_BATCHING_NORMALIZER_H_

#include "absl/status/statusor.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class ScatterBatchingNormalizer : public HloPass {
 public:
  absl::string_view name() const override { return "scatter-batching-normalizer"; }
  // Returns whether a scatter was rewritten. InvalidArgument naming the
  // scatter when its batching lists differ in length, name the index
  // vector dimension, or its operand count is even.
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_SCATTER_BATCHING_NORMALIZER_H_
