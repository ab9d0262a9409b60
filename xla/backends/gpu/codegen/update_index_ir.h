// Index arithmetic of in-place updates for the fusion kernel emitters (host
// and NVPTX): where a scatter's update element lands in the operand, and the
// clamped start indices of a dynamic-update-slice. Both follow the reference
// evaluator: a scatter window that does not fit is skipped whole; DUS starts
// are clamped into [0, dim - update_dim] as the elemental emitter does.
//
// Errors are Unimplemented, prefixed "<emitter> fusion emitter: " and
// naming the instruction. Thread-safety: emission mutates the builder's
// module (one thread per module).
#ifndef XLA_BACKENDS_GPU_CODEGEN_UPDATE_INDEX_IR_H_
#define XLA_BACKENDS_GPU_CODEGEN_UPDATE_INDEX_IR_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "llvm/IR/IRBuilder.h"
#include "xla/backends/gpu/codegen/ir_array.h"
#include "xla/backends/gpu/codegen/reduction_ir.h"
#include "xla/hlo/ir/hlo_instruction.h"

namespace xla::gpu {

// The dimension numbers of a scatter of `count` arrays (variadic when
// count > 1: operands 0..count-1, the indices, then one update per array,
// all arrays of the same dims), checked.
struct ScatterIndexing {
  const HloInstruction* scatter = nullptr;
  int64_t count = 1;
  const HloInstruction* indices() const { return scatter->operand(count); }
  const HloInstruction* updates(int64_t k) const { return scatter->operand(count + 1 + k); }
  std::vector<int64_t> operand_dims;
  std::vector<int64_t> update_dims;
  std::vector<int64_t> index_dims;
  int64_t index_vector_dim = 0;
  int64_t index_vector_size = 1;
  std::vector<int64_t> update_window_dims;
  std::vector<int64_t> scatter_dims_to_operand_dims;
  std::vector<int64_t> window_dims;   // operand dims the update window covers
  std::vector<int64_t> window_size;   // per operand dim (1 for inserted dims)
  std::vector<int64_t> update_scatter_dims;  // update dims not in the window
  std::vector<int64_t> index_batch_dims;     // index dims but index_vector_dim
  // input_batching_dims: operand dims indexed by the update's own coordinate
  // along operand_batching_update_dims[k] (the update scatter dim paired
  // with scatter_indices_batching_dims[k]); window size 1, like inserted dims.
  std::vector<int64_t> operand_batching_dims;
  std::vector<int64_t> operand_batching_update_dims;
};

// Reads and checks `scatter`'s dimension numbers. Errors: an even operand
// count, no to_apply, operands or updates of differing dims,
// index_vector_dim out of range, or
// dimension numbers (batching dims included) that do not match the shapes.
absl::StatusOr<ScatterIndexing> AnalyzeScatterIndexing(absl::string_view emitter,
                                                       const HloInstruction& scatter);

// For update element `update_index`: the operand element it combines into.
// `*inside` receives an i1 that is false when the element's window does not
// fit the operand (the update must then be skipped). The indices come from
// gens.at(scatter.indices()). Errors: the index generator's.
absl::StatusOr<IrIndex> EmitScatterTarget(const ScatterIndexing& scatter,
                                          const IrIndex& update_index,
                                          const FusedGenerators& gens, llvm::IRBuilder<>* b,
                                          llvm::Value** inside);

// The i64 start index per dim of dynamic-update-slice `dus`, clamped to
// [0, dim - update_dim] (a negative signed start -> 0, an unsigned one above
// INT64_MAX -> the limit). Errors: a start generator's.
absl::StatusOr<std::vector<llvm::Value*>> EmitDusStarts(const HloInstruction& dus,
                                                        const FusedGenerators& gens,
                                                        llvm::IRBuilder<>* b);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_UPDATE_INDEX_IR_H_
