// Row reductions with independent accumulators ("lanes") for the host
// fusion emitter.
//
// A sequential reduction (EmitSequentialReduce: one accumulator, the
// evaluator's order) carries a floating-point dependency from each element
// to the next, so LLVM may not vectorize it: the loop runs at the latency of
// one add per element. When the reducer is associative and commutative
// (add, multiply, maximum or minimum of f32/f64), EmitLaneReduce instead
// keeps L accumulators in one <L x T> vector: element c of the reduced row
// goes to lane c mod L; the loop body computes L consecutive elements (the
// fused element-wise work feeding the reduce included) as scalars into a
// build-vector, which LLVM's SLP vectorizer (on in the host pipeline,
// host_object_compiler.h) widens into vector loads and arithmetic, and
// folds it into the accumulators with one vector op. The lanes are then
// combined in a fixed pairwise order (lane 0 holds the init value, the
// others start at the reducer's exact identity), and the last cols mod L
// elements are folded sequentially. Several such vectors may run side by
// side (EmitLaneReduce's `vectors`). The result depends only on the shapes and L: the same bits
// on every run, thread count and target CPU, but not the evaluator's bits
// for add and multiply (maximum and minimum are exact, up to which NaN is
// returned).
//
// Errors are Unimplemented, prefixed "<emitter> fusion emitter: " and
// naming the instruction (see FusionEmitterUnimplemented).
// Thread-safety: emission mutates the builder's module (one thread per
// module); ReassociableReducer and ReductionLanes are pure.
#ifndef XLA_BACKENDS_GPU_CODEGEN_HOST_LANE_REDUCE_IR_H_
#define XLA_BACKENDS_GPU_CODEGEN_HOST_LANE_REDUCE_IR_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "llvm/IR/IRBuilder.h"
#include "xla/backends/gpu/codegen/elemental_ir_emitter.h"
#include "xla/backends/gpu/codegen/ir_array.h"
#include "xla/backends/gpu/codegen/reduction_ir.h"
#include "xla/hlo/ir/hlo_instruction.h"

namespace xla::gpu {

// The reducer's opcode (kAdd, kMultiply, kMaximum or kMinimum) when `reduce`
// is a one-input f32 or f64 reduce whose to_apply root is that op applied
// to its two parameters (either order); nullopt for anything else (variadic
// reduces, other types, compound or non-associative reducers).
std::optional<HloOpcode> ReassociableReducer(const HloInstruction& reduce);

// How many lanes EmitLaneReduce uses for `reduce` given `vector_bytes` of
// accumulators: vector_bytes / element bytes when ReassociableReducer
// accepts it and that is at least 2, else 0 (reduce sequentially).
int64_t ReductionLanes(const HloInstruction& reduce, int64_t vector_bytes);

// The value of `reduce` at output `index` (its kept dims), folding with
// `vectors` independent vectors of `lanes` accumulators (at most
// cols / lanes of them): chunk j of `lanes` consecutive elements folds into
// vector j mod `vectors`, so a reducer with a long latency (maximum's NaN
// and signed-zero rule, about 13 cycles per step) runs `vectors` chains at
// once; the vectors are then combined pairwise, lane by lane, before the
// lanes are; the last cols mod (lanes * vectors) elements fold
// sequentially. The result depends only on the shapes, `lanes` and
// `vectors`. Falls back to
// EmitSequentialReduce when lanes < 2, when the reducer is not
// reassociable, when the reduced dims are not the input's trailing dims, or
// when a row has fewer than `lanes` elements. Errors: as
// EmitSequentialReduce.
absl::StatusOr<std::vector<llvm::Value*>> EmitLaneReduce(absl::string_view emitter,
                                                         const HloInstruction& reduce,
                                                         const IrIndex& index,
                                                         const FusedGenerators& gens,
                                                         ElementalIrEmitter& elemental,
                                                         llvm::IRBuilder<>* b, int64_t lanes,
                                                         int64_t vectors = 1);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_HOST_LANE_REDUCE_IR_H_
