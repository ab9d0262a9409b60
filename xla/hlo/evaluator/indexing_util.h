// Internal to the evaluator: pieces shared by gather and scatter (reading one
// start-index vector) and the entry points of the indexing ops that live in
// other files (see indexing_ops.cc for the registration). Pure; thread-safe.
#ifndef XLA_HLO_EVALUATOR_INDEXING_UTIL_H_
#define XLA_HLO_EVALUATOR_INDEXING_UTIL_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xla/hlo/evaluator/op_table.h"
#include "xla/types/literal.h"

namespace xla::evaluator::indexing {

// How a start-indices array splits into batch dimensions and the index
// vector dimension (`index_vector_dim`; equal to the rank when each index is
// a scalar).
struct IndexLayout {
  int64_t index_vector_dim = 0;
  int64_t vector_size = 1;
  std::vector<int64_t> batch_dims;   // indices dimensions other than index_vector_dim
  std::vector<int64_t> batch_sizes;  // their sizes
};

// Validates index_vector_dim against `indices` (an integer array) and splits
// its dimensions.
absl::StatusOr<IndexLayout> GetIndexLayout(const HloInstruction& instr, const Literal& indices);

// The start vector at batch position `batch` (one entry per batch dimension),
// exact (see op_helpers::IndexValue).
std::vector<int64_t> StartVector(const Literal& indices, const IndexLayout& layout,
                                 absl::Span<const int64_t> batch);

// Operand dimensions in increasing order that are neither in `removed` nor
// in `batching`: the window (offset) dimensions.
std::vector<int64_t> WindowDims(int64_t rank, absl::Span<const int64_t> removed,
                                absl::Span<const int64_t> batching);

// Checks an operand/indices batching-dimension pair (`operand_batching` of
// the operand and `indices_batching` of the indices: same length, in range,
// not the index vector dimension, disjoint from `removed`, same sizes, and
// disjoint from `index_map`) and returns, for each pair, the position of the
// indices dimension among layout.batch_dims.
absl::StatusOr<std::vector<int64_t>> BatchingPositions(
    const HloInstruction& instr, const Shape& operand, const Shape& indices,
    const IndexLayout& layout, absl::Span<const int64_t> operand_batching,
    absl::Span<const int64_t> indices_batching, absl::Span<const int64_t> removed,
    absl::Span<const int64_t> index_map);

// Entry points of indexing ops implemented in sort_ops.cc; each follows the
// OpEvaluator contract (op_table.h).
absl::StatusOr<Literal> EvalSort(const HloInstruction& instr,
                                 absl::Span<const Literal* const> operands, EvalContext& ctx);
absl::StatusOr<Literal> EvalTopK(const HloInstruction& instr,
                                 absl::Span<const Literal* const> operands, EvalContext& ctx);
// custom-call(x), custom_call_target="TopK", called_computations={cmp}: the
// first k (the result's minor size) elements of each minor-dimension line of
// x after a stable sort by cmp(value a, value b, index a, index b), and
// their s32 indices, as XLA's own TopK custom call defines.
absl::StatusOr<Literal> EvalTopKCustomCall(const HloInstruction& instr,
                                           absl::Span<const Literal* const> operands,
                                           EvalContext& ctx);

}  // namespace xla::evaluator::indexing

#endif  // XLA_HLO_EVALUATOR_INDEXING_UTIL_H_
