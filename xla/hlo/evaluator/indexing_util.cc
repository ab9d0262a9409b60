#include "xla/hlo/evaluator/indexing_util.h"

#include "xla/hlo/evaluator/index_util.h"
#include "xla/hlo/evaluator/op_helpers.h"
#include "xla/util/status_macros.h"

namespace xla::evaluator::indexing {

using op_helpers::Contains;
using op_helpers::OpError;

absl::StatusOr<IndexLayout> GetIndexLayout(const HloInstruction& instr, const Literal& indices) {
  const Shape& s = indices.shape();
  if (!s.IsArray() || !IsInteger(s.element_type())) {
    return OpError(instr, "start indices must be an integer array, got ", s.ToString(false));
  }
  IndexLayout layout;
  layout.index_vector_dim = instr.GetInt(AttrId::kIndexVectorDim);
  if (layout.index_vector_dim < 0 || layout.index_vector_dim > s.rank()) {
    return OpError(instr, "index_vector_dim=", layout.index_vector_dim,
                   " is out of range for indices ", s.ToString(false));
  }
  for (int64_t d = 0; d < s.rank(); ++d) {
    if (d == layout.index_vector_dim) {
      layout.vector_size = s.dimensions(d);
      continue;
    }
    layout.batch_dims.push_back(d);
    layout.batch_sizes.push_back(s.dimensions(d));
  }
  return layout;
}

std::vector<int64_t> StartVector(const Literal& indices, const IndexLayout& layout,
                                 absl::Span<const int64_t> batch) {
  const std::vector<int64_t>& dims = indices.shape().dimensions();
  std::vector<int64_t> index(dims.size(), 0);
  for (size_t j = 0; j < layout.batch_dims.size(); ++j) index[layout.batch_dims[j]] = batch[j];
  std::vector<int64_t> out(layout.vector_size);
  const bool explicit_vector = layout.index_vector_dim < static_cast<int64_t>(dims.size());
  for (int64_t k = 0; k < layout.vector_size; ++k) {
    if (explicit_vector) index[layout.index_vector_dim] = k;
    out[k] = op_helpers::IndexValue(indices, LinearIndex(index, dims));
  }
  return out;
}

std::vector<int64_t> WindowDims(int64_t rank, absl::Span<const int64_t> removed,
                                absl::Span<const int64_t> batching) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d) {
    if (!Contains(removed, d) && !Contains(batching, d)) out.push_back(d);
  }
  return out;
}

absl::StatusOr<std::vector<int64_t>> BatchingPositions(
    const HloInstruction& instr, const Shape& operand, const Shape& indices,
    const IndexLayout& layout, absl::Span<const int64_t> operand_batching,
    absl::Span<const int64_t> indices_batching, absl::Span<const int64_t> removed,
    absl::Span<const int64_t> index_map) {
  std::vector<int64_t> operand_used(removed.begin(), removed.end());
  operand_used.insert(operand_used.end(), operand_batching.begin(), operand_batching.end());
  RETURN_IF_ERROR(op_helpers::CheckDimList(instr, "removed and batching operand dims",
                                           operand_used, operand.rank()));
  RETURN_IF_ERROR(op_helpers::CheckDimList(instr, "indices batching dims", indices_batching,
                                           indices.rank()));
  if (operand_batching.size() != indices_batching.size()) {
    return OpError(instr, "operand and indices batching dims must have the same length");
  }
  std::vector<int64_t> positions;
  for (size_t i = 0; i < indices_batching.size(); ++i) {
    const int64_t d = indices_batching[i];
    const int64_t od = operand_batching[i];
    if (d == layout.index_vector_dim || Contains(index_map, od) ||
        indices.dimensions(d) != operand.dimensions(od)) {
      return OpError(instr, "batching dims pair (operand ", od, ", indices ", d,
                     ") is invalid: sizes must match, the indices dim must not be the index "
                     "vector dim and the operand dim must not be indexed");
    }
    int64_t pos = 0;
    while (layout.batch_dims[pos] != d) ++pos;
    positions.push_back(pos);
  }
  return positions;
}

}  // namespace xla::evaluator::indexing
