// TopKDecomposer: rewrites `topk(x), k=K, largest=L` into a stable sort of
// (x, iota) along the last dimension, followed by slices of the first K
// columns, so that every target's sort kernel runs it.
//
//   iota    = s32[..., n] iota(), iota_dimension=last
//   sorted  = (T[..., n], s32[..., n]) sort(x, iota), dimensions={last},
//             is_stable=true, to_apply=cmp   // cmp: compare(a, b) GT (LT
//                                            // when largest=false),
//                                            // type=TOTALORDER
//   values  = slice(gte(sorted, 0)), [0:K] on the last dimension
//   indices = slice(gte(sorted, 1)), [0:K]
//   topk    -> tuple(values, indices)
//
// For long rows (n >= 256) with a divisor c of n, 2k <= c < n, that makes
// it cheaper, the sort runs in two stages: each chunk of c elements is
// sorted with its indices and its first k kept, then the n/c*k candidates
// are sorted and sliced as above (chunked again while that pays). Work
// drops from about n^2/4 to about n*c/4 + (n/c*k)^2/4 steps with
// insertion-sort kernels (the host's): top-16 of 8192 x 128 rows took 3 s.
//
// XLA's TopK custom call (`custom-call(x), custom_call_target="TopK",
// called_computations={cmp}`, k the result's minor size) is decomposed the
// same way with cmp itself as the sort comparator, when cmp takes (value,
// value, s32, s32) scalars as a sort of (x, iota) needs; other TopK custom
// calls are left for the targets to refuse by name.
//
// TOTALORDER ranks NaNs and signed zeros as the evaluator's topk does, and
// the stable sort keeps the lower index first among equal keys, so results
// are bit-identical. A topk with control edges, of rank 0, or with a
// complex operand is left alone. So is a `topk` op (not the custom call)
// with k <= keep_topk_up_to_k, for a target with a one-pass top-k kernel
// (the host's, host_topk_kernel.cc); the default -1 decomposes every one.
// Not thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_TOPK_DECOMPOSER_H_
#define XLA_HLO_TRANSFORMS_TOPK_DECOMPOSER_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class TopKDecomposer : public HloPass {
 public:
  // keep_topk_up_to_k: see the file comment.
  explicit TopKDecomposer(int64_t keep_topk_up_to_k = -1) : keep_topk_up_to_k_(keep_topk_up_to_k) {}
  absl::string_view name() const override { return "topk-decomposer"; }
  // Fails only on malformed IR (k outside [0, n] or a result shape that is
  // not (T[..., k], s32[..., k])), naming the instruction.
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  int64_t keep_topk_up_to_k_;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_TOPK_DECOMPOSER_H_
