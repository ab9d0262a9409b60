// RaggedDotExpander: rewrites `ragged-dot` (the grouped GEMM of
// mixture-of-experts layers) into dots, masks and a reduction that every
// target runs, for all three ragged modes (see the evaluator's
// ragged_dot_op.cc for the semantics, group_sizes' leading dimensions
// included).
//
// The groups are consecutive runs of the lhs ragged dimension r. The pass
// first computes each group's [start, end) from group_sizes (end = the
// running sum, as a reduction over a [.., g, g] lower-triangular select), and
// a position is in group g when start_g <= x < end_g. Then, by mode:
//
//   non-contracting  dot(lhs, rhs) with rhs's group dimension kept as a free
//                    dimension: [b..., m..., n... with g among them]; each
//                    element is kept where its row's r-coordinate is in
//                    group g (a select), and g is summed away. Exact: one
//                    group survives per element, so only zeros are added.
//   contracting      lhs and rhs are broadcast to a leading g dimension and
//                    each keeps only the contracting positions of group g
//                    (selects); the dot batched over g gives [g, b..., m...,
//                    n...], the result, directly.
//   batch            the plain dot, with the elements whose r-coordinate is
//                    past the last group's end set to zero.
//
// Cost: the non-contracting and contracting forms do g times the work of a
// dot of the same operands (every row meets every group's matrix, and the
// output or operands are g times larger); fine for the few experts of a
// MoE layer, not a replacement for a grouped GEMM kernel. group_sizes must
// be non-negative (XLA's requirement); with negative sizes groups overlap and
// the result is unspecified (the evaluator takes the first group).
//
// A ragged-dot whose attributes do not fit its operands is refused with an
// InvalidArgument naming the instruction. Not thread-safe (mutates the
// module).
#ifndef XLA_HLO_TRANSFORMS_RAGGED_DOT_EXPANDER_H_
#define XLA_HLO_TRANSFORMS_RAGGED_DOT_EXPANDER_H_

#include "absl/status/statusor.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class RaggedDotExpander : public HloPass {
 public:
  absl::string_view name() const override { return "ragged-dot-expander"; }
  // Returns whether a ragged-dot was expanded. InvalidArgument naming the
  // instruction when its dimension numbers, group dimension or group_sizes
  // shape do not fit its operands (one lhs ragged dimension; one rhs group
  // dimension exactly in the non-contracting mode; group_sizes [g] or
  // [outer dims..., g]).
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_RAGGED_DOT_EXPANDER_H_
