// The in-process collective implementation: N host devices, run by N
// threads of one process, exchange data through a Rendezvous per clique.
//
// Every participant copies its contribution into the rendezvous, waits for
// the others, then computes its own result from all contributions. A
// reduction starts from rank 0's value and combines ranks 1, 2, ... in that
// order, so every participant computes bit-identical results, run after
// run.
//
// InProcessCliques is the clique cache: one clique (and one communicator
// per member) per CliqueKey, created on first use and kept for the cache's
// lifetime, so a run configuration creates its communicators once.
//
// Thread-safety: InProcessCliques is thread-safe. A communicator follows
// communicator.h.
#ifndef XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_IN_PROCESS_COMMUNICATOR_H_
#define XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_IN_PROCESS_COMMUNICATOR_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "xla/backends/gpu/runtime/collectives/communicator.h"
#include "xla/backends/gpu/runtime/collectives/host_device_communicator.h"
#include "xla/backends/gpu/runtime/collectives/rendezvous.h"

namespace xla::gpu {

// The default time a participant waits for the others.
inline constexpr absl::Duration kDefaultCollectiveTimeout = absl::Seconds(60);

// Combines `count` elements of `type`: acc[i] = acc[i] (kind) src[i], one
// step of the rank-order fold with the rounding and NaN rules of
// IsSupportedReduction (communicator.h); the MPI communicator uses it too.
// InvalidArgument (UnsupportedReductionMessage) when IsSupportedReduction
// (kind, type) is false. Pure; thread-safe.
absl::Status ReduceInto(ReductionKind kind, PrimitiveType type, void* acc, const void* src,
                        int64_t count);

class InProcessCommunicator : public Communicator {
 public:
  InProcessCommunicator(std::shared_ptr<Rendezvous> rendezvous, int64_t rank)
      : rendezvous_(std::move(rendezvous)), rank_(rank) {}

  int64_t rank() const override { return rank_; }
  int64_t size() const override { return rendezvous_->size(); }

  absl::Status AllReduce(int64_t run_id, ReductionKind kind, PrimitiveType type, const void* send,
                         void* recv, int64_t count) override;
  absl::Status AllGather(int64_t run_id, const void* send, void* recv, int64_t bytes) override;
  absl::Status ReduceScatter(int64_t run_id, ReductionKind kind, PrimitiveType type,
                             const void* send, void* recv, int64_t count) override;
  absl::Status AllToAll(int64_t run_id, const void* send, void* recv, int64_t bytes) override;
  absl::Status CollectivePermute(int64_t run_id, const void* send, void* recv, int64_t bytes,
                                 std::optional<int64_t> source_rank) override;
  // Only the root contributes its bytes to the rendezvous (the others
  // arrive with none); every rank copies the root's contribution.
  absl::Status Broadcast(int64_t run_id, const void* send, void* recv, int64_t bytes,
                         int64_t root_rank) override;

 private:
  // Arrives with `bytes` of `send` for the next op of `run_id`; checks that
  // every contribution has the same size.
  absl::StatusOr<std::shared_ptr<const Rendezvous::Contributions>> Exchange(
      int64_t run_id, absl::string_view op, const void* send, int64_t bytes);
  // The sequence number of this communicator's next op of `run_id`.
  int64_t NextSequence(int64_t run_id);

  std::shared_ptr<Rendezvous> rendezvous_;
  const int64_t rank_;
  std::mutex mu_;
  // Next op sequence number by run id (the 1024 newest runs; run ids must
  // grow from run to run); guarded by mu_.
  std::map<int64_t, int64_t> next_sequence_;
};

class InProcessCliques {
 public:
  explicit InProcessCliques(absl::Duration timeout = kDefaultCollectiveTimeout)
      : timeout_(timeout) {}

  // The communicator of `device_id` in the clique `key` (created with the
  // clique on first use). InvalidArgument when the device is not a member.
  absl::StatusOr<Communicator*> Get(const CliqueKey& key, int64_t device_id);
  // The same communicator as the DeviceCommunicator collective thunks use
  // (HostDeviceCommunicator: host callbacks on the stream); Get's errors.
  absl::StatusOr<DeviceCommunicator*> GetForStream(const CliqueKey& key, int64_t device_id);

  // Cliques created so far.
  int64_t num_cliques() const;

 private:
  struct Clique {
    std::shared_ptr<Rendezvous> rendezvous;
    std::vector<std::unique_ptr<InProcessCommunicator>> members;  // by rank
  };
  const absl::Duration timeout_;
  mutable std::mutex mu_;
  std::map<CliqueKey, Clique> cliques_;  // guarded by mu_
  HostDeviceCommunicators on_stream_;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_IN_PROCESS_COMMUNICATOR_H_
