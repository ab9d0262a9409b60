// CollectiveParticipants: who takes part in one collective on one
// participant, resolved once from the thunk's groups (or source-target
// pairs) and the execution's CollectiveContext: the clique (sorted devices),
// the clique rank of each group position, and a permute's source and
// targets as clique ranks.
//
// Thread-safety: a plain value; ResolveParticipants is pure.
#ifndef XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_COLLECTIVE_PARTICIPANTS_H_
#define XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_COLLECTIVE_PARTICIPANTS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/backends/gpu/runtime/collectives/collective_context.h"
#include "xla/backends/gpu/runtime/collectives/communicator.h"

namespace xla::gpu {

struct CollectiveParticipants {
  // False for a permute that neither sends from nor receives on this
  // participant (it writes zeros); the fields below are then unset (clique
  // null).
  bool participates = false;
  std::shared_ptr<const CliqueKey> clique;
  // This participant's device (the clique member it is).
  int64_t device = 0;
  // to_rank[p]: the clique rank of the participant at group position p
  // (group order: list order, or sorted ids for a permute).
  std::vector<int64_t> to_rank;
  // A permute's source and targets of this participant, as clique ranks.
  std::optional<int64_t> source_rank;
  std::vector<int64_t> target_ranks;

  int64_t group_size() const { return static_cast<int64_t>(to_rank.size()); }
  // Whether the ranks follow group order (no re-packing for one outer block).
  bool ranks_in_group_order() const;
};

// Resolves this participant (ctx.participant_id()) of the collective `name`
// over `groups` or, when `groups` is empty, the source-target `pairs`.
// InvalidArgument when the participant is in no group, or a group or pair
// names a participant beyond ctx.replica_devices ("names replica 3 but the
// execution has 3 replicas; ..."); CliqueKey's errors for duplicate devices.
absl::StatusOr<CollectiveParticipants> ResolveParticipants(
    absl::string_view name, const std::vector<std::vector<int64_t>>& groups,
    const std::vector<std::pair<int64_t, int64_t>>& pairs, const CollectiveContext& ctx);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_COLLECTIVE_PARTICIPANTS_H_
