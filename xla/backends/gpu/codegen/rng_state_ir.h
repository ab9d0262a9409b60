// The body of a `rng-get-and-update-state` kernel, shared by the host and
// NVPTX fusion emitters (issue 28).
//
// XLA keeps one 128-bit RNG state per executable and device; the op returns
// the state as u64[2] (low word first) and adds `delta` (sign-extended to
// 128 bits) to it. Thunk emission gives the state a 16-byte constant
// allocation of its own (the runtime uploads a constant once per device and
// keeps it for the executable's life: see "rng-get-and-update-state" in
// docs/architecture.md), passed to the kernel as fused parameter 0; the
// kernel reads and advances it there.
//
// Concurrency: the low word advances with one atomic fetch-add, so two runs
// of the same executable on one device at once (two streams) never see the
// same low word; the carry into the high word is a second atomic add, exact
// when one run at a time crosses a 2^64 boundary of the low word (a program
// would need 2^64 / delta runs to get there). One kernel runs it on one
// thread.
//
// Thread-safety: emission mutates the builder's module (one thread per
// module).
#ifndef XLA_BACKENDS_GPU_CODEGEN_RNG_STATE_IR_H_
#define XLA_BACKENDS_GPU_CODEGEN_RNG_STATE_IR_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "llvm/IR/IRBuilder.h"
#include "xla/hlo/ir/hlo_instruction.h"

namespace xla::gpu {

// True when `root` is a rng-get-and-update-state: the fusion's kernel is
// then EmitRngStateUpdate's, whatever else the analysis would say.
bool IsRngStateRoot(const HloInstruction& root);

// Checks the fusion around `root` (one operand, the u64[2] state; a u64[2]
// or s64[2] result). Errors: Unimplemented prefixed "<emitter> fusion
// emitter: " naming the instruction.
absl::Status CheckRngStateFusion(absl::string_view emitter, const HloInstruction& fusion,
                                 const HloInstruction& root);

// At `b`'s insertion point: out[0..1] = the state at `state` (two i64
// words, low first), then the state += delta (mod 2^128).
void EmitRngStateUpdate(llvm::IRBuilder<>* b, llvm::Value* state, llvm::Value* out, int64_t delta);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_RNG_STATE_IR_H_
