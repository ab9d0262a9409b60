// Wraps a lone instruction that needs a kernel into a one-instruction fusion,
// so that every kernel goes through the host fusion emitter
// (host_fusion_emitter.h).
//
// Thread-safety: mutates the instruction's computation and module; not
// thread-safe.
#ifndef XLA_BACKENDS_GPU_CODEGEN_HOST_SINGLE_OP_FUSION_H_
#define XLA_BACKENDS_GPU_CODEGEN_HOST_SINGLE_OP_FUSION_H_

#include "absl/status/statusor.h"
#include "xla/hlo/ir/hlo_instruction.h"

namespace xla::gpu {

// True for the opcodes WrapInFusion accepts: elementwise ops, compare,
// select, clamp, convert, bitcast-convert, reduce-precision, copy, iota,
// broadcast, reshape, transpose, slice, pad, concatenate, reverse,
// dynamic-slice, dynamic-update-slice, reduce, scatter, convolution,
// reduce-window, gather, sort and topk. Dot (a GEMM thunk), select-and-scatter,
// rng and the like are not (the host emitters cannot emit them).
bool CanWrapInFusion(const HloInstruction& instr);

// Replaces `instr` (in a computation of a module) by a fusion instruction
// whose called computation holds a clone of it, with one parameter per
// distinct operand; the fusion's operands are those distinct operands in
// first-use order, its kind is kInput for reduce and scatter and kLoop
// otherwise, and its name is "wrapped_" + instr's name (made unique). All
// uses of `instr` move to the fusion and `instr` is removed (the pointer
// dangles afterwards). Returns the fusion. Errors: InvalidArgument when
// `instr` has no parent computation/module, or CanWrapInFusion is false
// (naming the opcode), or it has control edges.
absl::StatusOr<HloInstruction*> WrapInFusion(HloInstruction* instr);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_HOST_SINGLE_OP_FUSION_H_
