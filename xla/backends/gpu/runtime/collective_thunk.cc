#include "xla/backends/gpu/runtime/collective_thunk.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/backends/gpu/runtime/collective_context.h"
#include "xla/types/xla_data_convert.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

namespace se = ::stream_executor;

struct OpRow {
  CollectiveOpProto op;
  const char* name;
  bool has_operand;   // false: a device id (no operand, u32 result)
  bool reduces;       // takes a reduction kind
  bool splits;        // `dimension` is split into group-size blocks
  bool uses_groups;   // false: collective-permute (pairs instead)
};

constexpr OpRow kOps[] = {
    {COLLECTIVE_OP_ALL_REDUCE, "all-reduce", true, true, false, true},
    {COLLECTIVE_OP_ALL_GATHER, "all-gather", true, false, false, true},
    {COLLECTIVE_OP_REDUCE_SCATTER, "reduce-scatter", true, true, true, true},
    {COLLECTIVE_OP_ALL_TO_ALL, "all-to-all", true, false, true, true},
    {COLLECTIVE_OP_COLLECTIVE_PERMUTE, "collective-permute", true, false, false, false},
    {COLLECTIVE_OP_REPLICA_ID, "replica-id", false, false, false, false},
    {COLLECTIVE_OP_PARTITION_ID, "partition-id", false, false, false, false},
    {COLLECTIVE_OP_COLLECTIVE_BROADCAST, "collective-broadcast", true, false, false, true},
};

const OpRow* FindOp(int op) {
  for (const OpRow& r : kOps) {
    if (static_cast<int>(r.op) == op) return &r;
  }
  return nullptr;
}

// The operand viewed as [outer, dimension, inner] (elements).
struct Split {
  int64_t outer = 1;
  int64_t dim = 1;
  int64_t inner = 1;
};

Split SplitAt(const std::vector<int64_t>& dims, int64_t d) {
  Split s;
  if (dims.empty()) return s;
  for (int64_t i = 0; i < d; ++i) s.outer *= dims[i];
  s.dim = dims[d];
  for (size_t i = d + 1; i < dims.size(); ++i) s.inner *= dims[i];
  return s;
}

// The block moves that reorder a buffer viewed as [outer][n blocks][block_bytes]
// into one viewed as [n][outer][block_bytes], block p going to rank
// to_rank[p] (packing), or, with `unpack`, back: move(from, to) gets the
// byte offsets of each block; stops at the first error.
absl::Status ForEachBlockMove(int64_t outer, absl::Span<const int64_t> to_rank, int64_t block_bytes,
                              bool unpack,
                              absl::FunctionRef<absl::Status(int64_t from, int64_t to)> move) {
  const int64_t n = static_cast<int64_t>(to_rank.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t p = 0; p < n; ++p) {
      int64_t from = (o * n + p) * block_bytes;
      int64_t to = (to_rank[p] * outer + o) * block_bytes;
      if (unpack) std::swap(from, to);
      RETURN_IF_ERROR(move(from, to));
    }
  }
  return absl::OkStatus();
}

// Packs (or unpacks) blocks in host memory.
void PackBlocks(const char* src, char* dst, int64_t outer, absl::Span<const int64_t> to_rank,
                int64_t block_bytes, bool unpack) {
  (void)ForEachBlockMove(outer, to_rank, block_bytes, unpack, [&](int64_t from, int64_t to) {
    std::memcpy(dst + to, src + from, block_bytes);
    return absl::OkStatus();
  });
}

// Packs (or unpacks) blocks in device memory: one device-to-device copy
// per block, enqueued on `stream`.
absl::Status PackBlocksOnStream(se::Stream& stream, se::DeviceMemoryBase src,
                                se::DeviceMemoryBase dst, int64_t outer,
                                absl::Span<const int64_t> to_rank, int64_t block_bytes,
                                bool unpack) {
  return ForEachBlockMove(outer, to_rank, block_bytes, unpack, [&](int64_t from, int64_t to) {
    ASSIGN_OR_RETURN(se::DeviceMemoryBase in, src.GetSlice(from, block_bytes));
    ASSIGN_OR_RETURN(se::DeviceMemoryBase out, dst.GetSlice(to, block_bytes));
    return stream.Memcpy(&out, in, block_bytes);
  });
}

// Whether blocks sit where the exchange wants them already: one outer
// block, and clique ranks in group order.
bool NeedsNoPacking(int64_t outer, absl::Span<const int64_t> to_rank) {
  if (outer != 1) return false;
  for (size_t p = 0; p < to_rank.size(); ++p) {
    if (to_rank[p] != static_cast<int64_t>(p)) return false;
  }
  return true;
}

// One device participant's view of a collective, resolved by
// ExecuteOnStream.
struct DeviceExchange {
  DeviceCommunicator& comm;
  se::Stream& stream;
  se::DeviceMemoryBase src;
  se::DeviceMemoryBase dst;
  int64_t bytes;  // the operand's
  Split split;
  int64_t width;  // element bytes
  int64_t n;      // group size
  absl::Span<const int64_t> to_rank;
  bool direct;  // NeedsNoPacking: no re-packing
};

// Enqueues `config`'s collective on the device stream: the same block
// layout as the host path, re-packed through the communicator's scratch
// memory only when the split dimension is not the outermost one or ranks
// are not in group order.
absl::Status EnqueueOnDevice(const CollectiveThunk::Config& config, const DeviceExchange& x,
                             std::optional<int64_t> source_rank,
                             absl::Span<const int64_t> target_ranks) {
  const int64_t elements = x.bytes / std::max<int64_t>(x.width, 1);
  switch (config.op) {
    case COLLECTIVE_OP_ALL_REDUCE:
      return x.comm.AllReduce(config.reduction, config.element_type, x.src, x.dst, elements,
                              x.stream);
    case COLLECTIVE_OP_ALL_GATHER: {
      if (x.direct) return x.comm.AllGather(x.src, x.dst, x.bytes, x.stream);
      ASSIGN_OR_RETURN(se::DeviceMemoryBase gathered, x.comm.Scratch(x.bytes * x.n));
      RETURN_IF_ERROR(x.comm.AllGather(x.src, gathered, x.bytes, x.stream));
      return PackBlocksOnStream(x.stream, gathered, x.dst, x.split.outer, x.to_rank,
                                x.split.dim * x.split.inner * x.width, /*unpack=*/true);
    }
    case COLLECTIVE_OP_REDUCE_SCATTER: {
      if (x.direct) {
        return x.comm.ReduceScatter(config.reduction, config.element_type, x.src, x.dst,
                                    elements / x.n, x.stream);
      }
      ASSIGN_OR_RETURN(se::DeviceMemoryBase packed, x.comm.Scratch(x.bytes));
      RETURN_IF_ERROR(PackBlocksOnStream(x.stream, x.src, packed, x.split.outer, x.to_rank,
                                         x.split.dim / x.n * x.split.inner * x.width,
                                         /*unpack=*/false));
      return x.comm.ReduceScatter(config.reduction, config.element_type, packed, x.dst,
                                  elements / x.n, x.stream);
    }
    case COLLECTIVE_OP_ALL_TO_ALL: {
      if (x.direct) return x.comm.AllToAll(x.src, x.dst, x.bytes / x.n, x.stream);
      const int64_t block = x.split.dim / x.n * x.split.inner * x.width;
      ASSIGN_OR_RETURN(se::DeviceMemoryBase scratch, x.comm.Scratch(2 * x.bytes));
      ASSIGN_OR_RETURN(se::DeviceMemoryBase packed, scratch.GetSlice(0, x.bytes));
      ASSIGN_OR_RETURN(se::DeviceMemoryBase received, scratch.GetSlice(x.bytes, x.bytes));
      RETURN_IF_ERROR(PackBlocksOnStream(x.stream, x.src, packed, x.split.outer, x.to_rank, block,
                                         /*unpack=*/false));
      RETURN_IF_ERROR(x.comm.AllToAll(packed, received, x.bytes / x.n, x.stream));
      return PackBlocksOnStream(x.stream, received, x.dst, x.split.outer, x.to_rank, block,
                                /*unpack=*/true);
    }
    case COLLECTIVE_OP_COLLECTIVE_PERMUTE:
      return x.comm.CollectivePermute(x.src, x.dst, x.bytes, source_rank, target_ranks,
                                      x.stream);
    case COLLECTIVE_OP_COLLECTIVE_BROADCAST:
      return x.comm.Broadcast(x.src, x.dst, x.bytes, x.to_rank[0], x.stream);
    case COLLECTIVE_OP_REPLICA_ID:
    case COLLECTIVE_OP_PARTITION_ID:
    case COLLECTIVE_OP_UNSPECIFIED:
    case CollectiveOpProto_INT_MIN_SENTINEL_DO_NOT_USE_:
    case CollectiveOpProto_INT_MAX_SENTINEL_DO_NOT_USE_:
      break;
  }
  return absl::InternalError("unreachable collective op");
}

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

}  // namespace

absl::string_view CollectiveOpName(CollectiveOpProto op) {
  const OpRow* row = FindOp(op);
  return row == nullptr ? "unknown collective" : row->name;
}

absl::StatusOr<std::unique_ptr<CollectiveThunk>> CollectiveThunk::FromProto(
    ThunkInfo info, const CollectiveThunkProto& proto, const ThunkContext& ctx) {
  const OpRow* row = FindOp(proto.op());
  if (row == nullptr || proto.op() == COLLECTIVE_OP_UNSPECIFIED) {
    return ctx.Field("op").Error(absl::StrCat("unknown collective op ", proto.op(),
                                              "; the artifact is newer than this runtime"));
  }
  Config c;
  c.op = row->op;
  ASSIGN_OR_RETURN(c.num_partitions, NumPartitionsFromProto(proto, ctx));
  ASSIGN_OR_RETURN(c.result, ctx.Slice(proto.result(), "result"));
  if (!row->has_operand) {
    if (proto.has_operand() || proto.replica_groups_size() > 0 ||
        proto.source_target_pairs_size() > 0 || proto.operand_dimensions_size() > 0) {
      return ctx.Error(absl::StrCat(row->name, " takes no operand, groups, pairs or dimensions"));
    }
    if (c.result.size != 4) {
      return ctx.Field("result").Error(
          absl::StrCat(row->name, " writes a u32 scalar (4 bytes), not ", c.result.size));
    }
    return std::make_unique<CollectiveThunk>(std::move(info), std::move(c));
  }
  if (!proto.has_operand()) return ctx.Field("operand").Error(absl::StrCat(row->name, " needs an operand"));
  ASSIGN_OR_RETURN(BufferSlice operand, ctx.Slice(proto.operand(), "operand"));
  c.operand = operand;
  ASSIGN_OR_RETURN(c.element_type, PrimitiveTypeFromProto(proto.element_type(),
                                                          ctx.Field("element_type").path()));
  if (!IsArrayType(c.element_type) || BitWidth(c.element_type) < 8 ||
      BitWidth(c.element_type) % 8 != 0) {
    return ctx.Field("element_type").Error(absl::StrCat(
        row->name, " needs an array type of whole bytes, not ", PrimitiveTypeName(c.element_type)));
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
  if (elements * width != operand.size) {
    return ctx.Field("operand_dimensions").Error(absl::StrCat(
        "[", absl::StrJoin(c.operand_dimensions, ","), "] ", PrimitiveTypeName(c.element_type),
        " is ", elements * width, " bytes but the operand slice has ", operand.size));
  }
  if (row->reduces) {
    absl::StatusOr<ReductionKind> kind = ReductionKindFromProto(proto.reduction());
    if (!kind.ok()) return ctx.Field("reduction").Error(kind.status().message());
    c.reduction = *kind;
    if (!IsSupportedReduction(c.reduction, c.element_type)) {
      return ctx.Field("reduction").Error(absl::StrCat(ReductionKindName(c.reduction),
                                                       " is not supported for ",
                                                       PrimitiveTypeName(c.element_type)));
    }
  } else if (proto.reduction() != REDUCTION_KIND_UNSPECIFIED) {
    return ctx.Field("reduction").Error(absl::StrCat(row->name, " takes no reduction"));
  }
  int64_t group_size = 1;
  if (row->uses_groups) {
    if (proto.source_target_pairs_size() > 0) {
      return ctx.Field("source_target_pairs").Error(absl::StrCat(row->name, " takes no pairs"));
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
    group_size = static_cast<int64_t>(c.replica_groups[0].size());
  } else {
    if (proto.replica_groups_size() > 0) {
      return ctx.Field("replica_groups").Error(absl::StrCat(row->name, " uses source_target_pairs"));
    }
    RETURN_IF_ERROR(ctx.CheckCount(proto.source_target_pairs_size(), "source_target_pairs"));
    std::set<int64_t> sources, targets;
    for (const SourceTargetPairProto& p : proto.source_target_pairs()) {
      const ThunkContext f = ctx.Field("source_target_pairs");
      RETURN_IF_ERROR(CheckIds(f, {p.source()}, &sources));
      RETURN_IF_ERROR(CheckIds(f, {p.target()}, &targets));
      c.source_target_pairs.emplace_back(p.source(), p.target());
    }
  }
  const int64_t rank = static_cast<int64_t>(c.operand_dimensions.size());
  const bool has_dimension = c.op == COLLECTIVE_OP_ALL_GATHER || row->splits;
  if (has_dimension) {
    if (proto.dimension() < 0 || proto.dimension() >= std::max<int64_t>(rank, 1) || rank == 0) {
      return ctx.Field("dimension").Error(absl::StrCat("dimension ", proto.dimension(),
                                                       " is outside the operand's rank ", rank));
    }
    c.dimension = proto.dimension();
    if (row->splits && c.operand_dimensions[c.dimension] % group_size != 0) {
      return ctx.Field("dimension").Error(absl::StrCat(
          "dimension ", c.dimension, " has size ", c.operand_dimensions[c.dimension],
          ", not a multiple of the group size ", group_size));
    }
  } else if (proto.dimension() != 0) {
    return ctx.Field("dimension").Error(absl::StrCat(row->name, " takes no dimension"));
  }
  int64_t want = operand.size;
  if (c.op == COLLECTIVE_OP_ALL_GATHER) want = operand.size * group_size;
  if (c.op == COLLECTIVE_OP_REDUCE_SCATTER) want = operand.size / group_size;
  if (c.result.size != want) {
    return ctx.Field("result").Error(absl::StrCat(row->name, " over groups of ", group_size,
                                                  " writes ", want, " bytes, not ",
                                                  c.result.size));
  }
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

absl::Status CollectiveThunk::ExecuteOnStream(const ExecuteParams& params) const {
  const absl::string_view name = CollectiveOpName(config_.op);
  const CollectiveContext* ctx = params.collectives;
  if (ctx == nullptr) {
    return AnnotateError(*this, absl::FailedPreconditionError(absl::StrCat(
        name, " needs a replicated execution (xla/aot/replicated_execution.h) that says which "
              "replica this device is")));
  }
  const bool on_host = params.executor->platform_name() == "host";
  if (!on_host && !ctx->device_communicator) {
    return AnnotateError(*this, absl::FailedPreconditionError(absl::StrCat(
        name, " on platform '", params.executor->platform_name(),
        "' needs device communicators (NCCL on CUDA), but the execution provides none")));
  }
  se::DeviceMemoryBase dst_memory = params.buffers->GetDeviceAddress(config_.result);
  char* dst = static_cast<char*>(dst_memory.opaque);
  se::Stream* s = stream(params);
  if (ctx->num_partitions != config_.num_partitions) {
    return AnnotateError(*this, absl::InvalidArgumentError(absl::StrCat(
        name, " was compiled for ", config_.num_partitions, " partition(s) but the execution "
        "runs ", ctx->num_partitions, "; run every partition of the module")));
  }
  if (!config_.operand.has_value()) {
    const uint32_t id = static_cast<uint32_t>(
        config_.op == COLLECTIVE_OP_REPLICA_ID ? ctx->replica_id : ctx->partition_id);
    if (!on_host) return AnnotateError(*this, s->Memset32(&dst_memory, id, sizeof(id)));
    return AnnotateError(*this, s->DoHostCallback([dst, id]() -> absl::Status {
      std::memcpy(dst, &id, sizeof(id));
      return absl::OkStatus();
    }));
  }
  const se::DeviceMemoryBase src_memory = params.buffers->GetDeviceAddress(*config_.operand);
  const char* src = static_cast<const char*>(src_memory.opaque);
  const int64_t num_participants = static_cast<int64_t>(ctx->replica_devices.size());
  const int64_t me = ctx->participant_id();
  // Ids are replica ids with one partition, global device ids with several.
  const char* const unit = ctx->num_partitions > 1 ? "participant" : "replica";

  // This participant's group (rank order = group order) and, for a permute,
  // its source.
  std::vector<int64_t> group;
  std::optional<int64_t> source;
  std::vector<int64_t> targets;
  if (config_.op == COLLECTIVE_OP_COLLECTIVE_PERMUTE) {
    std::set<int64_t> ids;
    for (const auto& [from, to] : config_.source_target_pairs) {
      ids.insert(from);
      ids.insert(to);
      if (to == me) source = from;
      if (from == me) targets.push_back(to);
    }
    group.assign(ids.begin(), ids.end());
  } else {
    for (const std::vector<int64_t>& g : config_.replica_groups) {
      if (std::find(g.begin(), g.end(), me) != g.end()) group = g;
    }
    if (group.empty()) {
      return AnnotateError(*this, absl::InvalidArgumentError(absl::StrCat(
          name, ": ", unit, " ", me, " is in no replica group; groups must cover every ", unit)));
    }
  }
  const bool participates = std::find(group.begin(), group.end(), me) != group.end();
  std::vector<int64_t> devices;
  for (int64_t id : group) {
    if (id >= num_participants) {
      return AnnotateError(*this, absl::InvalidArgumentError(absl::StrCat(
          name, " names ", unit, " ", id, " but the execution has ", num_participants, " ", unit,
          "s; run with more replicas or recompile for ", num_participants)));
    }
    devices.push_back(ctx->replica_devices[id]);
  }
  const int64_t bytes = config_.operand->size;
  if (!participates) {  // a permute that involves neither this replica's send nor receive
    if (!on_host) return AnnotateError(*this, s->MemZero(&dst_memory, bytes));
    return AnnotateError(*this, s->DoHostCallback([dst, bytes]() -> absl::Status {
      std::memset(dst, 0, bytes);
      return absl::OkStatus();
    }));
  }
  absl::StatusOr<CliqueKey> key = CliqueKey::Create(devices);
  if (!key.ok()) return AnnotateError(*this, key.status());
  // to_rank[p]: the clique rank of the participant at group position p.
  std::vector<int64_t> to_rank;
  for (int64_t d : devices) to_rank.push_back(*key->RankOf(d));
  std::optional<int64_t> source_rank;
  if (source.has_value()) {
    if (*source >= num_participants) {
      return AnnotateError(*this, absl::InvalidArgumentError(absl::StrCat(
          name, " names ", unit, " ", *source, " but the execution has ", num_participants, " ",
          unit, "s")));
    }
    source_rank = *key->RankOf(ctx->replica_devices[*source]);
  }
  const Split split = SplitAt(config_.operand_dimensions, config_.dimension);
  const int64_t width = ByteWidth(config_.element_type);
  const int64_t n = static_cast<int64_t>(group.size());
  // Blocks already in place go to the communicator without a copy.
  const bool direct = NeedsNoPacking(split.outer, to_rank);
  if (!on_host) {
    absl::StatusOr<DeviceCommunicator*> comm =
        ctx->device_communicator(*key, ctx->replica_devices[me]);
    if (!comm.ok()) return AnnotateError(*this, comm.status());
    std::vector<int64_t> target_ranks;
    for (int64_t t : targets) {
      if (t >= num_participants) {
        return AnnotateError(*this, absl::InvalidArgumentError(absl::StrCat(
            name, " names ", unit, " ", t, " but the execution has ", num_participants, " ", unit,
            "s")));
      }
      target_ranks.push_back(*key->RankOf(ctx->replica_devices[t]));
    }
    const DeviceExchange x{**comm, *s, src_memory, dst_memory, bytes, split, width, n, to_rank,
                           direct};
    return AnnotateError(*this, EnqueueOnDevice(config_, x, source_rank, target_ranks));
  }
  absl::StatusOr<Communicator*> comm = ctx->communicator(*key, ctx->replica_devices[me]);
  if (!comm.ok()) return AnnotateError(*this, comm.status());
  auto work = [this, c = *comm, run = ctx->run_id, src, dst, bytes, to_rank, source_rank, split,
               width, n, direct]() -> absl::Status {
    switch (config_.op) {
      case COLLECTIVE_OP_ALL_REDUCE:
        return c->AllReduce(run, config_.reduction, config_.element_type, src, dst,
                            bytes / std::max<int64_t>(width, 1));
      case COLLECTIVE_OP_ALL_GATHER: {
        if (direct) return c->AllGather(run, src, dst, bytes);
        // Gather whole operands in rank order, then interleave along the
        // dimension in group order.
        std::vector<char> gathered(bytes * n);
        RETURN_IF_ERROR(c->AllGather(run, src, gathered.data(), bytes));
        PackBlocks(gathered.data(), dst, split.outer, to_rank, split.dim * split.inner * width,
                   /*unpack=*/true);
        return absl::OkStatus();
      }
      case COLLECTIVE_OP_REDUCE_SCATTER: {
        const int64_t count = bytes / n / std::max<int64_t>(width, 1);
        if (direct) {
          return c->ReduceScatter(run, config_.reduction, config_.element_type, src, dst, count);
        }
        std::vector<char> packed(bytes);
        PackBlocks(src, packed.data(), split.outer, to_rank, split.dim / n * split.inner * width,
                   /*unpack=*/false);
        return c->ReduceScatter(run, config_.reduction, config_.element_type, packed.data(), dst,
                                count);
      }
      case COLLECTIVE_OP_ALL_TO_ALL: {
        if (direct) return c->AllToAll(run, src, dst, bytes / n);
        const int64_t block = split.dim / n * split.inner * width;
        std::vector<char> packed(bytes), received(bytes);
        PackBlocks(src, packed.data(), split.outer, to_rank, block, /*unpack=*/false);
        RETURN_IF_ERROR(c->AllToAll(run, packed.data(), received.data(), bytes / n));
        PackBlocks(received.data(), dst, split.outer, to_rank, block, /*unpack=*/true);
        return absl::OkStatus();
      }
      case COLLECTIVE_OP_COLLECTIVE_PERMUTE:
        return c->CollectivePermute(run, src, dst, bytes, source_rank);
      case COLLECTIVE_OP_COLLECTIVE_BROADCAST:
        // The root is the group's first listed replica, wherever its
        // device sorts in the clique.
        return c->Broadcast(run, src, dst, bytes, to_rank[0]);
      case COLLECTIVE_OP_REPLICA_ID:
      case COLLECTIVE_OP_PARTITION_ID:
      case COLLECTIVE_OP_UNSPECIFIED:
      case CollectiveOpProto_INT_MIN_SENTINEL_DO_NOT_USE_:
      case CollectiveOpProto_INT_MAX_SENTINEL_DO_NOT_USE_:
        break;
    }
    return absl::InternalError("unreachable collective op");
  };
  return AnnotateError(*this, s->DoHostCallback([this, work = std::move(work)]() {
    return AnnotateError(*this, work());
  }));
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
  if (FindOp(config_.op)->reduces) p->set_reduction(ReductionKindToProto(config_.reduction));
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
