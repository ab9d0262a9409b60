// TupleSimplifier: removes tuple packing that is immediately unpacked.
//
//   get-tuple-element(tuple(a, b, ...), index=i)      -> the i-th operand
//   tuple(gte(x, 0), gte(x, 1), ..., gte(x, n-1))      -> x   (x has n elements)
//
// The second rule needs every element of x, in order, with compatible
// shapes. Deterministic. Not thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_TUPLE_SIMPLIFIER_H_
#define XLA_HLO_TRANSFORMS_TUPLE_SIMPLIFIER_H_

#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class TupleSimplifier : public HloPass {
 public:
  absl::string_view name() const override { return "tuple-simplifier"; }
  // Never fails on a verified module.
  absl::StatusOr<bool> Run(HloModule* module) override;
};

// The instruction `instr` can be replaced by under the rules above, or
// nullptr.
HloInstruction* SimplifiedTupleValue(const HloInstruction& instr);

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_TUPLE_SIMPLIFIER_H_
