// Which devices take part together in one collective instruction.
//
// Devices are numbered by global device id = replica * num_partitions +
// partition (XLA's default device assignment). An instruction's
// `replica_groups` hold replica ids, partition ids or global ids depending on
// its group mode, which follows XLA's CollectiveOpGroupMode rules:
//
//   channel_id  use_global_device_ids  mode
//   absent      absent/false           kCrossReplica   (groups of replicas, per partition)
//   absent      true                   error
//   present     not an attribute of    kCrossPartition (groups of partitions, per replica)
//               the op (all-to-all, collective-permute, collective-broadcast)
//   present     false/absent           kCrossReplicaAndPartition (groups of replicas,
//                                      each with all its partitions)
//   present     true                   kFlattenedId    (groups of global ids)
//
// Used by the replicated evaluator, the compiler and the runtime, so that all
// three agree on who talks to whom. Pure functions: thread-safe.
#ifndef XLA_HLO_IR_COLLECTIVE_GROUPS_H_
#define XLA_HLO_IR_COLLECTIVE_GROUPS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/hlo/ir/hlo_attribute.h"
#include "xla/hlo/ir/hlo_instruction.h"

namespace xla {

enum class CollectiveOpGroupMode {
  kCrossReplica,
  kCrossPartition,
  kCrossReplicaAndPartition,
  kFlattenedId,
};

// "cross_replica", "cross_partition", "cross_replica_and_partition",
// "flattened_id".
absl::string_view CollectiveOpGroupModeName(CollectiveOpGroupMode mode);

// The mode for an op with or without a channel id. `use_global_device_ids`
// is nullopt for ops that do not have that attribute (all-to-all,
// collective-permute, collective-broadcast). Fails (InvalidArgument) for
// use_global_device_ids=true without a channel id.
absl::StatusOr<CollectiveOpGroupMode> GetCollectiveOpGroupMode(
    bool has_channel_id, std::optional<bool> use_global_device_ids);

// The mode of a collective instruction: all-reduce(-start), all-gather(-start)
// and reduce-scatter read `use_global_device_ids` (absent = false); other ops
// pass nullopt. Fails as above, naming the instruction.
absl::StatusOr<CollectiveOpGroupMode> GetCollectiveOpGroupMode(const HloInstruction& instr);

// Global device id of (replica, partition).
inline int64_t GlobalDeviceId(int64_t replica, int64_t partition, int64_t num_partitions) {
  return replica * num_partitions + partition;
}

// The participant groups, as lists of global device ids, for replica groups
// `groups` (already expanded: ReplicaGroups::Expand(); empty = one group of
// every replica / every partition) in `mode`. Order: kCrossReplica gives, for
// each group, one participant group per partition (partition ascending), the
// members in the group's order; kCrossPartition gives, for each group, one
// per replica; kCrossReplicaAndPartition gives one per group, replica-major
// (each listed replica followed by all its partitions); kFlattenedId gives
// the groups as they are. Every device of the run appears in at most one
// group. Fails (InvalidArgument) for non-positive counts, an id out of range,
// an id listed twice, empty groups in kFlattenedId mode, or an empty group.
absl::StatusOr<std::vector<std::vector<int64_t>>> GetParticipantGroups(
    const std::vector<std::vector<int64_t>>& groups, CollectiveOpGroupMode mode,
    int64_t num_replicas, int64_t num_partitions);

// Same for an instruction: its mode (above) and its `replica_groups`
// attribute (list or iota form; absent = empty). Fails for a replica-groups
// form that cannot be expanded (an invalid iota form, or a raw form) and for
// the errors above, each message naming the instruction.
absl::StatusOr<std::vector<std::vector<int64_t>>> GetParticipantGroups(const HloInstruction& instr,
                                                                       int64_t num_replicas,
                                                                       int64_t num_partitions);

}  // namespace xla

#endif  // XLA_HLO_IR_COLLECTIVE_GROUPS_H_
