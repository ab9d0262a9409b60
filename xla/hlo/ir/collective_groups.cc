#include "xla/hlo/ir/collective_groups.h"

#include <string>
#include <variant>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/ir/hlo_opcode.h"

namespace xla {
namespace {

// Ops that carry `use_global_device_ids` (absent means false).
constexpr HloOpcode kOpsWithGlobalDeviceIds[] = {
    HloOpcode::kAllReduce,      HloOpcode::kAllReduceStart, HloOpcode::kAllGather,
    HloOpcode::kAllGatherStart, HloOpcode::kReduceScatter,
};

std::string Who(const HloInstruction& instr) {
  return absl::StrCat(HloOpcodeName(instr.opcode()), " '", instr.name(), "'");
}

// Checks ids against [0, limit) and for repeats.
absl::Status CheckIds(const std::vector<std::vector<int64_t>>& groups, int64_t limit,
                      absl::string_view what) {
  std::vector<bool> seen(limit, false);
  for (const std::vector<int64_t>& g : groups) {
    if (g.empty()) return absl::InvalidArgumentError("replica groups contain an empty group");
    for (int64_t id : g) {
      if (id < 0 || id >= limit) {
        return absl::InvalidArgumentError(
            absl::StrCat(what, " ", id, " in replica groups is out of range [0, ", limit, ")"));
      }
      if (seen[id]) {
        return absl::InvalidArgumentError(
            absl::StrCat(what, " ", id, " appears in more than one replica group"));
      }
      seen[id] = true;
    }
  }
  return absl::OkStatus();
}

std::vector<std::vector<int64_t>> AllOf(int64_t n) {
  std::vector<int64_t> all;
  for (int64_t i = 0; i < n; ++i) all.push_back(i);
  return {all};
}

}  // namespace

absl::string_view CollectiveOpGroupModeName(CollectiveOpGroupMode mode) {
  switch (mode) {
    case CollectiveOpGroupMode::kCrossReplica:
      return "cross_replica";
    case CollectiveOpGroupMode::kCrossPartition:
      return "cross_partition";
    case CollectiveOpGroupMode::kCrossReplicaAndPartition:
      return "cross_replica_and_partition";
    case CollectiveOpGroupMode::kFlattenedId:
      return "flattened_id";
  }
  return "unknown";
}

absl::StatusOr<CollectiveOpGroupMode> GetCollectiveOpGroupMode(
    bool has_channel_id, std::optional<bool> use_global_device_ids) {
  if (!has_channel_id) {
    if (use_global_device_ids.value_or(false)) {
      return absl::InvalidArgumentError(
          "use_global_device_ids=true needs a channel_id; add channel_id or drop "
          "use_global_device_ids");
    }
    return CollectiveOpGroupMode::kCrossReplica;
  }
  if (!use_global_device_ids.has_value()) return CollectiveOpGroupMode::kCrossPartition;
  return *use_global_device_ids ? CollectiveOpGroupMode::kFlattenedId
                                : CollectiveOpGroupMode::kCrossReplicaAndPartition;
}

absl::StatusOr<CollectiveOpGroupMode> GetCollectiveOpGroupMode(const HloInstruction& instr) {
  std::optional<bool> global;
  for (HloOpcode op : kOpsWithGlobalDeviceIds) {
    if (instr.opcode() == op) global = instr.GetBool(AttrId::kUseGlobalDeviceIds, false);
  }
  absl::StatusOr<CollectiveOpGroupMode> mode =
      GetCollectiveOpGroupMode(instr.has_attr(AttrId::kChannelId), global);
  if (!mode.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(Who(instr), ": ", mode.status().message()));
  }
  return mode;
}

absl::StatusOr<std::vector<std::vector<int64_t>>> GetParticipantGroups(
    const std::vector<std::vector<int64_t>>& groups, CollectiveOpGroupMode mode,
    int64_t num_replicas, int64_t num_partitions) {
  if (num_replicas <= 0 || num_partitions <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("num_replicas (", num_replicas,
                                                   ") and num_partitions (", num_partitions,
                                                   ") must be positive"));
  }
  std::vector<std::vector<int64_t>> out;
  switch (mode) {
    case CollectiveOpGroupMode::kCrossReplica: {
      const auto ids = groups.empty() ? AllOf(num_replicas) : groups;
      if (absl::Status s = CheckIds(ids, num_replicas, "replica"); !s.ok()) return s;
      for (const std::vector<int64_t>& g : ids) {
        for (int64_t p = 0; p < num_partitions; ++p) {
          std::vector<int64_t> devices;
          for (int64_t r : g) devices.push_back(GlobalDeviceId(r, p, num_partitions));
          out.push_back(std::move(devices));
        }
      }
      return out;
    }
    case CollectiveOpGroupMode::kCrossPartition: {
      const auto ids = groups.empty() ? AllOf(num_partitions) : groups;
      if (absl::Status s = CheckIds(ids, num_partitions, "partition"); !s.ok()) return s;
      for (const std::vector<int64_t>& g : ids) {
        for (int64_t r = 0; r < num_replicas; ++r) {
          std::vector<int64_t> devices;
          for (int64_t p : g) devices.push_back(GlobalDeviceId(r, p, num_partitions));
          out.push_back(std::move(devices));
        }
      }
      return out;
    }
    case CollectiveOpGroupMode::kCrossReplicaAndPartition: {
      const auto ids = groups.empty() ? AllOf(num_replicas) : groups;
      if (absl::Status s = CheckIds(ids, num_replicas, "replica"); !s.ok()) return s;
      for (const std::vector<int64_t>& g : ids) {
        std::vector<int64_t> devices;
        for (int64_t r : g) {
          for (int64_t p = 0; p < num_partitions; ++p) {
            devices.push_back(GlobalDeviceId(r, p, num_partitions));
          }
        }
        out.push_back(std::move(devices));
      }
      return out;
    }
    case CollectiveOpGroupMode::kFlattenedId: {
      if (groups.empty()) {
        return absl::InvalidArgumentError(
            "use_global_device_ids=true needs explicit replica groups of global device ids");
      }
      if (absl::Status s = CheckIds(groups, num_replicas * num_partitions, "global device id");
          !s.ok()) {
        return s;
      }
      return groups;
    }
  }
  return absl::InvalidArgumentError("unknown collective group mode");
}

absl::StatusOr<std::vector<std::vector<int64_t>>> GetParticipantGroups(const HloInstruction& instr,
                                                                       int64_t num_replicas,
                                                                       int64_t num_partitions) {
  absl::StatusOr<CollectiveOpGroupMode> mode = GetCollectiveOpGroupMode(instr);
  if (!mode.ok()) return mode.status();
  std::vector<std::vector<int64_t>> groups;
  if (const AttrValue* v = instr.FindAttr(AttrId::kReplicaGroups)) {
    const ReplicaGroups* rg = std::get_if<ReplicaGroups>(v);
    if (rg == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(Who(instr), ": malformed replica_groups"));
    }
    groups = rg->Expand();
    if (!rg->raw.empty() && groups.empty()) {
      return absl::UnimplementedError(absl::StrCat(
          Who(instr), ": replica_groups '", rg->raw,
          "' in a form this compiler does not expand (it knows lists, the iota form and the "
          "mesh-axes form over whole axes, mesh['x'=4,'y'=2] {'x'})"));
    }
    if (rg->iota && groups.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(Who(instr),
                       ": invalid iota replica groups (sizes disagree or the "
                       "transpose is not a permutation)"));
    }
  }
  absl::StatusOr<std::vector<std::vector<int64_t>>> out =
      GetParticipantGroups(groups, *mode, num_replicas, num_partitions);
  if (!out.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(Who(instr), " (", CollectiveOpGroupModeName(*mode), " mode, ", num_replicas,
                     " replicas, ", num_partitions, " partitions): ", out.status().message()));
  }
  return out;
}

}  // namespace xla
