// InstructionFusion ("fusion"): producer-consumer fusion of elementwise,
// shape and reduction ops into `fusion` instructions.
//
// Which computations: the entry, and transitively the bodies and conditions
// of `while`, the branches of `conditional` and the callees of `call`.
// Reducers, comparators, scatter/map combiners and fused computations are
// never rewritten.
//
// How, per computation (one post order, no quadratic rescans):
//   * Instructions are visited users-first (reverse post order). An
//     instruction that is still needed outside fusions and whose cost class
//     (fusion_cost_model.h) is kCheap, kExpensive, kReduction or kRootOnly,
//     or an existing kLoop/kInput fusion, becomes the root of a new fusion.
//   * Its producers are then pulled in, users before producers. A producer
//     joins when it is fusible (cheap, expensive, a small constant, a
//     single-output kLoop fusion without reductions, or a reduce in the
//     row-normalization case below) and either all its users already belong
//     to this fusion (it is absorbed) or FusionMayDuplicate allows copying
//     it (it stays outside for its other users too). Expensive producers with
//     several users are therefore not duplicated and become fusion roots of
//     their own. The fusion never exceeds FusionLimits::max_instructions
//     instructions or max_parameters parameters, and copies at most
//     max_duplicated_arithmetic arithmetic instructions (not data movement
//     or constants) from producers that stay outside for other users: past
//     that, a shared producer is read, not recomputed (a transformer's
//     residual stream would otherwise be recomputed from the first layer in
//     every layer's norm).
//   * Recomputation: a fused value is computed once per read, so each
//     member's evaluations are counted (the root's elements; a producer's,
//     the reads of its users in the fusion: a reduce-window reads its window
//     per value, a reduce its reduced elements; row kernels compute a
//     reduce or a per-row value once per element of their own). An
//     arithmetic producer (not data movement: slice, pad, reshape,
//     broadcast, concatenate, ...) of at least min_recomputed_elements
//     elements whose evaluations exceed max_recompute_factor times its
//     elements stays out and becomes a kernel of its own (im2col's nine
//     shifted slices of a batch norm's output, a 3x3 reduce-window).
//   * Parameters, get-tuple-element, tuple, bitcast and large constants stay
//     outside (as fusion parameters); so does a reshape that moves no byte
//     and is not a result of the computation, when nothing fuses it as a
//     producer (it roots no fusion; reshapes-to-bitcasts makes it a bitcast,
//     and its producers keep their own shape); dot, convolution, sort, custom calls,
//     control flow and side-effecting ops are never fused; instructions with
//     control edges are left alone.
//   * Row normalization: a `reduce` whose reduced dimensions are exactly the
//     trailing dimensions of its operand (shape D = [rows..., cols...], row
//     length = product(cols) <= max_row_length, single array result) may be
//     fused into a consumer when every fused instruction that depends on it
//     is (a) elementwise of row shape [rows...], (b) a broadcast of such a
//     value back to D with dimensions={0..len(rows)-1}, (c) elementwise of
//     shape D, or (d) another row reduction of a D-shaped value with the
//     same reduced dimensions. Such a fusion processes one row at a time:
//     its reductions (in dependency order), then its outputs. Softmax and
//     layer norm become one fusion each.
//   * Existing fusions: a fusion root or producer that is itself a fusion is
//     inlined, so fusing into a fusion merges the two.
// Output: `fusion(operands...)`, kind=kInput when the fused computation
// contains a reduce, otherwise kLoop, calling a new computation named
// `fused_<root name>` (unique in the module) whose parameters are the
// operands in order. Semantics are preserved exactly (same ops, same order
// of evaluation per element).
//
// Errors: Internal when a rewrite step fails (an IR invariant broke); the
// module is then unspecified. Not thread-safe: one module at a time.
#ifndef XLA_SERVICE_FUSION_INSTRUCTION_FUSION_H_
#define XLA_SERVICE_FUSION_INSTRUCTION_FUSION_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/hlo/transforms/hlo_pass.h"
#include "xla/service/fusion/fusion_cost_model.h"
#include "xla/service/fusion/fusion_util.h"

namespace xla {

class InstructionFusion : public HloPass {
 public:
  explicit InstructionFusion(FusionLimits limits = FusionLimits()) : limits_(limits) {}

  absl::string_view name() const override { return "fusion"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  FusionLimits limits_;
};

}  // namespace xla

#endif  // XLA_SERVICE_FUSION_INSTRUCTION_FUSION_H_
