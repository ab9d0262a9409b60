// Shape rules for gather and scatter.
//
// Both index an operand with a tensor of start indices. `index_vector_dim`
// names the indices dimension that holds one start vector; when it equals the
// indices rank, each index is a scalar (an implicit trailing dimension of 1).
// The remaining indices dimensions are the "batch" (gather) or "scatter"
// (scatter) dimensions.
#include <algorithm>
#include <vector>

#include "absl/strings/str_join.h"
#include "xla/hlo/verifier/shape_inference_internal.h"
#include "xla/util/status_macros.h"

namespace xla::shape_inference_internal {
namespace {

bool IsSorted(const std::vector<int64_t>& v) { return std::is_sorted(v.begin(), v.end()); }

// Indices dimensions other than index_vector_dim, with their dynamic flags.
struct IndexBatch {
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  int64_t vector_size = 1;  // length of one start vector
};

absl::StatusOr<IndexBatch> SplitIndices(const InferContext& ctx, const Shape& indices) {
  if (!indices.IsArray() || !IsInteger(indices.element_type())) {
    return ctx.Error("start indices must be an integer array, got ", ShapeStr(indices));
  }
  const int64_t ivd = ctx.instr().GetInt(AttrId::kIndexVectorDim);
  if (ivd < 0 || ivd > indices.rank()) {
    return ctx.Error("index_vector_dim=", ivd, " is out of range for indices ",
                     ShapeStr(indices));
  }
  IndexBatch out;
  for (int64_t i = 0; i < indices.rank(); ++i) {
    if (i == ivd) {
      out.vector_size = indices.dimensions(i);
      continue;
    }
    out.dims.push_back(indices.dimensions(i));
    out.dynamic.push_back(indices.is_dynamic_dimension(i));
  }
  return out;
}

// Checks a list of operand dimensions (sorted when `sorted`) against `rank`.
absl::Status CheckDimList(const InferContext& ctx, AttrId id, int64_t rank, bool sorted) {
  const std::vector<int64_t>& dims = ctx.instr().GetIntList(id);
  RETURN_IF_ERROR(ctx.CheckDimIndices(id, dims, rank));
  if (sorted && !IsSorted(dims)) {
    return ctx.Error(AttrName(id), "={", absl::StrJoin(dims, ","), "} must be sorted");
  }
  return absl::OkStatus();
}

// Operand dimensions that are neither collapsed/inserted nor batching: the
// window (offset) dimensions, in increasing order.
std::vector<int64_t> WindowDims(int64_t rank, const std::vector<int64_t>& removed,
                                const std::vector<int64_t>& batching) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(removed.begin(), removed.end(), d) == removed.end() &&
        std::find(batching.begin(), batching.end(), d) == batching.end()) {
      out.push_back(d);
    }
  }
  return out;
}

// Checks the batching dimension lists of gather/scatter: equal length,
// disjoint from the removed dims, and in range of the indices.
absl::Status CheckBatching(const InferContext& ctx, AttrId operand_attr, AttrId indices_attr,
                           AttrId removed_attr, int64_t operand_rank, const Shape& indices) {
  const std::vector<int64_t>& ob = ctx.instr().GetIntList(operand_attr);
  const std::vector<int64_t>& ib = ctx.instr().GetIntList(indices_attr);
  const std::vector<int64_t>& removed = ctx.instr().GetIntList(removed_attr);
  RETURN_IF_ERROR(CheckDimList(ctx, operand_attr, operand_rank, /*sorted=*/true));
  RETURN_IF_ERROR(ctx.CheckDimIndices(indices_attr, ib, indices.rank()));
  if (ob.size() != ib.size()) {
    return ctx.Error(AttrName(operand_attr), " and ", AttrName(indices_attr),
                     " must have the same length");
  }
  const int64_t ivd = ctx.instr().GetInt(AttrId::kIndexVectorDim);
  for (int64_t d : ib) {
    if (d == ivd) {
      return ctx.Error(AttrName(indices_attr), " must not contain index_vector_dim ", ivd);
    }
  }
  for (int64_t d : ob) {
    if (std::find(removed.begin(), removed.end(), d) != removed.end()) {
      return ctx.Error("dimension ", d, " is in both ", AttrName(operand_attr), " and ",
                       AttrName(removed_attr));
    }
  }
  return absl::OkStatus();
}

// Checks that `map` (start_index_map / scatter_dims_to_operand_dims) has one
// operand dimension per start vector element.
absl::Status CheckIndexMap(const InferContext& ctx, AttrId id, int64_t rank,
                           int64_t vector_size) {
  const std::vector<int64_t>& map = ctx.instr().GetIntList(id);
  if (static_cast<int64_t>(map.size()) != vector_size) {
    return ctx.Error(AttrName(id), "={", absl::StrJoin(map, ","), "} must have ", vector_size,
                     " entries, one per start index element");
  }
  return ctx.CheckDimIndices(id, map, rank);
}

// Checks each updates dimension: window dimensions fit the operand window
// dimension they map to; scatter dimensions match the indices batch.
absl::Status CheckUpdateDims(const InferContext& ctx, const Shape& operand, const Shape& indices,
                             const Shape& updates, const std::vector<int64_t>& window_dims,
                             const std::vector<int64_t>& window, const IndexBatch& batch) {
  size_t next_window = 0, next_batch = 0;
  for (int64_t d = 0; d < updates.rank(); ++d) {
    const int64_t size = updates.dimensions(d);
    if (next_window < window_dims.size() && window_dims[next_window] == d) {
      const int64_t operand_dim = window[next_window++];
      if (!DimsAgree(size, operand.dimensions(operand_dim)) &&
          size > operand.dimensions(operand_dim)) {
        return ctx.Error("updates ", ShapeStr(updates), " dimension ", d,
                         " is larger than operand dimension ", operand_dim, " of ",
                         ShapeStr(operand));
      }
    } else if (!DimsAgree(size, batch.dims[next_batch++])) {
      return ctx.Error("updates ", ShapeStr(updates), " scatter dimension ", d,
                       " does not match the indices ", ShapeStr(indices));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> InferGather(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectArray(0));
  const Shape& operand = ctx.operand_shape(0);
  const Shape& indices = ctx.operand_shape(1);
  ASSIGN_OR_RETURN(IndexBatch batch, SplitIndices(ctx, indices));
  const HloInstruction& instr = ctx.instr();
  const std::vector<int64_t>& offset_dims = instr.GetIntList(AttrId::kOffsetDims);
  const std::vector<int64_t>& collapsed = instr.GetIntList(AttrId::kCollapsedSliceDims);
  const std::vector<int64_t>& batching = instr.GetIntList(AttrId::kOperandBatchingDims);
  const std::vector<int64_t>& slice_sizes = instr.GetIntList(AttrId::kSliceSizes);
  RETURN_IF_ERROR(CheckDimList(ctx, AttrId::kCollapsedSliceDims, operand.rank(), true));
  RETURN_IF_ERROR(CheckBatching(ctx, AttrId::kOperandBatchingDims,
                                AttrId::kStartIndicesBatchingDims, AttrId::kCollapsedSliceDims,
                                operand.rank(), indices));
  RETURN_IF_ERROR(CheckIndexMap(ctx, AttrId::kStartIndexMap, operand.rank(), batch.vector_size));
  if (static_cast<int64_t>(slice_sizes.size()) != operand.rank()) {
    return ctx.Error("slice_sizes={", absl::StrJoin(slice_sizes, ","),
                     "} must have one entry per dimension of ", ShapeStr(operand));
  }
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (slice_sizes[d] < 0 ||
        (!operand.is_unbounded_dimension(d) && slice_sizes[d] > operand.dimensions(d))) {
      return ctx.Error("slice_sizes[", d, "]=", slice_sizes[d], " does not fit ",
                       ShapeStr(operand));
    }
  }
  for (const std::vector<int64_t>* list : {&collapsed, &batching}) {
    for (int64_t d : *list) {
      if (slice_sizes[d] > 1) {
        return ctx.Error("collapsed or batching dimension ", d, " has slice size ",
                         slice_sizes[d], ", expected at most 1");
      }
    }
  }
  const std::vector<int64_t> window = WindowDims(operand.rank(), collapsed, batching);
  if (offset_dims.size() != window.size()) {
    return ctx.Error("offset_dims={", absl::StrJoin(offset_dims, ","), "} must have ",
                     window.size(), " entries (operand rank minus collapsed and batching dims)");
  }
  const int64_t out_rank = static_cast<int64_t>(batch.dims.size() + offset_dims.size());
  RETURN_IF_ERROR(CheckDimList(ctx, AttrId::kOffsetDims, out_rank, /*sorted=*/true));
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  size_t next_offset = 0, next_batch = 0;
  for (int64_t d = 0; d < out_rank; ++d) {
    if (next_offset < offset_dims.size() && offset_dims[next_offset] == d) {
      dims.push_back(slice_sizes[window[next_offset++]]);
      dynamic.push_back(false);
    } else {
      dims.push_back(batch.dims[next_batch]);
      dynamic.push_back(batch.dynamic[next_batch++]);
    }
  }
  return MakeArray(operand.element_type(), dims, dynamic);
}

absl::StatusOr<Shape> InferScatter(const InferContext& ctx) {
  const int64_t count = ctx.operand_count();
  if (count < 3 || count % 2 == 0) {
    return ctx.Error("scatter takes N operands, indices and N updates (an odd count >= 3), got ",
                     count);
  }
  const int64_t n = (count - 1) / 2;
  for (int64_t i = 0; i < count; ++i) RETURN_IF_ERROR(ctx.ExpectArray(i));
  const Shape& operand = ctx.operand_shape(0);
  const Shape& indices = ctx.operand_shape(n);
  const Shape& updates = ctx.operand_shape(n + 1);
  for (int64_t i = 0; i < n; ++i) {
    RETURN_IF_ERROR(ctx.ExpectSameType(i, n + 1 + i));
    if (ctx.operand_shape(i).dimensions() != operand.dimensions() ||
        ctx.operand_shape(n + 1 + i).dimensions() != updates.dimensions()) {
      return ctx.Error("scatter operands (and updates) must share dimensions; operand ", i,
                       " is ", ShapeStr(ctx.operand_shape(i)));
    }
  }
  ASSIGN_OR_RETURN(IndexBatch batch, SplitIndices(ctx, indices));
  const HloInstruction& instr = ctx.instr();
  const std::vector<int64_t>& window_dims = instr.GetIntList(AttrId::kUpdateWindowDims);
  const std::vector<int64_t>& inserted = instr.GetIntList(AttrId::kInsertedWindowDims);
  const std::vector<int64_t>& batching = instr.GetIntList(AttrId::kInputBatchingDims);
  RETURN_IF_ERROR(CheckDimList(ctx, AttrId::kUpdateWindowDims, updates.rank(), true));
  RETURN_IF_ERROR(CheckDimList(ctx, AttrId::kInsertedWindowDims, operand.rank(), true));
  RETURN_IF_ERROR(CheckBatching(ctx, AttrId::kInputBatchingDims,
                                AttrId::kScatterIndicesBatchingDims,
                                AttrId::kInsertedWindowDims, operand.rank(), indices));
  RETURN_IF_ERROR(
      CheckIndexMap(ctx, AttrId::kScatterDimsToOperandDims, operand.rank(), batch.vector_size));
  const std::vector<int64_t> window = WindowDims(operand.rank(), inserted, batching);
  if (window_dims.size() != window.size()) {
    return ctx.Error("update_window_dims={", absl::StrJoin(window_dims, ","), "} must have ",
                     window.size(), " entries (operand rank minus inserted and batching dims)");
  }
  if (updates.rank() != static_cast<int64_t>(window_dims.size() + batch.dims.size())) {
    return ctx.Error("updates ", ShapeStr(updates), " must have rank ",
                     window_dims.size() + batch.dims.size(),
                     " (update window dims plus scatter dims)");
  }
  RETURN_IF_ERROR(CheckUpdateDims(ctx, operand, indices, updates, window_dims, window, batch));
  std::vector<PrimitiveType> types, update_types;
  std::vector<Shape> results;
  for (int64_t i = 0; i < n; ++i) {
    types.push_back(ctx.operand_shape(i).element_type());
    update_types.push_back(ctx.operand_shape(n + 1 + i).element_type());
    results.push_back(ctx.operand_shape(i));
  }
  ASSIGN_OR_RETURN(const HloComputation* to_apply, ctx.Called(AttrId::kToApply));
  RETURN_IF_ERROR(CheckReducer(ctx, *to_apply, types, update_types));
  return n == 1 ? results[0] : Shape::Tuple(results);
}

}  // namespace xla::shape_inference_internal
