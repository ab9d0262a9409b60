// ReshapesToBitcasts ("reshapes-to-bitcasts"): reshapes that move no byte
// become bitcasts, so they cost no kernel and no buffer.
//
// After layout assignment every array is row-major, and a reshape between
// two row-major shapes of one element type keeps every element at its byte
// offset. The pass runs after fusion and replaces, outside fused
// computations,
//   * a `reshape` with row-major (or no) layouts on both sides, and
//   * a loop fusion whose fused computation only reshapes (or bitcasts) its
//     one parameter that way (what fusion makes of a reshape left alone:
//     the weight reshapes and the GEMM operand/result reshapes of
//     convolution-to-gemm, for example)
// by `bitcast(operand)`. Buffer assignment gives a bitcast its operand's
// buffer (alias_analysis.h), and the thunk emitter emits nothing for it.
// An instruction that is its computation's root, or an element of a root
// tuple, is kept: those buffers are the computation's results, which must
// not be the operand's (a parameter's, say). Idempotent. Not
// thread-safe.
#ifndef XLA_SERVICE_FUSION_RESHAPES_TO_BITCASTS_H_
#define XLA_SERVICE_FUSION_RESHAPES_TO_BITCASTS_H_

#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class ReshapesToBitcasts : public HloPass {
 public:
  absl::string_view name() const override { return "reshapes-to-bitcasts"; }
  // Never fails on a verified module; the Status return is the pass API.
  absl::StatusOr<bool> Run(HloModule* module) override;
};

// True when `instr` is a reshape, or a loop fusion of reshapes/bitcasts of
// its one parameter, that moves no byte (same element type, row-major or
// absent layouts, static shapes). Pure.
bool IsBitcastReshape(const HloInstruction& instr);

// True when the pass replaces `instr` (outside fused computations) by a
// bitcast: IsBitcastReshape, not its computation's root nor an element of a
// root tuple (those buffers are results), and no control edges. Pure.
bool BecomesBitcast(const HloInstruction& instr);

}  // namespace xla

#endif  // XLA_SERVICE_FUSION_RESHAPES_TO_BITCASTS_H_
