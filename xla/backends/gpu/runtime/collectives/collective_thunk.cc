#include "xla/backends/gpu/runtime/collectives/collective_thunk.h"

#include <algorithm>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/backends/gpu/runtime/collectives/collective_context.h"
#include "xla/backends/gpu/runtime/collectives/collective_ops.h"
#include "xla/types/xla_data_convert.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

namespace se = ::stream_executor;
using Config = CollectiveThunk::Config;

// The num_partitions field: 0 reads as 1; at most kMaxReplicaId.
absl::StatusOr<int64_t> NumPartitionsFromProto(const CollectiveThunkProto& proto,
                                               const ThunkContext& ctx) {
  const int64_t p = proto.num_partitions();
  if (p < 0 || p > kMaxReplicaId) {
    return ctx.Field("num_partitions").Error(absl::StrCat(
        "num_partitions ", p, " is outside [0, ", kMaxReplicaId, "]"));
  }
  return std::max<int64_t>(p, 1);
}

absl::Status CheckIds(const ThunkContext& ctx, const std::vector<int64_t>& ids,
                      std::set<int64_t>* seen) {
  for (int64_t id : ids) {
    if (id < 0 || id >= kMaxReplicaId) {
      return ctx.Error(absl::StrCat("replica id ", id, " is outside [0, ", kMaxReplicaId, ")"));
    }
    if (!seen->insert(id).second) {
      return ctx.Error(absl::StrCat("replica id ", id, " appears twice"));
    }
  }
  return absl::OkStatus();
}

// A device id op: nothing but the 4-byte result.
absl::Status CheckDeviceIdOp(const CollectiveOpRow& row, const CollectiveThunkProto& proto,
                             const Config& c, const ThunkContext& ctx) {
  if (proto.has_operand() || proto.replica_groups_size() > 0 ||
      proto.source_target_pairs_size() > 0 || proto.operand_dimensions_size() > 0) {
    return ctx.Error(absl::StrCat(row.name, " takes no operand, groups, pairs or dimensions"));
  }
  if (c.result.size != 4) {
    return ctx.Field("result").Error(
        absl::StrCat(row.name, " writes a u32 scalar (4 bytes), not ", c.result.size));
  }
  return absl::OkStatus();
}

// The operand slice, its element type and its dimensions, which must cover
// the slice exactly.
absl::Status ParseOperand(const CollectiveOpRow& row, const CollectiveThunkProto& proto,
                          const ThunkContext& ctx, Config& c) {
  if (!proto.has_operand()) {
    return ctx.Field("operand").Error(absl::StrCat(row.name, " needs an operand"));
  }
  ASSIGN_OR_RETURN(BufferSlice operand, ctx.Slice(proto.operand(), "operand"));
  c.operand = operand;
  ASSIGN_OR_RETURN(c.element_type, PrimitiveTypeFromProto(proto.element_type(),
                                                          ctx.Field("element_type").path()));
  if (!IsArrayType(c.element_type) || BitWidth(c.element_type) < 8 ||
      BitWidth(c.element_type) % 8 != 0) {
    return ctx.Field("element_type").Error(absl::StrCat(
        row.name, " needs an array type of whole bytes, not ", PrimitiveTypeName(c.element_type)));
  }
  RETURN_IF_ERROR(ctx.CheckCount(proto.operand_dimensions_size(), "operand_dimensions"));
  int64_t elements = 1;
  const int64_t width = ByteWidth(c.element_type);
  for (int64_t d : proto.operand_dimensions()) {
    if (d < 0 || (d > 0 && elements > operand.size / d)) {
      return ctx.Field("operand_dimensions").Error(absl::StrCat(
          "dimension ", d, " is negative or the dimensions exceed the operand's ", operand.size,
          " bytes"));
    }
    elements *= d;
    c.operand_dimensions.push_back(d);
  }
  if (elements * width == operand.size) return absl::OkStatus();
  return ctx.Field("operand_dimensions").Error(absl::StrCat(
      "[", absl::StrJoin(c.operand_dimensions, ","), "] ", PrimitiveTypeName(c.element_type),
      " is ", elements * width, " bytes but the operand slice has ", operand.size));
}

// The reduction: required (and supported for the type) where the op
// reduces, absent elsewhere.
absl::Status ParseReduction(const CollectiveOpRow& row, const CollectiveThunkProto& proto,
                            const ThunkContext& ctx, Config& c) {
  if (!row.reduces) {
    if (proto.reduction() == REDUCTION_KIND_UNSPECIFIED) return absl::OkStatus();
    return ctx.Field("reduction").Error(absl::StrCat(row.name, " takes no reduction"));
  }
  absl::StatusOr<ReductionKind> kind = ReductionKindFromProto(proto.reduction());
  if (!kind.ok()) return ctx.Field("reduction").Error(kind.status().message());
  c.reduction = *kind;
  if (IsSupportedReduction(c.reduction, c.element_type)) return absl::OkStatus();
  return ctx.Field("reduction").Error(UnsupportedReductionMessage(c.reduction, c.element_type));
}

// Explicit, non-empty groups of one size with distinct ids.
absl::Status ParseGroups(const CollectiveOpRow& row, const CollectiveThunkProto& proto,
                         const ThunkContext& ctx, Config& c) {
  if (proto.source_target_pairs_size() > 0) {
    return ctx.Field("source_target_pairs").Error(absl::StrCat(row.name, " takes no pairs"));
  }
  if (proto.replica_groups_size() == 0) {
    return ctx.Field("replica_groups").Error("empty: list every group explicitly");
  }
  RETURN_IF_ERROR(ctx.CheckCount(proto.replica_groups_size(), "replica_groups"));
  std::set<int64_t> seen;
  for (int i = 0; i < proto.replica_groups_size(); ++i) {
    const ThunkContext g = ctx.Field(absl::StrCat("replica_groups[", i, "]"));
    const auto& ids = proto.replica_groups(i).replica_ids();
    RETURN_IF_ERROR(g.CheckCount(ids.size(), "replica_ids"));
    std::vector<int64_t> group(ids.begin(), ids.end());
    if (group.empty()) return g.Error("an empty group");
    if (i > 0 && group.size() != c.replica_groups[0].size()) {
      return g.Error(absl::StrCat("has ", group.size(), " replicas but group 0 has ",
                                  c.replica_groups[0].size(), "; all groups must be one size"));
    }
    RETURN_IF_ERROR(CheckIds(g, group, &seen));
    c.replica_groups.push_back(std::move(group));
  }
  return absl::OkStatus();
}

// Source-target pairs with distinct sources and distinct targets.
absl::Status ParsePairs(const CollectiveOpRow& row, const CollectiveThunkProto& proto,
                        const ThunkContext& ctx, Config& c) {
  if (proto.replica_groups_size() > 0) {
    return ctx.Field("replica_groups").Error(absl::StrCat(row.name, " uses source_target_pairs"));
  }
  RETURN_IF_ERROR(ctx.CheckCount(proto.source_target_pairs_size(), "source_target_pairs"));
  std::set<int64_t> sources, targets;
  for (const SourceTargetPairProto& p : proto.source_target_pairs()) {
    const ThunkContext f = ctx.Field("source_target_pairs");
    RETURN_IF_ERROR(CheckIds(f, {p.source()}, &sources));
    RETURN_IF_ERROR(CheckIds(f, {p.target()}, &targets));
    c.source_target_pairs.emplace_back(p.source(), p.target());
  }
  return absl::OkStatus();
}

// The dimension, where the op has one: in range, and divisible by the
// group size where it is split.
absl::Status ParseDimension(const CollectiveOpRow& row, const CollectiveThunkProto& proto,
                            int64_t group_size, const ThunkContext& ctx, Config& c) {
  if (!row.has_dimension()) {
    if (proto.dimension() == 0) return absl::OkStatus();
    return ctx.Field("dimension").Error(absl::StrCat(row.name, " takes no dimension"));
  }
  const int64_t rank = static_cast<int64_t>(c.operand_dimensions.size());
  if (proto.dimension() < 0 || proto.dimension() >= std::max<int64_t>(rank, 1) || rank == 0) {
    return ctx.Field("dimension").Error(absl::StrCat("dimension ", proto.dimension(),
                                                     " is outside the operand's rank ", rank));
  }
  c.dimension = proto.dimension();
  if (!row.splits || c.operand_dimensions[c.dimension] % group_size == 0) {
    return absl::OkStatus();
  }
  return ctx.Field("dimension").Error(absl::StrCat(
      "dimension ", c.dimension, " has size ", c.operand_dimensions[c.dimension],
      ", not a multiple of the group size ", group_size));
}

// Everything an op with an operand takes, in the order the fields are
// checked.
absl::Status ParseExchange(const CollectiveOpRow& row, const CollectiveThunkProto& proto,
                           const ThunkContext& ctx, Config& c) {
  RETURN_IF_ERROR(ParseOperand(row, proto, ctx, c));
  RETURN_IF_ERROR(ParseReduction(row, proto, ctx, c));
  RETURN_IF_ERROR(row.uses_groups ? ParseGroups(row, proto, ctx, c)
                                  : ParsePairs(row, proto, ctx, c));
  const int64_t group_size =
      row.uses_groups ? static_cast<int64_t>(c.replica_groups[0].size()) : 1;
  RETURN_IF_ERROR(ParseDimension(row, proto, group_size, ctx, c));
  const int64_t want = row.ResultBytes(c.operand->size, group_size);
  if (c.result.size == want) return absl::OkStatus();
  return ctx.Field("result").Error(absl::StrCat(row.name, " over groups of ", group_size,
                                                " writes ", want, " bytes, not ",
                                                c.result.size));
}

// The checks every execution repeats (cheap): a context, with communicators
// where the op exchanges data, and the thunk's partition count.
absl::Status CheckContext(const CollectiveOpRow& row, int64_t num_partitions,
                          const CollectiveContext* ctx) {
  const absl::string_view name = row.name;
  if (ctx == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        name, " needs a replicated execution (xla/aot/replicated_execution.h) that says which "
              "replica this device is"));
  }
  if (row.has_operand && !ctx->communicator) {
    return absl::FailedPreconditionError(absl::StrCat(
        name, " needs communicators, but the execution's CollectiveContext provides none"));
  }
  if (ctx->num_partitions == num_partitions) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      name, " was compiled for ", num_partitions, " partition(s) but the execution runs ",
      ctx->num_partitions, "; run every partition of the module"));
}

}  // namespace

absl::string_view CollectiveOpName(CollectiveOpProto op) {
  const CollectiveOpRow* row = FindCollectiveOp(op);
  return row == nullptr ? "unknown collective" : row->name;
}

absl::StatusOr<std::unique_ptr<CollectiveThunk>> CollectiveThunk::FromProto(
    ThunkInfo info, const CollectiveThunkProto& proto, const ThunkContext& ctx) {
  const CollectiveOpRow* row = FindCollectiveOp(proto.op());
  if (row == nullptr) {
    return ctx.Field("op").Error(absl::StrCat("unknown collective op ", proto.op(),
                                              "; the artifact is newer than this runtime"));
  }
  Config c;
  c.op = row->op;
  ASSIGN_OR_RETURN(c.num_partitions, NumPartitionsFromProto(proto, ctx));
  ASSIGN_OR_RETURN(c.result, ctx.Slice(proto.result(), "result"));
  RETURN_IF_ERROR(row->has_operand ? ParseExchange(*row, proto, ctx, c)
                                   : CheckDeviceIdOp(*row, proto, c, ctx));
  return std::make_unique<CollectiveThunk>(std::move(info), std::move(c));
}

absl::Status CollectiveThunk::Prepare(ResourceRequests& requests) const {
  for (const std::vector<int64_t>& g : config_.replica_groups) requests.collective_groups.insert(g);
  if (!config_.source_target_pairs.empty()) {
    std::set<int64_t> ids;
    for (const auto& [s, t] : config_.source_target_pairs) {
      ids.insert(s);
      ids.insert(t);
    }
    requests.collective_groups.insert(std::vector<int64_t>(ids.begin(), ids.end()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const CollectiveParticipants>> CollectiveThunk::Participants(
    const CollectiveContext& ctx) const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = resolved_.find(ParticipantKeyLess::View(ctx.participant_id(), ctx.replica_devices));
    if (it != resolved_.end()) return it->second;
  }
  ASSIGN_OR_RETURN(CollectiveParticipants who,
                   ResolveParticipants(CollectiveOpName(config_.op), config_.replica_groups,
                                       config_.source_target_pairs, ctx));
  auto shared = std::make_shared<const CollectiveParticipants>(std::move(who));
  std::lock_guard<std::mutex> lock(mu_);
  return resolved_
      .emplace(std::make_pair(ctx.participant_id(), ctx.replica_devices), std::move(shared))
      .first->second;
}

absl::Status CollectiveThunk::WriteDeviceId(const ExecuteParams& params,
                                            const CollectiveContext& ctx) const {
  const uint32_t id = static_cast<uint32_t>(
      config_.op == COLLECTIVE_OP_REPLICA_ID ? ctx.replica_id : ctx.partition_id);
  se::DeviceMemoryBase dst = params.buffers->GetDeviceAddress(config_.result);
  return stream(params)->Memset32(&dst, id, sizeof(id));
}

absl::Status CollectiveThunk::ExecuteOnStream(const ExecuteParams& params) const {
  const CollectiveOpRow& row = *FindCollectiveOp(config_.op);
  const CollectiveContext* ctx = params.collectives;
  RETURN_IF_ERROR(AnnotateError(*this, CheckContext(row, config_.num_partitions, ctx)));
  if (!row.has_operand) return AnnotateError(*this, WriteDeviceId(params, *ctx));
  se::DeviceMemoryBase dst = params.buffers->GetDeviceAddress(config_.result);
  absl::StatusOr<std::shared_ptr<const CollectiveParticipants>> who = Participants(*ctx);
  if (!who.ok()) return AnnotateError(*this, who.status());
  se::Stream& s = *stream(params);
  // A permute that involves neither this participant's send nor receive.
  if (!(*who)->participates) return AnnotateError(*this, s.MemZero(&dst, config_.operand->size));
  absl::StatusOr<DeviceCommunicator*> comm = ctx->communicator(*(*who)->clique, (*who)->device);
  if (!comm.ok()) return AnnotateError(*this, comm.status());
  const CollectiveExchange x{**comm,
                             s,
                             ctx->run_id,
                             config_.reduction,
                             config_.element_type,
                             params.buffers->GetDeviceAddress(*config_.operand),
                             dst,
                             config_.operand->size,
                             SplitAt(config_.operand_dimensions, config_.dimension),
                             **who};
  return AnnotateError(*this, row.enqueue(x));
}

absl::StatusOr<ThunkProto> CollectiveThunk::ToProto() const {
  ThunkProto proto = InfoProto();
  CollectiveThunkProto* p = proto.mutable_collective();
  p->set_op(config_.op);
  if (config_.num_partitions > 1) p->set_num_partitions(config_.num_partitions);
  *p->mutable_result() = SliceToProto(config_.result);
  if (!config_.operand.has_value()) return proto;
  *p->mutable_operand() = SliceToProto(*config_.operand);
  p->set_element_type(PrimitiveTypeToProto(config_.element_type));
  if (FindCollectiveOp(config_.op)->reduces) {
    p->set_reduction(ReductionKindToProto(config_.reduction));
  }
  for (const std::vector<int64_t>& g : config_.replica_groups) {
    auto* group = p->add_replica_groups();
    for (int64_t id : g) group->add_replica_ids(id);
  }
  p->set_dimension(config_.dimension);
  for (int64_t d : config_.operand_dimensions) p->add_operand_dimensions(d);
  for (const auto& [s, t] : config_.source_target_pairs) {
    auto* pair = p->add_source_target_pairs();
    pair->set_source(s);
    pair->set_target(t);
  }
  return proto;
}

}  // namespace xla::gpu
