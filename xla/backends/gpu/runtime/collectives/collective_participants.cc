#include "xla/backends/gpu/runtime/collectives/collective_participants.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

// Ids are replica ids with one partition, global device ids with several.
const char* Unit(const CollectiveContext& ctx) {
  return ctx.num_partitions > 1 ? "participant" : "replica";
}

// The device of participant `id`, or the error naming the shortfall.
absl::StatusOr<int64_t> DeviceOf(absl::string_view name, int64_t id,
                                 const CollectiveContext& ctx) {
  const int64_t n = static_cast<int64_t>(ctx.replica_devices.size());
  if (id >= 0 && id < n) return ctx.replica_devices[id];
  const char* unit = Unit(ctx);
  return absl::InvalidArgumentError(absl::StrCat(name, " names ", unit, " ", id,
                                                 " but the execution has ", n, " ", unit,
                                                 "s; run with more replicas or recompile for ", n));
}

// This participant's group: the one listing it, or (pairs) the sorted ids
// of every pair.
absl::StatusOr<std::vector<int64_t>> GroupOf(absl::string_view name,
                                             const std::vector<std::vector<int64_t>>& groups,
                                             const std::vector<std::pair<int64_t, int64_t>>& pairs,
                                             const CollectiveContext& ctx) {
  const int64_t me = ctx.participant_id();
  if (groups.empty()) {
    std::set<int64_t> ids;
    for (const auto& [from, to] : pairs) ids.insert({from, to});
    return std::vector<int64_t>(ids.begin(), ids.end());
  }
  for (const std::vector<int64_t>& g : groups) {
    if (std::find(g.begin(), g.end(), me) != g.end()) return g;
  }
  const char* unit = Unit(ctx);
  return absl::InvalidArgumentError(absl::StrCat(name, ": ", unit, " ", me,
                                                 " is in no replica group; groups must cover "
                                                 "every ",
                                                 unit));
}

// The clique rank of participant `id`.
absl::StatusOr<int64_t> RankOf(absl::string_view name, int64_t id, const CliqueKey& clique,
                               const CollectiveContext& ctx) {
  ASSIGN_OR_RETURN(int64_t device, DeviceOf(name, id, ctx));
  return *clique.RankOf(device);
}

}  // namespace

bool CollectiveParticipants::ranks_in_group_order() const {
  for (size_t p = 0; p < to_rank.size(); ++p) {
    if (to_rank[p] != static_cast<int64_t>(p)) return false;
  }
  return true;
}

absl::StatusOr<CollectiveParticipants> ResolveParticipants(
    absl::string_view name, const std::vector<std::vector<int64_t>>& groups,
    const std::vector<std::pair<int64_t, int64_t>>& pairs, const CollectiveContext& ctx) {
  const int64_t me = ctx.participant_id();
  ASSIGN_OR_RETURN(std::vector<int64_t> group, GroupOf(name, groups, pairs, ctx));
  std::vector<int64_t> devices;
  for (int64_t id : group) {
    ASSIGN_OR_RETURN(int64_t device, DeviceOf(name, id, ctx));
    devices.push_back(device);
  }
  CollectiveParticipants who;
  who.participates = std::find(group.begin(), group.end(), me) != group.end();
  if (!who.participates) return who;
  ASSIGN_OR_RETURN(CliqueKey clique, CliqueKey::Create(devices));
  for (int64_t d : devices) who.to_rank.push_back(*clique.RankOf(d));
  for (const auto& [from, to] : pairs) {
    if (to == me) {
      ASSIGN_OR_RETURN(who.source_rank, RankOf(name, from, clique, ctx));
    }
    if (from == me) {
      ASSIGN_OR_RETURN(int64_t target, RankOf(name, to, clique, ctx));
      who.target_ranks.push_back(target);
    }
  }
  ASSIGN_OR_RETURN(who.device, DeviceOf(name, me, ctx));
  who.clique = std::make_shared<const CliqueKey>(std::move(clique));
  return who;
}

}  // namespace xla::gpu
