// Structured control flow for the fusion kernel emitters (host and NVPTX):
// counted loops, one-armed ifs and allocas in the entry block, emitted at
// the builder's insertion point inside an existing function.
//
// Thread-safety: emission mutates the builder's function (one thread per
// LLVM module).
#ifndef XLA_BACKENDS_GPU_CODEGEN_IR_LOOPS_H_
#define XLA_BACKENDS_GPU_CODEGEN_IR_LOOPS_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "llvm/IR/IRBuilder.h"

namespace xla::gpu {

// What LLVM's unrollers may do with a loop EmitForLoop emits.
enum class LoopUnroll {
  // No loop metadata: LLVM's cost model decides (full unrolling of short
  // constant trip counts included).
  kAuto,
  // `llvm.loop.unroll.disable` on the latch: for loops whose body is itself
  // a loop (a vectorized one, say) and whose short constant trip count
  // would otherwise make LLVM copy that inner loop once per iteration,
  // which multiplies compile time and code size for one branch saved.
  kDisabled,
};

// Emits `for (i = lo; i < hi; i += step) body(i)` with an i64 induction
// variable named `name` (signed compare; the add is nuw nsw). The body runs
// with the builder inside the loop; afterwards the builder is at the loop's
// exit. `unroll` sets the latch's loop metadata. Fails only with body's
// error (the IR is then incomplete).
absl::Status EmitForLoop(llvm::IRBuilder<>* b, llvm::Value* lo, llvm::Value* hi,
                         llvm::Value* step, const std::string& name,
                         const std::function<absl::Status(llvm::Value*)>& body,
                         LoopUnroll unroll = LoopUnroll::kAuto);

// Emits `if (cond) then()`; afterwards the builder is after the if. Fails
// only with then's error.
absl::Status EmitIfThen(llvm::IRBuilder<>* b, llvm::Value* cond,
                        const std::function<absl::Status()>& then);

// An alloca of `count` elements of `type` (a single element when `count` is
// null) at the start of the entry block of the builder's function, so it is
// not re-executed in loops.
llvm::AllocaInst* EmitEntryAlloca(llvm::IRBuilder<>* b, llvm::Type* type, llvm::Value* count,
                                  const std::string& name);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_IR_LOOPS_H_
