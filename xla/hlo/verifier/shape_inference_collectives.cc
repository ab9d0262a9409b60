// Shape rules for collectives: all-gather(-start), all-reduce(-start),
// reduce-scatter, all-to-all, ragged-all-to-all, collective-permute(-start),
// collective-broadcast, and the `-done` halves.
//
// The group size comes from replica_groups: the length of each explicit
// group, or the minor group dimension of the iota form `[n,size]<=[...]`;
// in cross-replica-and-partition mode (a channel id without
// use_global_device_ids, collective_groups.h) each listed replica brings
// all its partitions, so that times the module's num_partitions.
// With `replica_groups={}` (all devices), a form kept verbatim (`mesh[...]`)
// or no attribute it is unknown, and
// the declared result is accepted after checking the dimensions it can.
#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/str_join.h"
#include "xla/hlo/ir/collective_groups.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/hlo/verifier/shape_inference_internal.h"
#include "xla/util/status_macros.h"

namespace xla::shape_inference_internal {
namespace {

// Device count that an iota replica group list may describe before we call
// it unreasonable.
constexpr int64_t kMaxDevices = int64_t{1} << 24;

absl::Status CheckIotaGroups(const InferContext& ctx, const ReplicaGroups& g) {
  bool ok = g.group_dims.size() == 2 && g.group_dims[0] > 0 && g.group_dims[1] > 0 &&
            !g.reshape_dims.empty();
  int64_t total = 1;
  for (int64_t d : g.reshape_dims) {
    ok = ok && d > 0 && total <= kMaxDevices / d;
    if (ok) total *= d;
  }
  ok = ok && g.group_dims[0] <= kMaxDevices / g.group_dims[1] &&
       total == g.group_dims[0] * g.group_dims[1];
  if (ok && !g.transpose.empty()) {
    std::vector<bool> seen(g.reshape_dims.size(), false);
    ok = g.transpose.size() == g.reshape_dims.size();
    for (int64_t p : g.transpose) {
      ok = ok && p >= 0 && p < static_cast<int64_t>(seen.size()) && !seen[p];
      if (ok) seen[p] = true;
    }
  }
  if (!ok) {
    return ctx.Error("replica_groups=[", absl::StrJoin(g.group_dims, ","), "]<=[",
                     absl::StrJoin(g.reshape_dims, ","), "] is not a valid iota device list");
  }
  return absl::OkStatus();
}

// The common size of the listed replica groups, nullopt when unknown.
// Fails when explicit groups differ in size.
absl::StatusOr<std::optional<int64_t>> ListedGroupSize(const InferContext& ctx) {
  const ReplicaGroups* g = ctx.Attr<ReplicaGroups>(AttrId::kReplicaGroups);
  if (g == nullptr || !g->raw.empty()) return std::optional<int64_t>();  // absent or mesh form
  if (g->iota) {
    RETURN_IF_ERROR(CheckIotaGroups(ctx, *g));
    return std::optional<int64_t>(g->group_dims[1]);
  }
  if (g->groups.empty()) return std::optional<int64_t>();
  const size_t size = g->groups[0].size();
  for (const std::vector<int64_t>& group : g->groups) {
    if (group.size() != size) {
      return ctx.Error("replica groups must all have the same size for ",
                       HloOpcodeName(ctx.opcode()));
    }
  }
  if (size == 0) return ctx.Error("replica groups must not be empty");
  return std::optional<int64_t>(static_cast<int64_t>(size));
}

// The module's num_partitions when `ctx` is in cross-replica-and-partition
// mode, else 1 (also for an instruction outside a module, or an invalid
// mode, which the collective's own checks report).
int64_t PartitionsPerListedReplica(const InferContext& ctx) {
  const HloInstruction& instr = ctx.instr();
  if (instr.parent() == nullptr || instr.parent()->parent() == nullptr) return 1;
  absl::StatusOr<CollectiveOpGroupMode> mode = GetCollectiveOpGroupMode(instr);
  if (!mode.ok() || *mode != CollectiveOpGroupMode::kCrossReplicaAndPartition) return 1;
  return std::max<int64_t>(1, instr.parent()->parent()->config().num_partitions.value_or(1));
}

// The common size of the participant groups, nullopt when unknown. Fails
// when explicit groups differ in size.
absl::StatusOr<std::optional<int64_t>> GroupSize(const InferContext& ctx) {
  ASSIGN_OR_RETURN(std::optional<int64_t> listed, ListedGroupSize(ctx));
  if (!listed.has_value()) return listed;
  return std::optional<int64_t>(*listed * PartitionsPerListedReplica(ctx));
}

// The single `dimensions={d}` entry, valid for every operand.
absl::StatusOr<int64_t> CollectiveDimension(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.Require(AttrId::kDimensions));
  const std::vector<int64_t>& dims = ctx.instr().GetIntList(AttrId::kDimensions);
  if (dims.size() != 1) return ctx.Error("dimensions must name one dimension");
  for (int64_t i = 0; i < ctx.operand_count(); ++i) {
    RETURN_IF_ERROR(ctx.ExpectArray(i));
    RETURN_IF_ERROR(
        ctx.CheckDimIndices(AttrId::kDimensions, dims, ctx.operand_shape(i).rank()));
  }
  return dims[0];
}

// Element i of a result that is an array for one operand, a tuple otherwise.
const Shape* ResultPart(const Shape* result, int64_t n, int64_t i) {
  if (result == nullptr) return nullptr;
  if (n == 1) return result->IsArray() ? result : nullptr;
  if (!result->IsTuple() || result->tuple_shapes_size() != n) return nullptr;
  return &result->tuple_shapes(i);
}

// All-gather (`gather`) or reduce-scatter (!gather) results: dimension `dim`
// of each operand multiplied or divided by the group size. When the size is
// unknown, `declared` (the gathered/scattered part of the declared shape, may
// be null) supplies it after a consistency check.
absl::StatusOr<Shape> ResizeAlongDim(const InferContext& ctx, bool gather,
                                     const Shape* declared) {
  RETURN_IF_ERROR(ctx.ExpectOperandCountAtLeast(1));
  ASSIGN_OR_RETURN(int64_t dim, CollectiveDimension(ctx));
  ASSIGN_OR_RETURN(std::optional<int64_t> size, GroupSize(ctx));
  const int64_t n = ctx.operand_count();
  std::vector<Shape> results;
  for (int64_t i = 0; i < n; ++i) {
    Shape out = ctx.operand_shape(i);
    const int64_t in = out.dimensions(dim);
    if (size.has_value()) {
      if (!gather && in != kUnboundedSize && in % *size != 0) {
        return ctx.Error("dimension ", dim, " of ", ShapeStr(out),
                         " is not divisible by the group size ", *size);
      }
      std::optional<int64_t> resized = gather ? CheckedMul(in, *size) : in / *size;
      if (in == kUnboundedSize) resized = kUnboundedSize;
      if (!resized.has_value()) return ctx.Error("gathered size overflows int64");
      out.set_dimensions(dim, *resized);
    } else {
      const Shape* part = ResultPart(declared, n, i);
      if (part == nullptr) {
        return ctx.Error("the group size is unknown (replica_groups={}); write the result ",
                         "shape in the text");
      }
      const int64_t d = part->rank() == out.rank() ? part->dimensions(dim) : -1;
      const int64_t big = gather ? d : in, small = gather ? in : d;
      if (d < 0 || (small == 0 ? big != 0 : big % small != 0)) {
        return ctx.Error("declared ", ShapeStr(*part), gather ? " is not a multiple of "
                                                              : " does not divide ",
                         ShapeStr(out), " along dimension ", dim);
      }
      out.set_dimensions(dim, d);
    }
    results.push_back(out);
  }
  return n == 1 ? results[0] : Shape::Tuple(results);
}

Shape OperandsAsResult(const InferContext& ctx) {
  if (ctx.operand_count() == 1) return ctx.operand_shape(0);
  std::vector<Shape> shapes;
  for (int64_t i = 0; i < ctx.operand_count(); ++i) shapes.push_back(ctx.operand_shape(i));
  return Shape::Tuple(shapes);
}

}  // namespace

absl::StatusOr<Shape> InferAllGather(const InferContext& ctx) {
  return ResizeAlongDim(ctx, /*gather=*/true, ctx.declared());
}

// all-gather-start: (operands, gathered) as XLA prints it, or the gathered
// result alone (the form some exporters write).
absl::StatusOr<Shape> InferAllGatherStart(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectOperandCountAtLeast(1));
  const Shape* declared = ctx.declared();
  const int64_t n = ctx.operand_count();
  const bool pair_form = declared == nullptr ||
                         (declared->IsTuple() && declared->tuple_shapes_size() == 2 &&
                          (n == 1 || declared->tuple_shapes(0).IsTuple()));
  if (!pair_form) return ResizeAlongDim(ctx, /*gather=*/true, declared);
  const Shape* declared_out = declared == nullptr ? nullptr : &declared->tuple_shapes(1);
  ASSIGN_OR_RETURN(Shape gathered, ResizeAlongDim(ctx, /*gather=*/true, declared_out));
  return Shape::Tuple({OperandsAsResult(ctx), gathered});
}

absl::StatusOr<Shape> InferReduceScatter(const InferContext& ctx) {
  ASSIGN_OR_RETURN(Shape out, ResizeAlongDim(ctx, /*gather=*/false, ctx.declared()));
  RETURN_IF_ERROR(InferAllReduce(ctx).status());  // reducer and operand checks
  return out;
}

absl::StatusOr<Shape> InferAllReduce(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectOperandCountAtLeast(1));
  for (int64_t i = 0; i < ctx.operand_count(); ++i) RETURN_IF_ERROR(ctx.ExpectArray(i));
  const PrimitiveType t = ctx.operand_shape(0).element_type();
  ASSIGN_OR_RETURN(const HloComputation* to_apply, ctx.Called(AttrId::kToApply));
  RETURN_IF_ERROR(CheckReducer(ctx, *to_apply, {t}, {t}));
  return OperandsAsResult(ctx);
}

absl::StatusOr<Shape> InferAllToAll(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectOperandCountAtLeast(1));
  for (int64_t i = 0; i < ctx.operand_count(); ++i) RETURN_IF_ERROR(ctx.ExpectArray(i));
  if (ctx.instr().has_attr(AttrId::kDimensions)) {
    if (ctx.operand_count() != 1) {
      return ctx.Error("all-to-all with a split dimension takes one operand, got ",
                       ctx.operand_count());
    }
    ASSIGN_OR_RETURN(int64_t dim, CollectiveDimension(ctx));
    ASSIGN_OR_RETURN(std::optional<int64_t> size, GroupSize(ctx));
    const int64_t in = ctx.operand_shape(0).dimensions(dim);
    if (size.has_value() && in != kUnboundedSize && in % *size != 0) {
      return ctx.Error("split dimension ", dim, " of ", ShapeStr(ctx.operand_shape(0)),
                       " is not divisible by the group size ", *size);
    }
    return ctx.operand_shape(0);
  }
  const Shape* declared = ctx.declared();
  if (ctx.operand_count() == 1 && declared != nullptr && !declared->IsTuple()) {
    return ctx.operand_shape(0);
  }
  std::vector<Shape> shapes;
  for (int64_t i = 0; i < ctx.operand_count(); ++i) shapes.push_back(ctx.operand_shape(i));
  return Shape::Tuple(shapes);
}

// ragged-all-to-all(input, output, input_offsets, send_sizes, output_offsets,
// recv_sizes): the result is the output buffer.
absl::StatusOr<Shape> InferRaggedAllToAll(const InferContext& ctx) {
  for (int64_t i = 0; i < 6; ++i) RETURN_IF_ERROR(ctx.ExpectArray(i));
  RETURN_IF_ERROR(ctx.ExpectSameType(0, 1));
  if (ctx.operand_shape(0).rank() != ctx.operand_shape(1).rank()) {
    return ctx.Error("input ", ShapeStr(ctx.operand_shape(0)), " and output ",
                     ShapeStr(ctx.operand_shape(1)), " must have the same rank");
  }
  for (int64_t i = 2; i < 6; ++i) {
    if (!IsInteger(ctx.operand_shape(i).element_type())) {
      return ctx.Error("offset/size operand ", i, " must be an integer array, got ",
                       ShapeStr(ctx.operand_shape(i)));
    }
  }
  return ctx.operand_shape(1);
}

absl::StatusOr<Shape> InferCollectivePermute(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectOperandCountAtLeast(1));
  if (ctx.operand_count() == 4) {
    // In-place form: (input, output buffer, input offsets, output offsets).
    auto is_offsets = [&](int64_t i) {
      const Shape& s = ctx.operand_shape(i);
      return s.IsTuple() || (s.IsArray() && IsInteger(s.element_type()));
    };
    if (is_offsets(2) && is_offsets(3) && ctx.operand_shape(1).IsArray()) {
      return ctx.operand_shape(1);
    }
  }
  return OperandsAsResult(ctx);
}

// collective-permute-start: (input, output[, context...]) as XLA prints it,
// or the permuted array alone.
absl::StatusOr<Shape> InferCollectivePermuteStart(const InferContext& ctx) {
  ASSIGN_OR_RETURN(Shape permuted, InferCollectivePermute(ctx));
  const Shape* declared = ctx.declared();
  if (declared != nullptr && !declared->IsTuple()) return permuted;
  std::vector<Shape> elements = {OperandsAsResult(ctx), permuted};
  if (ctx.operand_count() == 4 && permuted == ctx.operand_shape(1)) {
    elements[0] = ctx.operand_shape(0);
  }
  if (declared != nullptr) {
    for (int64_t i = 2; i < declared->tuple_shapes_size(); ++i) {
      elements.push_back(declared->tuple_shapes(i));
    }
  }
  return Shape::Tuple(elements);
}

absl::StatusOr<Shape> InferCollectiveBroadcast(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectOperandCountAtLeast(1));
  return OperandsAsResult(ctx);
}

absl::StatusOr<Shape> InferCollectiveDone(const InferContext& ctx) {
  const Shape& s = ctx.operand_shape(0);
  if (s.IsTuple()) {
    if (s.tuple_shapes_size() < 2) {
      return ctx.Error("operand ", ShapeStr(s), " must be an (input, output) tuple");
    }
    return s.tuple_shapes(1);
  }
  return s;
}

}  // namespace xla::shape_inference_internal
