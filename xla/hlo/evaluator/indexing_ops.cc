// Evaluator ops of the indexing family (see op_table.h): gather and scatter
// here; sort and topk in sort_ops.cc.
//
// gather: for each output index, the batch part (dimensions not in
// offset_dims) selects a start vector from the indices; start_index_map
// places it in the operand, each start clamped to [0, dim - slice_size] as
// XLA defines; operand_batching_dims take the batch index of their paired
// start_indices_batching_dims; offset_dims index the window dimensions
// (operand dimensions neither collapsed nor batching) in increasing order.
//
// scatter: N operands, indices and N updates; the result starts as a copy of
// the operands. Updates are applied one element at a time in row-major order
// of the update index (deterministic), each through to_apply(operand values,
// update values). An update whose whole window does not fit the operand at
// its start index (start < 0 or start > dim - window size in any dimension)
// is skipped entirely, as XLA defines. The result is a tuple when N > 1.
#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/str_join.h"
#include "xla/hlo/evaluator/index_util.h"
#include "xla/hlo/evaluator/indexing_util.h"
#include "xla/hlo/evaluator/op_helpers.h"
#include "xla/hlo/evaluator/op_table.h"
#include "xla/util/status_macros.h"

namespace xla::evaluator {
namespace {

using indexing::IndexLayout;
using op_helpers::Contains;
using op_helpers::OpError;

// Splits `index` into the entries at `picked` dimensions and the others.
void SplitIndex(absl::Span<const int64_t> index, absl::Span<const int64_t> picked,
                std::vector<int64_t>& in_picked, std::vector<int64_t>& others) {
  in_picked.clear();
  others.clear();
  for (int64_t d = 0; d < static_cast<int64_t>(index.size()); ++d) {
    (Contains(picked, d) ? in_picked : others).push_back(index[d]);
  }
}

// ----------------------------------------------------------------- gather

struct GatherPlan {
  IndexLayout layout;
  std::vector<int64_t> offset_dims, start_index_map, slice_sizes, operand_batching;
  std::vector<int64_t> window_dims;     // operand dims that offset_dims index
  std::vector<int64_t> batch_position;  // per operand batching dim
  std::vector<int64_t> out_dims;
};

absl::Status CheckSliceSizes(const HloInstruction& instr, const GatherPlan& p,
                             const Shape& operand, absl::Span<const int64_t> collapsed) {
  if (static_cast<int64_t>(p.slice_sizes.size()) != operand.rank()) {
    return OpError(instr, "slice_sizes={", absl::StrJoin(p.slice_sizes, ","),
                   "} must have one entry per dimension of ", operand.ToString(false));
  }
  for (int64_t d = 0; d < operand.rank(); ++d) {
    const bool single = Contains(collapsed, d) || Contains(p.operand_batching, d);
    if (p.slice_sizes[d] < 0 || p.slice_sizes[d] > operand.dimensions(d) ||
        (single && p.slice_sizes[d] != 1)) {
      return OpError(instr, "slice_sizes[", d, "]=", p.slice_sizes[d], " does not fit ",
                     operand.ToString(false), " (collapsed and batching dims need size 1)");
    }
  }
  return absl::OkStatus();
}

absl::Status PlanGatherOutput(const HloInstruction& instr, GatherPlan& p) {
  const int64_t out_rank =
      static_cast<int64_t>(p.layout.batch_dims.size() + p.offset_dims.size());
  RETURN_IF_ERROR(op_helpers::CheckDimList(instr, "offset_dims", p.offset_dims, out_rank));
  if (p.offset_dims.size() != p.window_dims.size() ||
      !std::is_sorted(p.offset_dims.begin(), p.offset_dims.end())) {
    return OpError(instr, "offset_dims={", absl::StrJoin(p.offset_dims, ","), "} must be sorted",
                   " and have ", p.window_dims.size(), " entries");
  }
  size_t next_offset = 0, next_batch = 0;
  for (int64_t d = 0; d < out_rank; ++d) {
    if (next_offset < p.offset_dims.size() && p.offset_dims[next_offset] == d) {
      p.out_dims.push_back(p.slice_sizes[p.window_dims[next_offset++]]);
    } else {
      p.out_dims.push_back(p.layout.batch_sizes[next_batch++]);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<GatherPlan> PlanGather(const HloInstruction& instr, const Literal& operand,
                                      const Literal& indices) {
  GatherPlan p;
  ASSIGN_OR_RETURN(p.layout, indexing::GetIndexLayout(instr, indices));
  p.offset_dims = instr.GetIntList(AttrId::kOffsetDims);
  p.start_index_map = instr.GetIntList(AttrId::kStartIndexMap);
  p.slice_sizes = instr.GetIntList(AttrId::kSliceSizes);
  p.operand_batching = instr.GetIntList(AttrId::kOperandBatchingDims);
  const std::vector<int64_t>& collapsed = instr.GetIntList(AttrId::kCollapsedSliceDims);
  const Shape& os = operand.shape();
  if (static_cast<int64_t>(p.start_index_map.size()) != p.layout.vector_size) {
    return OpError(instr, "start_index_map must have ", p.layout.vector_size, " entries");
  }
  RETURN_IF_ERROR(
      op_helpers::CheckDimList(instr, "start_index_map", p.start_index_map, os.rank()));
  ASSIGN_OR_RETURN(p.batch_position,
                   indexing::BatchingPositions(
                       instr, os, indices.shape(), p.layout, p.operand_batching,
                       instr.GetIntList(AttrId::kStartIndicesBatchingDims), collapsed,
                       p.start_index_map));
  RETURN_IF_ERROR(CheckSliceSizes(instr, p, os, collapsed));
  p.window_dims = indexing::WindowDims(os.rank(), collapsed, p.operand_batching);
  RETURN_IF_ERROR(PlanGatherOutput(instr, p));
  RETURN_IF_ERROR(op_helpers::CheckArrayResult(instr, p.out_dims, os.element_type()));
  return p;
}

// The operand index that output index `out` reads.
std::vector<int64_t> GatherSource(const GatherPlan& p, const Literal& operand,
                                  const Literal& indices, absl::Span<const int64_t> out,
                                  std::vector<int64_t>& batch, std::vector<int64_t>& offset) {
  SplitIndex(out, p.offset_dims, offset, batch);
  const std::vector<int64_t> start = indexing::StartVector(indices, p.layout, batch);
  const std::vector<int64_t>& dims = operand.shape().dimensions();
  std::vector<int64_t> in(dims.size(), 0);
  for (size_t k = 0; k < start.size(); ++k) {
    const int64_t d = p.start_index_map[k];
    in[d] = std::clamp<int64_t>(start[k], 0, dims[d] - p.slice_sizes[d]);
  }
  for (size_t i = 0; i < p.operand_batching.size(); ++i) {
    in[p.operand_batching[i]] = batch[p.batch_position[i]];
  }
  for (size_t k = 0; k < p.window_dims.size(); ++k) in[p.window_dims[k]] += offset[k];
  return in;
}

absl::StatusOr<Literal> EvalGather(const HloInstruction& instr,
                                   absl::Span<const Literal* const> operands, EvalContext& ctx) {
  const Literal& operand = *operands[0];
  const Literal& indices = *operands[1];
  RETURN_IF_ERROR(op_helpers::ExpectArray(instr, operand, "operand"));
  ASSIGN_OR_RETURN(GatherPlan p, PlanGather(instr, operand, indices));
  Literal out(instr.shape());
  if (out.element_count() == 0) return out;
  std::vector<int64_t> index(p.out_dims.size(), 0), batch, offset;
  int64_t linear = 0;
  do {
    const std::vector<int64_t> in = GatherSource(p, operand, indices, index, batch, offset);
    op_helpers::CopyElement(operand, LinearIndex(in, operand.shape().dimensions()), out,
                            linear++);
  } while (NextIndex(index, p.out_dims));
  return out;
}

// ---------------------------------------------------------------- scatter

struct ScatterPlan {
  int64_t n = 0;  // operand (and update) count
  IndexLayout layout;
  std::vector<int64_t> update_window_dims, scatter_map, operand_batching;
  std::vector<int64_t> window_dims;     // operand dims that update_window_dims index
  std::vector<int64_t> batch_position;  // per operand batching dim
  std::vector<int64_t> window_size;     // per operand dim (1 when not a window dim)
  std::vector<PrimitiveType> types;     // operand element types
};

absl::Status CheckScatterOperands(const HloInstruction& instr,
                                  absl::Span<const Literal* const> ops, int64_t n) {
  for (int64_t i = 0; i < 2 * n + 1; ++i) {
    RETURN_IF_ERROR(op_helpers::ExpectArray(instr, *ops[i], "every scatter operand"));
  }
  std::vector<Shape> results;
  for (int64_t i = 0; i < n; ++i) {
    const Shape& o = ops[i]->shape();
    const Shape& u = ops[n + 1 + i]->shape();
    if (o.dimensions() != ops[0]->shape().dimensions() || o.element_type() != u.element_type() ||
        u.dimensions() != ops[n + 1]->shape().dimensions()) {
      return OpError(instr, "operand ", i, " ", o.ToString(false), " and update ",
                     u.ToString(false), " must match the others in dimensions and each other in type");
    }
    results.push_back(Shape::Array(o.element_type(), o.dimensions()));
  }
  const Shape want = n == 1 ? results[0] : Shape::Tuple(results);
  if (!ShapesCompatible(instr.shape(), want, /*ignore_dynamic=*/true)) {
    return OpError(instr, "result shape ", instr.shape().ToString(false), " should be ",
                   want.ToString(false));
  }
  if (instr.to_apply() == nullptr) return OpError(instr, "to_apply is missing");
  return absl::OkStatus();
}

// Checks the updates' dimensions against the window and the indices batch.
absl::Status CheckUpdateDims(const HloInstruction& instr, ScatterPlan& p, const Shape& operand,
                             const Shape& updates) {
  RETURN_IF_ERROR(op_helpers::CheckDimList(instr, "update_window_dims", p.update_window_dims,
                                           updates.rank()));
  if (p.update_window_dims.size() != p.window_dims.size() ||
      !std::is_sorted(p.update_window_dims.begin(), p.update_window_dims.end()) ||
      updates.rank() !=
          static_cast<int64_t>(p.window_dims.size() + p.layout.batch_dims.size())) {
    return OpError(instr, "update_window_dims={", absl::StrJoin(p.update_window_dims, ","),
                   "} do not fit updates ", updates.ToString(false), " and operand ",
                   operand.ToString(false));
  }
  p.window_size.assign(operand.rank(), 1);
  size_t next_batch = 0;
  for (int64_t d = 0; d < updates.rank(); ++d) {
    auto it = std::find(p.update_window_dims.begin(), p.update_window_dims.end(), d);
    const bool ok = it == p.update_window_dims.end()
                        ? updates.dimensions(d) == p.layout.batch_sizes[next_batch++]
                        : updates.dimensions(d) <=
                              operand.dimensions(p.window_dims[it - p.update_window_dims.begin()]);
    if (!ok) {
      return OpError(instr, "updates ", updates.ToString(false), " dimension ", d,
                     " does not fit the operand window or the indices");
    }
    if (it != p.update_window_dims.end()) {
      p.window_size[p.window_dims[it - p.update_window_dims.begin()]] = updates.dimensions(d);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<ScatterPlan> PlanScatter(const HloInstruction& instr,
                                        absl::Span<const Literal* const> ops) {
  ScatterPlan p;
  if (ops.size() < 3 || ops.size() % 2 == 0) {
    return OpError(instr, "takes N operands, indices and N updates, got ", ops.size());
  }
  p.n = static_cast<int64_t>(ops.size() - 1) / 2;
  RETURN_IF_ERROR(CheckScatterOperands(instr, ops, p.n));
  const Shape& operand = ops[0]->shape();
  const Literal& indices = *ops[p.n];
  ASSIGN_OR_RETURN(p.layout, indexing::GetIndexLayout(instr, indices));
  p.update_window_dims = instr.GetIntList(AttrId::kUpdateWindowDims);
  p.scatter_map = instr.GetIntList(AttrId::kScatterDimsToOperandDims);
  p.operand_batching = instr.GetIntList(AttrId::kInputBatchingDims);
  const std::vector<int64_t>& inserted = instr.GetIntList(AttrId::kInsertedWindowDims);
  if (static_cast<int64_t>(p.scatter_map.size()) != p.layout.vector_size) {
    return OpError(instr, "scatter_dims_to_operand_dims must have ", p.layout.vector_size,
                   " entries");
  }
  RETURN_IF_ERROR(op_helpers::CheckDimList(instr, "scatter_dims_to_operand_dims",
                                           p.scatter_map, operand.rank()));
  ASSIGN_OR_RETURN(p.batch_position,
                   indexing::BatchingPositions(
                       instr, operand, indices.shape(), p.layout, p.operand_batching,
                       instr.GetIntList(AttrId::kScatterIndicesBatchingDims), inserted,
                       p.scatter_map));
  p.window_dims = indexing::WindowDims(operand.rank(), inserted, p.operand_batching);
  RETURN_IF_ERROR(CheckUpdateDims(instr, p, operand, ops[p.n + 1]->shape()));
  for (int64_t i = 0; i < p.n; ++i) p.types.push_back(ops[i]->shape().element_type());
  return p;
}

// The operand index that update index `u` targets, or nullopt when the
// update's window does not fit the operand.
std::optional<std::vector<int64_t>> ScatterTarget(const ScatterPlan& p, const Shape& operand,
                                   const Literal& indices, absl::Span<const int64_t> u,
                                   std::vector<int64_t>& batch, std::vector<int64_t>& window) {
  SplitIndex(u, p.update_window_dims, window, batch);
  const std::vector<int64_t> start = indexing::StartVector(indices, p.layout, batch);
  std::vector<int64_t> in(operand.rank(), 0);
  for (size_t k = 0; k < start.size(); ++k) in[p.scatter_map[k]] = start[k];
  for (size_t i = 0; i < p.operand_batching.size(); ++i) {
    in[p.operand_batching[i]] = batch[p.batch_position[i]];
  }
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (in[d] < 0 || in[d] > operand.dimensions(d) - p.window_size[d]) return std::nullopt;
  }
  for (size_t k = 0; k < p.window_dims.size(); ++k) in[p.window_dims[k]] += window[k];
  return in;
}

absl::StatusOr<Literal> EvalScatter(const HloInstruction& instr,
                                    absl::Span<const Literal* const> ops, EvalContext& ctx) {
  ASSIGN_OR_RETURN(ScatterPlan p, PlanScatter(instr, ops));
  std::vector<Literal> results;
  for (int64_t i = 0; i < p.n; ++i) results.push_back(*ops[i]);
  const Literal& indices = *ops[p.n];
  const Shape& operand = ops[0]->shape();
  const std::vector<int64_t>& update_dims = ops[p.n + 1]->shape().dimensions();
  std::vector<PrimitiveType> arg_types = p.types;
  arg_types.insert(arg_types.end(), p.types.begin(), p.types.end());
  op_helpers::ScalarCaller combiner(*instr.to_apply(), arg_types);
  std::vector<int64_t> u(update_dims.size(), 0), batch, window;
  for (int64_t linear_u = 0; linear_u < ElementCount(update_dims); ++linear_u) {
    const std::optional<std::vector<int64_t>> target =
        ScatterTarget(p, operand, indices, u, batch, window);
    NextIndex(u, update_dims);
    if (!target.has_value()) continue;
    const int64_t t = LinearIndex(*target, operand.dimensions());
    for (int64_t i = 0; i < p.n; ++i) {
      combiner.SetArg(i, results[i], t);
      combiner.SetArg(p.n + i, *ops[p.n + 1 + i], linear_u);
    }
    ASSIGN_OR_RETURN(Literal r, combiner.Call(ctx));
    RETURN_IF_ERROR(op_helpers::CheckScalarResults(instr, r, p.types));
    for (int64_t i = 0; i < p.n; ++i) {
      op_helpers::CopyElement(op_helpers::ScalarResult(r, i), 0, results[i], t);
    }
  }
  if (p.n == 1) return std::move(results[0]);
  Literal out(instr.shape());
  *out.mutable_tuple_elements() = std::move(results);
  return out;
}

}  // namespace

void RegisterIndexingOps(OpTable& table) {
  table[static_cast<int>(HloOpcode::kGather)] = EvalGather;
  table[static_cast<int>(HloOpcode::kScatter)] = EvalScatter;
  table[static_cast<int>(HloOpcode::kSort)] = indexing::EvalSort;
  table[static_cast<int>(HloOpcode::kTopK)] = indexing::EvalTopK;
}

}  // namespace xla::evaluator
