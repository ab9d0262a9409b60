// CollectiveThunk: one collective across replicas (all-reduce, all-gather,
// reduce-scatter, all-to-all, collective-permute, collective-broadcast) or a
// device id (replica-id, partition-id), from CollectiveThunkProto.
//
// Participants are replica ids listed explicitly in replica groups (rank
// order = list order for gathers and scatters; collective-broadcast's root
// is the group's first listed replica, e.g. replica 1 in {1,0}, whatever
// its clique rank); collective-permute uses its
// source-target pairs and involves the replicas named in them. Each op is a
// row of one table (collective_ops.h): what FromProto accepts for it and the
// function that enqueues it. Phases:
//   Prepare          declares each group (collective-permute: the sorted
//                    replicas of its pairs) in ResourceRequests.
//   Initialize       nothing: communicators come from the execution's
//                    CollectiveContext (collective_context.h) in
//                    ExecuteParams::collectives, whose clique
//                    cache creates them once per run configuration.
//   ExecuteOnStream  resolves this participant's group, clique and ranks
//                    (ResolveParticipants, collective_participants.h) once
//                    per participant and device list, and keeps them; then
//                    enqueues the exchange on the stream through the
//                    context's DeviceCommunicator, the same on every
//                    platform (host: host callbacks over the in-process or
//                    MPI communicator; CUDA: NCCL), with blocks re-packed by
//                    device-to-device copies through its scratch memory
//                    when the split or gathered dimension is not the
//                    outermost one.
// On the host, reductions combine in clique rank order (sorted device ids):
// results are bit-identical from run to run. NCCL picks its own order
// (ring or tree by size and topology).
//
// Errors at execution: FailedPrecondition when the execution has no
// CollectiveContext (run through xla/aot/replicated_execution.h) or it
// provides no communicators; InvalidArgument
// naming the thunk when the replica is in no group or a group names a
// replica beyond the execution's replica count; the communicator's errors
// (a participant that never arrives: DeadlineExceeded naming its rank).
//
// Thread-safety: see thunk.h; ExecuteOnStream may run concurrently (the
// kept participants are guarded by a mutex).
#ifndef XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_COLLECTIVE_THUNK_H_
#define XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_COLLECTIVE_THUNK_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "xla/backends/gpu/runtime/collectives/collective_participants.h"
#include "xla/backends/gpu/runtime/collectives/communicator.h"
#include "xla/backends/gpu/runtime/thunk.h"
#include "xla/types/primitive_type.h"

namespace xla::gpu {

// Most replicas a group or pair may name (ids are in [0, this)).
inline constexpr int64_t kMaxReplicaId = 1 << 16;

class CollectiveThunk : public Thunk {
 public:
  struct Config {
    CollectiveOpProto op = COLLECTIVE_OP_UNSPECIFIED;
    std::optional<BufferSlice> operand;  // unset for replica-id/partition-id
    BufferSlice result;
    PrimitiveType element_type = PrimitiveType::U32;
    ReductionKind reduction = ReductionKind::kSum;
    std::vector<std::vector<int64_t>> replica_groups;
    int64_t dimension = 0;
    std::vector<int64_t> operand_dimensions;
    std::vector<std::pair<int64_t, int64_t>> source_target_pairs;
    // Partitions of the run (>= 1). Above 1, the ids in replica_groups and
    // source_target_pairs are global device ids replica * P + partition.
    int64_t num_partitions = 1;
  };

  CollectiveThunk(ThunkInfo info, Config config)
      : Thunk(Kind::kCollective, std::move(info)), config_(std::move(config)) {}

  // Validates: a known op; for replica-id/partition-id no operand and a
  // 4-byte result; otherwise an array element type of at least 8 bits,
  // operand dimensions whose bytes equal the operand slice, non-empty
  // explicit groups of one size with distinct ids in [0, kMaxReplicaId),
  // the dimension in range and divisible by the group size where it is
  // split, the result size the op implies, a reduction supported for the
  // type (all-reduce, reduce-scatter), pairs with distinct sources and
  // distinct targets (collective-permute only). InvalidArgument naming the
  // field path otherwise.
  static absl::StatusOr<std::unique_ptr<CollectiveThunk>> FromProto(
      ThunkInfo info, const CollectiveThunkProto& proto, const ThunkContext& ctx);

  absl::Status Prepare(ResourceRequests& requests) const override;
  absl::Status ExecuteOnStream(const ExecuteParams& params) const override;
  absl::StatusOr<ThunkProto> ToProto() const override;

  const Config& config() const { return config_; }

 private:
  // The participants of this collective for `ctx` (ResolveParticipants),
  // resolved on first use per participant and device list and kept.
  absl::StatusOr<std::shared_ptr<const CollectiveParticipants>> Participants(
      const CollectiveContext& ctx) const;
  // Writes this device's replica or partition id.
  absl::Status WriteDeviceId(const ExecuteParams& params, const CollectiveContext& ctx) const;

  // Orders (participant id, replica devices) keys, and finds one from a
  // view of the context's devices, so a run's lookup copies nothing.
  struct ParticipantKeyLess {
    using is_transparent = void;
    using View = std::pair<int64_t, absl::Span<const int64_t>>;
    static View AsView(const View& key) { return key; }
    static View AsView(const std::pair<int64_t, std::vector<int64_t>>& key) {
      return {key.first, key.second};
    }
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      const View x = AsView(a), y = AsView(b);
      if (x.first != y.first) return x.first < y.first;
      return std::lexicographical_compare(x.second.begin(), x.second.end(), y.second.begin(),
                                          y.second.end());
    }
  };

  Config config_;
  mutable std::mutex mu_;
  // (participant id, replica devices) -> participants; guarded by mu_.
  mutable std::map<std::pair<int64_t, std::vector<int64_t>>,
                   std::shared_ptr<const CollectiveParticipants>, ParticipantKeyLess>
      resolved_;
};

// The name of an op ("all-reduce"), for messages.
absl::string_view CollectiveOpName(CollectiveOpProto op);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_COLLECTIVE_THUNK_H_
