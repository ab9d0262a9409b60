// Reducers on scalars for the fusion kernel emitters (host and NVPTX): a
// reduce's or scatter's to_apply computation emitted on register values
// through the elemental emitter, the init values, and the sequential
// reduction of one output element (row-major over the reduced dims,
// starting from the init value: the reference evaluator's order).
//
// Errors are Unimplemented, prefixed "<emitter> fusion emitter: " and
// naming the instruction (see FusionEmitterUnimplemented).
// Thread-safety: emission mutates the builder's module (one thread per
// module).
#ifndef XLA_BACKENDS_GPU_CODEGEN_REDUCTION_IR_H_
#define XLA_BACKENDS_GPU_CODEGEN_REDUCTION_IR_H_

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "llvm/IR/IRBuilder.h"
#include "xla/backends/gpu/codegen/elemental_ir_emitter.h"
#include "xla/backends/gpu/codegen/ir_array.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/ir/hlo_instruction.h"

namespace xla::gpu {

// The element generator of each fused instruction an emitter has built.
using FusedGenerators =
    absl::flat_hash_map<const HloInstruction*, ElementalIrEmitter::ElementGenerator>;

// Elements already generated in the current basic block, per (instruction,
// index components). A fused DAG that reuses a value (x * x, the rounds of a
// counter-based RNG) would otherwise emit the value's whole subtree once per
// use: IR exponential in the depth of the sharing. An entry is reused only
// while emission stays in the block that defined it (or when it is a
// constant or argument), so it always dominates the use. One cache per
// IRBuilder; not thread-safe.
class ElementCache {
 public:
  explicit ElementCache(llvm::IRBuilder<>* b) : b_(b) {}
  // The element of `instr` at `index`: cached, or gens->at(instr)(index).
  absl::StatusOr<llvm::Value*> Get(const FusedGenerators& gens, const HloInstruction* instr,
                                   const IrIndex& index);

 private:
  llvm::IRBuilder<>* b_;
  absl::flat_hash_map<std::pair<const HloInstruction*, std::vector<llvm::Value*>>, llvm::Value*>
      values_;
};

// A generator that looks up `gens->at(instr)` each time it is called
// (through `cache` when not null). Its copies are O(1), whereas copying the
// generator itself copies every operand generator it captured, recursively:
// a walk of the fused DAG as a tree, exponential in its sharing. Build
// operand lists for MakeElementGenerator from these. `gens` (and `cache`)
// must outlive the generator and hold `instr` by the time it is called.
ElementalIrEmitter::ElementGenerator ForwardingGenerator(const FusedGenerators* gens,
                                                         const HloInstruction* instr,
                                                         ElementCache* cache = nullptr);

// Emits `computation` (scalar parameters, a scalar or tuple-of-scalars root)
// on `args` (parameter i = args[i]); returns the root's values (the tuple's
// operands in order). Errors: a parameter without an argument, or an op the
// elemental emitter rejects.
absl::StatusOr<std::vector<llvm::Value*>> EmitScalarComputation(
    absl::string_view emitter, const HloComputation& computation,
    const std::vector<llvm::Value*>& args, ElementalIrEmitter& elemental);

// `hlo`'s to_apply (a reduce or scatter) on accumulators `acc` and new
// values `x`: returns as many values as `acc`. Errors: as
// EmitScalarComputation, or a result count other than acc.size().
absl::StatusOr<std::vector<llvm::Value*>> EmitReducerCombine(absl::string_view emitter,
                                                             const HloInstruction& hlo,
                                                             const std::vector<llvm::Value*>& acc,
                                                             const std::vector<llvm::Value*>& x,
                                                             ElementalIrEmitter& elemental);

// The N init values of a reduce of N inputs (operands N..2N-1), from their
// generators in `gens`. Errors: a malformed reduce (odd operand count, no
// to_apply), or an init generator's error.
absl::StatusOr<std::vector<llvm::Value*>> EmitReduceInits(absl::string_view emitter,
                                                          const HloInstruction& reduce,
                                                          const FusedGenerators& gens);

// The values of `reduce` at output `index`: loops over the reduced dims
// (ascending dims, row-major) folding the inputs' elements into
// accumulators (entry-block allocas) that start at the init values.
// Errors: as EmitReduceInits and EmitReducerCombine, or a reduced dim out
// of range.
absl::StatusOr<std::vector<llvm::Value*>> EmitSequentialReduce(absl::string_view emitter,
                                                               const HloInstruction& reduce,
                                                               const IrIndex& index,
                                                               const FusedGenerators& gens,
                                                               ElementalIrEmitter& elemental,
                                                               llvm::IRBuilder<>* b);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_REDUCTION_IR_H_
