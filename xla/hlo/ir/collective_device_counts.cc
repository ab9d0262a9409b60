#include "xla/hlo/ir/collective_device_counts.h"

#include <algorithm>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/ir/collective_groups.h"
#include "xla/hlo/ir/hlo_opcode.h"

namespace xla {
namespace {

// Which count an instruction's ids index.
enum class IdKind { kReplica, kPartition, kGlobal };

// The largest id in `lists` (-1 when there is none); InvalidArgument naming
// `instr` for a negative one.
absl::StatusOr<int64_t> MaxId(const HloInstruction& instr,
                              const std::vector<std::vector<int64_t>>& lists) {
  int64_t max_id = -1;
  for (const std::vector<int64_t>& list : lists) {
    for (int64_t id : list) {
      if (id < 0) {
        return absl::InvalidArgumentError(absl::StrCat(HloOpcodeName(instr.opcode()), " '",
                                                       instr.name(), "': negative device id ", id));
      }
      max_id = std::max(max_id, id);
    }
  }
  return max_id;
}

// Raises `counts` so that `max_id` of `kind` is in range.
void Require(IdKind kind, int64_t max_id, DeviceCounts* counts) {
  const int64_t needed = max_id + 1;
  switch (kind) {
    case IdKind::kReplica:
      counts->num_replicas = std::max(counts->num_replicas, needed);
      return;
    case IdKind::kPartition:
      counts->num_partitions = std::max(counts->num_partitions, needed);
      return;
    case IdKind::kGlobal:
      if (counts->participants() < needed) {
        counts->num_partitions = (needed + counts->num_replicas - 1) / counts->num_replicas;
      }
      return;
  }
}

absl::StatusOr<IdKind> KindOfGroups(const HloInstruction& instr) {
  absl::StatusOr<CollectiveOpGroupMode> mode = GetCollectiveOpGroupMode(instr);
  if (!mode.ok()) return mode.status();
  switch (*mode) {
    case CollectiveOpGroupMode::kCrossReplica:
    case CollectiveOpGroupMode::kCrossReplicaAndPartition:
      return IdKind::kReplica;
    case CollectiveOpGroupMode::kCrossPartition:
      return IdKind::kPartition;
    case CollectiveOpGroupMode::kFlattenedId:
      return IdKind::kGlobal;
  }
  return IdKind::kReplica;
}

absl::Status Visit(const HloInstruction& instr, DeviceCounts* counts) {
  if (const AttrValue* v = instr.FindAttr(AttrId::kReplicaGroups)) {
    const ReplicaGroups* groups = std::get_if<ReplicaGroups>(v);
    if (groups != nullptr) {
      absl::StatusOr<IdKind> kind = KindOfGroups(instr);
      if (!kind.ok()) return kind.status();
      absl::StatusOr<int64_t> max_id = MaxId(instr, groups->Expand());
      if (!max_id.ok()) return max_id.status();
      Require(*kind, *max_id, counts);
    }
  }
  if (const AttrValue* v = instr.FindAttr(AttrId::kSourceTargetPairs)) {
    const auto* pairs = std::get_if<std::vector<std::vector<int64_t>>>(v);
    if (pairs != nullptr) {
      absl::StatusOr<int64_t> max_id = MaxId(instr, *pairs);
      if (!max_id.ok()) return max_id.status();
      Require(instr.has_attr(AttrId::kChannelId) ? IdKind::kPartition : IdKind::kReplica, *max_id,
              counts);
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<DeviceCounts> DeviceCountsForCollectives(const HloModule& module) {
  DeviceCounts counts;
  counts.num_replicas = std::max<int64_t>(1, module.config().replica_count.value_or(1));
  counts.num_partitions = std::max<int64_t>(1, module.config().num_partitions.value_or(1));
  if (module.entry_computation() == nullptr) return counts;
  // The computations the entry reaches (dead ones do not run).
  std::vector<const HloComputation*> stack = {module.entry_computation()};
  absl::flat_hash_set<const HloComputation*> seen = {module.entry_computation()};
  while (!stack.empty()) {
    const HloComputation* computation = stack.back();
    stack.pop_back();
    for (const auto& instr : computation->instructions()) {
      if (absl::Status s = Visit(*instr, &counts); !s.ok()) return s;
      for (const HloComputation* callee : instr->called_computations()) {
        if (seen.insert(callee).second) stack.push_back(callee);
      }
    }
  }
  return counts;
}

}  // namespace xla
