// Fusion cost model: which opcodes may be fused, which are expensive to
// recompute, and the size limits of one fusion.
//
// Every opcode has one FusionCostClass, read from a single table in
// fusion_cost_model.cc (elementwise opcodes not named there are cheap; other
// opcodes not named there are never fused, so a new opcode is safe by
// default). The passes in this folder (instruction_fusion,
// multi_output_fusion) and the analysis read only this file for such
// decisions. Pure functions over the IR; thread-safe.
#ifndef XLA_SERVICE_FUSION_FUSION_COST_MODEL_H_
#define XLA_SERVICE_FUSION_FUSION_COST_MODEL_H_

#include <cstdint>

#include "absl/strings/string_view.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/hlo/ir/hlo_opcode.h"

namespace xla {

enum class FusionCostClass : uint8_t {
  // Elementwise or data-movement op that costs about a load: may be fused
  // into any consumer and duplicated into several.
  kCheap,
  // Fusible, but recomputing it per consumer costs real work (transcendentals,
  // divide, gather): duplicated only where FusionMayDuplicate allows.
  kExpensive,
  // A reduction: the root of a kInput fusion; fused as a producer only in
  // the row-normalization case (see instruction_fusion.h). Never duplicated.
  kReduction,
  // May be a fusion root (its producers fused in) but never fused into a
  // consumer: reduce-window, dynamic-update-slice (updates in place).
  kRootOnly,
  // Stays outside every fusion and is no kernel of its own: parameter,
  // get-tuple-element, tuple, bitcast, constant (small constants are copied
  // into fusions, see FusionMayFuseConstant), after-all, ...
  kOutside,
  // Stays outside fusions and becomes its own thunk: dot, convolution, sort,
  // custom-call, control flow, collectives, I/O, random numbers, ...
  kNeverFuse,
};

// The class of `opcode` (one table lookup).
FusionCostClass FusionCostClassOf(HloOpcode opcode);

// True for ops that only move or select elements (broadcast, reshape,
// transpose, slice, pad, concatenate, copy, reverse, dynamic-slice, iota,
// bitcast, constant): recomputing one per read costs a load. The same table
// as FusionCostClassOf.
bool FusionRecomputeIsALoad(HloOpcode opcode);

// "cheap", "expensive", ... for messages and reports.
absl::string_view FusionCostClassName(FusionCostClass c);

// Size limits of one fusion. Plain data; copy freely.
struct FusionLimits {
  // Instructions in one fused computation (parameters not counted).
  int64_t max_instructions = 200;
  // Parameters (distinct operands) of one fusion.
  int64_t max_parameters = 64;
  // Longest row (product of the reduced trailing dimensions) a
  // row-normalization fusion may process in one row.
  int64_t max_row_length = 65536;
  // An expensive producer with at most this many elements may be duplicated
  // into several consumers.
  int64_t max_duplicated_expensive_elements = 64;
  // An expensive producer joins a fusion only if the fusion's largest
  // member has at most this many times its elements: a fused instruction is
  // evaluated once per element the fusion reads of it, so an rsqrt of a
  // [64] vector broadcast into a [1,112,112,64] fusion would run 12544
  // times per value. Kept out, it is a small kernel of its own. Per-row
  // values (dimensions that lead the largest member's, as layer norm's
  // rsqrt of the variance) still fuse: the kernel's inner loop does not
  // recompute them.
  int64_t max_expensive_expansion = 4;
  // Constants with at most this many elements are copied into fusions;
  // larger ones stay fusion parameters.
  int64_t max_fused_constant_elements = 16;
  // An arithmetic producer (anything but data movement: slices, pads,
  // reshapes, broadcasts, ...) of at least min_recomputed_elements elements
  // joins a fusion only if the fusion computes it at most this many times
  // per element (instruction_fusion.h): im2col's nine shifted slices of a
  // batch-norm's output, or a 3x3 reduce-window over it, would compute the
  // batch norm nine times per element; on its own it is computed once.
  int64_t max_recompute_factor = 4;
  int64_t min_recomputed_elements = 1024;
  // Arithmetic instructions (anything but data movement and constants, see
  // FusionRecomputeIsALoad) that one fusion may copy from producers it
  // shares with other consumers. Past it, a shared producer stays out and
  // is computed once, as a kernel of its own, and the fusion reads it: a
  // residual stream (add, convert, multiply, ... per layer) that every
  // layer's norm would otherwise recompute from the first layer on, one
  // more layer per fusion (quadratic code, and work, in the depth).
  int64_t max_duplicated_arithmetic = 32;
};

// True when `producer` may be recomputed inside each of `num_consumers`
// consumers: cheap ops always (iota, broadcast, add, ...); expensive ops
// when num_consumers <= 1 or the producer has at most
// limits.max_duplicated_expensive_elements elements; reductions, root-only,
// never-fuse and outside ops, and fusion instructions never.
bool FusionMayDuplicate(const HloInstruction& producer, int64_t num_consumers,
                        const FusionLimits& limits);

// True when the constant `constant` is small enough to be copied into a
// fused computation (an array of at most limits.max_fused_constant_elements
// elements with a literal). False for non-constants.
bool FusionMayFuseConstant(const HloInstruction& constant, const FusionLimits& limits);

}  // namespace xla

#endif  // XLA_SERVICE_FUSION_FUSION_COST_MODEL_H_
