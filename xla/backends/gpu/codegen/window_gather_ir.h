// Element emitters for the ops whose element is a loop of its own, shared
// by the fusion kernel emitters: convolution, reduce-window and gather.
// Each computes the element (or, for a variadic reduce-window, the values)
// at one output index from the generators of the instruction's operands in
// `gens`, following the reference evaluator exactly:
//   * convolution (xla/hlo/evaluator/convolution_op.cc): any dim_labels,
//     window strides, padding (negative crops), lhs/rhs dilation, reversal,
//     feature_group_count and batch_group_count. Float results accumulate
//     in f64 (products and sums, no FMA) in the evaluator's order (kernel
//     taps row-major, then input features) and round once to the result
//     type (f64 -> narrow goes through f32 as the evaluator's SetDouble
//     does), so results are bit-identical; integer ones wrap in 64 bits.
//   * reduce-window (reduce_ops.cc): window positions row-major, positions
//     on padding or between dilated elements skipped, starting from the
//     init values; reversal is ignored, as there.
//   * select-and-scatter (reduce_ops.cc): the selection per source element;
//     the kernel applies scatter(source, output[selected]) in source order.
//   * gather (indexing_ops.cc): start indices clamped into
//     [0, dim - slice_size], offset_dims, collapsed_slice_dims,
//     start_index_map, index_vector_dim and operand/start-indices batching
//     dims.
// Errors are Unimplemented/InvalidArgument prefixed "<emitter> fusion
// emitter: " and naming the instruction (missing or malformed attributes,
// complex types). Emission mutates the builder's module: not thread-safe.
#ifndef XLA_BACKENDS_GPU_CODEGEN_WINDOW_GATHER_IR_H_
#define XLA_BACKENDS_GPU_CODEGEN_WINDOW_GATHER_IR_H_

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "llvm/IR/IRBuilder.h"
#include "xla/backends/gpu/codegen/elemental_ir_emitter.h"
#include "xla/backends/gpu/codegen/ir_array.h"
#include "xla/backends/gpu/codegen/reduction_ir.h"
#include "xla/hlo/ir/hlo_instruction.h"

namespace xla::gpu {

// The element of convolution `conv` at output `index`.
absl::StatusOr<llvm::Value*> EmitConvolutionElement(absl::string_view emitter,
                                                    const HloInstruction& conv,
                                                    const IrIndex& index,
                                                    const FusedGenerators& gens,
                                                    llvm::IRBuilder<>* b);

// The elements of convolution `conv` at output `index` for every output
// feature o in [o0, o1) (index's output-feature component is ignored):
// calls `write(o, value)` for each, after the whole window. The loop over
// o is innermost and unit-stride in HWIO kernels / NHWC inputs, so it
// vectorizes while each element keeps the evaluator's summation order
// (bit-identical to EmitConvolutionElement). The window-tap and
// input-feature loops around it carry `llvm.loop.unroll.disable`, so LLVM
// does not copy the vectorized loop once per tap. Accumulators: an
// entry-block array of `max_block` >= o1 - o0 elements. Errors: as
// EmitConvolutionElement, or write's.
absl::Status EmitConvolutionFeatureBlock(
    absl::string_view emitter, const HloInstruction& conv, const IrIndex& index,
    llvm::Value* o0, llvm::Value* o1, int64_t max_block, const FusedGenerators& gens,
    llvm::IRBuilder<>* b, const std::function<absl::Status(llvm::Value*, llvm::Value*)>& write);

// The values of reduce-window `rw` (N inputs, N inits) at output `index`.
absl::StatusOr<std::vector<llvm::Value*>> EmitReduceWindowElement(
    absl::string_view emitter, const HloInstruction& rw, const IrIndex& index,
    const FusedGenerators& gens, ElementalIrEmitter& elemental, llvm::IRBuilder<>* b);

// Select-and-scatter `sas` (operand, source, init; window, select=,
// scatter=): the operand position selected for source element
// `source_index`. Window taps are visited row-major, positions on padding
// skipped; the first tap on an element is selected, and each later one
// replaces it when select(selected, candidate) is false, as the evaluator
// does. Calls `selected(position)` only when some tap lands on an element.
// Errors: malformed window or select computation, or selected's.
absl::Status EmitSelectAndScatterSelection(
    absl::string_view emitter, const HloInstruction& sas, const IrIndex& source_index,
    const FusedGenerators& gens, ElementalIrEmitter& elemental, llvm::IRBuilder<>* b,
    const std::function<absl::Status(const IrIndex&)>& selected);

// The element of gather `gather` at output `index`.
absl::StatusOr<llvm::Value*> EmitGatherElement(absl::string_view emitter,
                                               const HloInstruction& gather,
                                               const IrIndex& index,
                                               const FusedGenerators& gens,
                                               llvm::IRBuilder<>* b);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_WINDOW_GATHER_IR_H_
