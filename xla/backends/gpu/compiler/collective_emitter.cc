#include "xla/backends/gpu/compiler/collective_emitter.h"

#include <variant>

#include "absl/strings/str_cat.h"
#include "xla/hlo/ir/collective_groups.h"
#include "xla/types/xla_data_convert.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

// The synchronous collective an async -start op performs, or `op` itself.
HloOpcode SyncFormOf(HloOpcode op) {
  if (op == HloOpcode::kAllReduceStart) return HloOpcode::kAllReduce;
  if (op == HloOpcode::kAllGatherStart) return HloOpcode::kAllGather;
  if (op == HloOpcode::kCollectivePermuteStart) return HloOpcode::kCollectivePermute;
  return op;
}

// The -start op that a -done op completes (only called for -done ops).
HloOpcode StartOf(HloOpcode done) {
  if (done == HloOpcode::kAllGatherDone) return HloOpcode::kAllGatherStart;
  if (done == HloOpcode::kCollectivePermuteDone) return HloOpcode::kCollectivePermuteStart;
  return HloOpcode::kAllReduceStart;
}

bool IsCollectiveDone(HloOpcode op) {
  return op == HloOpcode::kAllReduceDone || op == HloOpcode::kAllGatherDone ||
         op == HloOpcode::kCollectivePermuteDone;
}

bool IsIdQuery(HloOpcode op) {
  return op == HloOpcode::kReplicaId || op == HloOpcode::kPartitionId;
}

// Where a collective's results live inside its own shape: {} for the
// synchronous ops and an array-shaped -start, {1} for the (operand,
// output[, contexts...]) tuple of an all-gather-start or
// collective-permute-start.
ShapeIndex OutputIndexOf(const HloInstruction& instr) {
  const HloOpcode op = instr.opcode();
  if ((op == HloOpcode::kAllGatherStart || op == HloOpcode::kCollectivePermuteStart) &&
      instr.shape().IsTuple()) {
    return ShapeIndex{1};
  }
  return ShapeIndex{};
}

// Ops that emit no thunk of their own, or only a copy into their own
// slices when those differ from their source's (thunk emission's
// EmitInstruction).
bool EmitsNoWork(HloOpcode op) {
  return op == HloOpcode::kParameter || op == HloOpcode::kConstant ||
         op == HloOpcode::kTuple || op == HloOpcode::kGetTupleElement ||
         op == HloOpcode::kBitcast || op == HloOpcode::kOptimizationBarrier ||
         op == HloOpcode::kAddDependency || op == HloOpcode::kAfterAll;
}

// What each synchronous data collective becomes.
struct CollectiveKind {
  HloOpcode sync;
  CollectiveOpProto op;
  bool reduces;        // carries the reduction of its to_apply
  bool has_dimension;  // gathers or scatters along one dimension (1 operand)
};
constexpr CollectiveKind kCollectiveKinds[] = {
    {HloOpcode::kAllReduce, COLLECTIVE_OP_ALL_REDUCE, true, false},
    {HloOpcode::kReduceScatter, COLLECTIVE_OP_REDUCE_SCATTER, true, true},
    {HloOpcode::kAllGather, COLLECTIVE_OP_ALL_GATHER, false, true},
    {HloOpcode::kAllToAll, COLLECTIVE_OP_ALL_TO_ALL, false, true},
    // Root: each group's first listed replica (the runtime reads it from
    // the group order).
    {HloOpcode::kCollectiveBroadcast, COLLECTIVE_OP_COLLECTIVE_BROADCAST, false, false},
    {HloOpcode::kCollectivePermute, COLLECTIVE_OP_COLLECTIVE_PERMUTE, false, false},
};

const CollectiveKind* FindKind(HloOpcode sync) {
  for (const CollectiveKind& kind : kCollectiveKinds) {
    if (kind.sync == sync) return &kind;
  }
  return nullptr;
}

absl::StatusOr<ReductionKindProto> ReductionOf(const HloInstruction& instr) {
  const HloComputation* reducer = instr.to_apply();
  const HloInstruction* root = reducer == nullptr ? nullptr : reducer->root_instruction();
  if (root != nullptr && root->operand_count() == 2 &&
      root->operand(0)->opcode() == HloOpcode::kParameter &&
      root->operand(1)->opcode() == HloOpcode::kParameter) {
    const bool pred = root->shape().element_type() == PrimitiveType::PRED;
    struct Row {
      HloOpcode op;
      ReductionKindProto kind;
      ReductionKindProto pred_kind;
    };
    static constexpr Row kReducers[] = {
        {HloOpcode::kAdd, REDUCTION_KIND_SUM, REDUCTION_KIND_OR},
        {HloOpcode::kMultiply, REDUCTION_KIND_PROD, REDUCTION_KIND_AND},
        {HloOpcode::kMinimum, REDUCTION_KIND_MIN, REDUCTION_KIND_AND},
        {HloOpcode::kMaximum, REDUCTION_KIND_MAX, REDUCTION_KIND_OR},
        {HloOpcode::kAnd, REDUCTION_KIND_AND, REDUCTION_KIND_AND},
        {HloOpcode::kOr, REDUCTION_KIND_OR, REDUCTION_KIND_OR},
    };
    for (const Row& row : kReducers) {
      if (row.op == root->opcode()) return pred ? row.pred_kind : row.kind;
    }
  }
  return Unimplemented(instr, "the reduction computation is not a single add, multiply, "
                              "minimum, maximum, and or or of its two parameters");
}

// Unimplemented unless `shape` is an array in row-major layout.
absl::Status CheckRowMajorArray(const HloInstruction& instr, int64_t i, const Shape& shape) {
  if (!shape.IsArray()) return Unimplemented(instr, "a non-array operand");
  if (!shape.has_layout() || shape.dimensions().size() <= 1) return absl::OkStatus();
  const std::vector<int64_t>& m2m = shape.layout().minor_to_major;
  for (size_t d = 0; d < m2m.size(); ++d) {
    if (m2m[d] != static_cast<int64_t>(m2m.size() - 1 - d)) {
      return Unimplemented(instr, absl::StrCat("operand ", i, " is not row-major"));
    }
  }
  return absl::OkStatus();
}

// Where operand `i`'s copy lives inside a tuple -start's element 0.
ShapeIndex OperandCopyIndex(const HloInstruction& start, int64_t i) {
  return start.operand_count() == 1 ? ShapeIndex{0} : ShapeIndex{0, i};
}

}  // namespace

bool CollectiveEmitter::IsCollective(HloOpcode op) {
  return op == HloOpcode::kAllReduce || op == HloOpcode::kAllReduceStart ||
         op == HloOpcode::kAllReduceDone || op == HloOpcode::kAllGather ||
         op == HloOpcode::kAllGatherStart || op == HloOpcode::kAllGatherDone ||
         op == HloOpcode::kReduceScatter || op == HloOpcode::kAllToAll ||
         op == HloOpcode::kCollectivePermute || op == HloOpcode::kCollectivePermuteStart ||
         op == HloOpcode::kCollectivePermuteDone || op == HloOpcode::kReplicaId ||
         op == HloOpcode::kPartitionId || op == HloOpcode::kCollectiveBroadcast;
}

int64_t CollectiveEmitter::NumPartitions() const {
  return module_.config().num_partitions.value_or(1);
}

// The participant groups of `instr` by XLA's group modes
// (collective_groups.h): global device ids, replica * P + partition, which
// are replica ids when P = 1.
absl::StatusOr<std::vector<std::vector<int64_t>>> CollectiveEmitter::ParticipantGroupsOf(
    const HloInstruction& instr) const {
  return GetParticipantGroups(instr, module_.config().replica_count.value_or(1),
                              NumPartitions());
}

// A collective-permute's pairs as global device ids. Its participant groups
// (collective_groups.h, no replica_groups: every replica of each partition,
// or with a channel id every partition of each replica) are what the pair's
// ids index; each pair is repeated in every group.
absl::Status CollectiveEmitter::AddPermutePairs(const HloInstruction& instr,
                                                CollectiveThunkProto* proto) const {
  const AttrValue* pairs = instr.FindAttr(AttrId::kSourceTargetPairs);
  if (pairs == nullptr) return absl::OkStatus();
  ASSIGN_OR_RETURN(const std::vector<std::vector<int64_t>> groups, ParticipantGroupsOf(instr));
  for (const std::vector<int64_t>& p : std::get<std::vector<std::vector<int64_t>>>(*pairs)) {
    if (p.size() != 2) return Unimplemented(instr, "a source-target pair without 2 ids");
    for (const std::vector<int64_t>& group : groups) {
      const int64_t size = static_cast<int64_t>(group.size());
      if (p[0] < 0 || p[0] >= size || p[1] < 0 || p[1] >= size) {
        return absl::InvalidArgumentError(absl::StrCat(instr.name(), ": source-target pair {",
                                                       p[0], ",", p[1], "} is outside [0, ",
                                                       size, ")"));
      }
      SourceTargetPairProto* pair = proto->add_source_target_pairs();
      pair->set_source(group[p[0]]);
      pair->set_target(group[p[1]]);
    }
  }
  return absl::OkStatus();
}

// The fields every per-operand thunk of the data collective `instr` shares:
// op, partitions, groups or pairs, reduction and dimension.
absl::StatusOr<CollectiveThunkProto> CollectiveEmitter::ProtoOf(
    const HloInstruction& instr) const {
  const CollectiveKind* kind = FindKind(SyncFormOf(instr.opcode()));
  if (kind == nullptr) return Unimplemented(instr, "not a data collective");
  CollectiveThunkProto proto;
  if (NumPartitions() > 1) proto.set_num_partitions(NumPartitions());
  proto.set_op(kind->op);
  if (kind->sync == HloOpcode::kCollectivePermute) {
    if (instr.operand_count() != 1) return Unimplemented(instr, "in-place collective-permute");
    RETURN_IF_ERROR(AddPermutePairs(instr, &proto));
  } else {
    ASSIGN_OR_RETURN(const std::vector<std::vector<int64_t>> groups, ParticipantGroupsOf(instr));
    for (const std::vector<int64_t>& g : groups) {
      ReplicaGroupProto* group = proto.add_replica_groups();
      for (int64_t id : g) group->add_replica_ids(id);
    }
  }
  if (kind->reduces) {
    ASSIGN_OR_RETURN(ReductionKindProto reduction, ReductionOf(instr));
    proto.set_reduction(reduction);
  }
  if (kind->sync == HloOpcode::kAllToAll && instr.dimensions().empty() &&
      !instr.has_attr(AttrId::kSplitDimension)) {
    return Unimplemented(instr, "the tuple form of all-to-all (without a split dimension)");
  }
  if (kind->has_dimension) {
    if (instr.operand_count() != 1) {
      return Unimplemented(instr, "more than one operand (emit one collective per operand)");
    }
    const std::vector<int64_t>& dims = instr.dimensions();
    proto.set_dimension(dims.empty() ? instr.GetInt(AttrId::kSplitDimension) : dims[0]);
  }
  return proto;
}

// Joins the start's communication stream when the pair was left open;
// done's value is the start's output (a copy only when buffer assignment
// gave it its own slices).
absl::Status CollectiveEmitter::EmitDone(const HloInstruction& done, Thunks* out) {
  const HloInstruction* start = done.operand(0);
  const HloOpcode expected = StartOf(done.opcode());
  if (start->opcode() != expected) {
    return Unimplemented(done, absl::StrCat("its operand '", start->name(), "' is a ",
                                            HloOpcodeName(start->opcode()), ", not a ",
                                            HloOpcodeName(expected)));
  }
  if (auto open = open_async_.find(start); open != open_async_.end()) {
    AddThunk(done, out)->mutable_async_done()->set_async_id(open->second);
    open_async_.erase(open);
  }
  return AliasOrCopy(assignment_, done, start, OutputIndexOf(*start), &done, {}, out);
}

absl::Status CollectiveEmitter::EmitIdQuery(const HloInstruction& instr, Thunks* out) {
  ASSIGN_OR_RETURN(xla::BufferSlice result, Slice(&instr, {}));
  CollectiveThunkProto* c = AddThunk(instr, out)->mutable_collective();
  c->set_op(instr.opcode() == HloOpcode::kReplicaId ? COLLECTIVE_OP_REPLICA_ID
                                                    : COLLECTIVE_OP_PARTITION_ID);
  if (NumPartitions() > 1) c->set_num_partitions(NumPartitions());
  *c->mutable_result() = SliceToProto(result);
  return absl::OkStatus();
}

// One thunk per operand into `collectives`: leaf i of a tuple result, or
// the array result. `touched` gets each thunk's source and result slices.
absl::Status CollectiveEmitter::EmitOnePerOperand(const HloInstruction& instr,
                                                  const CollectiveThunkProto& proto,
                                                  Thunks* collectives,
                                                  std::vector<xla::BufferSlice>* touched) {
  const ShapeIndex output_index = OutputIndexOf(instr);
  const Shape* result_shape = SubshapeAt(instr.shape(), output_index);
  if (result_shape == nullptr) return absl::InternalError("bad collective output index");
  const bool tuple = result_shape->IsTuple();
  const bool is_start = SyncFormOf(instr.opcode()) != instr.opcode();
  for (int64_t i = 0; i < instr.operand_count(); ++i) {
    const HloInstruction* operand = instr.operand(i);
    const Shape& shape = operand->shape();
    RETURN_IF_ERROR(CheckRowMajorArray(instr, i, shape));
    ThunkProto* thunk = AddThunk(instr, collectives);
    if (is_start) thunk->set_execution_stream_id(kCollectiveStream);
    CollectiveThunkProto* c = thunk->mutable_collective();
    *c = proto;
    // A tuple start reads element 0 (the operand's copy, live until the
    // -done), so nothing between start and done can overwrite its input.
    ASSIGN_OR_RETURN(xla::BufferSlice source, output_index.empty()
                                             ? Slice(operand, {})
                                             : Slice(&instr, OperandCopyIndex(instr, i)));
    ASSIGN_OR_RETURN(xla::BufferSlice result,
                     Slice(&instr, tuple ? Concat(output_index, ShapeIndex{i}) : output_index));
    *c->mutable_operand() = SliceToProto(source);
    *c->mutable_result() = SliceToProto(result);
    touched->push_back(source);
    touched->push_back(result);
    c->set_element_type(PrimitiveTypeToProto(shape.element_type()));
    for (int64_t d : shape.dimensions()) c->add_operand_dimensions(d);
  }
  return absl::OkStatus();
}

absl::Status CollectiveEmitter::Emit(const HloInstruction& instr, Thunks* out) {
  const HloOpcode op = instr.opcode();
  if (!enabled_) {
    return Unimplemented(instr, absl::StrCat(
        HloOpcodeName(op), " is emitted only with --emit_collectives (stage 1 of the "
        "collectives rollout: runtimes read it since 2026-11-30, emission is off by default)"));
  }
  if (IsCollectiveDone(op)) return EmitDone(instr, out);
  if (IsIdQuery(op)) return EmitIdQuery(instr, out);
  ASSIGN_OR_RETURN(const CollectiveThunkProto proto, ProtoOf(instr));
  if (!OutputIndexOf(instr).empty()) {
    // Element 0 of a -start's (operand, output) tuple holds the operand.
    for (int64_t i = 0; i < instr.operand_count(); ++i) {
      RETURN_IF_ERROR(AliasOrCopy(assignment_, instr, instr.operand(i), {}, &instr,
                                  OperandCopyIndex(instr, i), out));
    }
  }
  std::vector<xla::BufferSlice> touched;  // what the collectives read and write
  if (SyncFormOf(op) == op) return EmitOnePerOperand(instr, proto, out, &touched);
  // A -start's collectives go to the communication stream, nested in an
  // async_start; the -done (or, when overlap is unsafe, an async_done right
  // here) joins them.
  const int64_t async_id = NewAsyncId();
  used_stream_ = true;
  AsyncStartThunkProto* start = AddThunk(instr, out)->mutable_async_start();
  start->set_async_id(async_id);
  start->set_stream_id(kCollectiveStream);
  RETURN_IF_ERROR(
      EmitOnePerOperand(instr, proto, start->mutable_thunks()->mutable_thunks(), &touched));
  if (CanOverlap(instr, touched)) {
    open_async_[&instr] = async_id;
  } else {
    AddThunk(instr, out)->mutable_async_done()->set_async_id(async_id);
  }
  return absl::OkStatus();
}

// Whether the collectives of `start`, which read and write `touched`, may
// run on the communication stream until its -done while the thunks
// scheduled between them run on the compute stream. False (the pair is
// joined at once) when one of those, or anything in a computation they
// call, Interferes, or when the -done is not in the same sequence.
bool CollectiveEmitter::CanOverlap(const HloInstruction& start,
                                   const std::vector<xla::BufferSlice>& touched) const {
  const std::vector<const HloInstruction*>& sequence = schedule_.sequence(start.parent());
  size_t at = 0;
  while (at < sequence.size() && sequence[at] != &start) ++at;
  std::vector<const HloInstruction*> between;
  bool done_found = false;
  for (size_t i = at + 1; i < sequence.size(); ++i) {
    if (IsCollectiveDone(sequence[i]->opcode()) && sequence[i]->operand(0) == &start) {
      done_found = true;
      break;
    }
    between.push_back(sequence[i]);
  }
  if (!done_found) return false;
  for (size_t k = 0; k < between.size(); ++k) {
    const HloInstruction* instr = between[k];
    if (Interferes(start, *instr, touched)) return false;
    for (const HloComputation* callee : instr->called_computations()) {
      if (!schedule_.has_sequence(callee)) continue;  // fused: the fusion's slices count
      for (const HloInstruction* inner : schedule_.sequence(callee)) between.push_back(inner);
    }
  }
  return true;
}

// Whether `instr`, scheduled between `start` and its -done, keeps the pair
// from overlapping: it is a collective other than a -start/-done (it would
// run on the compute stream, and a communicator matches ops in the order
// they arrive), writes bytes overlapping `touched` (a forwarding op's copy
// included), or reads bytes overlapping the collective's results (the odd
// entries of `touched`).
bool CollectiveEmitter::Interferes(const HloInstruction& start, const HloInstruction& instr,
                                   const std::vector<xla::BufferSlice>& touched) const {
  const HloOpcode op = instr.opcode();
  if (IsCollective(op) && SyncFormOf(op) == op && !IsCollectiveDone(op) && !IsIdQuery(op)) {
    return true;
  }
  if (op == HloOpcode::kParameter || op == HloOpcode::kConstant) return false;
  const bool forwards = EmitsNoWork(op);
  if (!forwards) {
    for (const HloInstruction* operand : instr.operands()) {
      for (const ShapeIndex& leaf : ArrayLeaves(operand->shape())) {
        absl::StatusOr<xla::BufferSlice> read = Slice(operand, leaf);
        if (!read.ok()) return true;
        for (size_t k = 1; k < touched.size(); k += 2) {
          if (read->Overlaps(touched[k])) return true;
        }
      }
    }
  }
  for (const ShapeIndex& leaf : ArrayLeaves(instr.shape())) {
    absl::StatusOr<xla::BufferSlice> written = Slice(&instr, leaf);
    if (!written.ok()) return true;
    // A forwarding op that aliases a position of `start` itself (the
    // get-tuple-element of element 0) writes nothing.
    if (forwards && IsSliceOf(start, *written)) continue;
    for (const xla::BufferSlice& t : touched) {
      if (written->Overlaps(t)) return true;
    }
  }
  return false;
}

bool CollectiveEmitter::IsSliceOf(const HloInstruction& instr, const xla::BufferSlice& slice) const {
  for (const ShapeIndex& leaf : ArrayLeaves(instr.shape())) {
    absl::StatusOr<xla::BufferSlice> s = Slice(&instr, leaf);
    if (s.ok() && *s == slice) return true;
  }
  return false;
}

}  // namespace xla::gpu
