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
