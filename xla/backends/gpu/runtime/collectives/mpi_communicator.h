// The `host` target's collectives across processes, through MPI (loaded
// with dlopen, mpi_api.h): one process = one host device = one replica,
// global device id = MPI world rank. Launch with `mpirun -np N`.
//
// Cliques are MPI_Comm_split of the world, one per CliqueKey, created by
// MpiCliques::Acquire (collective over every process) and cached; clique
// rank = position in the sorted device list = order of world ranks.
//
// Collective-broadcast is MPI_Ibcast (a copy: bit-identical by nature).
//
// Determinism: MPI's own reductions may combine contributions in any order
// (tree/ring algorithms chosen by message size and process count), so the
// result could differ bit-wise from the in-process implementation. Instead
// all-reduce gathers every rank's buffer (MPI_Iallgather) and reduce-scatter
// exchanges blocks (MPI_Ialltoall), and each process folds the
// contributions locally from rank 0 up, exactly as InProcessCommunicator
// does: results are bit-identical to the single-process replicated run.
// This moves (n-1)/n * n * bytes per rank instead of a ring's
// 2(n-1)/n * bytes: fine for the host target's scale (a few processes),
// not a design for large clusters.
//
// Hangs: an MPI collective blocks until every member arrives. Operations
// here post non-blocking MPI calls and poll them with a deadline; a peer
// that does not arrive in time (crashed, or diverged to other collectives)
// gives DeadlineExceeded naming the operation and clique. The operation is
// then left pending inside MPI (collectives cannot be cancelled): the
// communicator keeps its receive buffers alive, and the process must stop
// with MpiCliques::Abort (the driver xla_aot_mpi_run does). Clique creation
// (MPI_Comm_split) itself has no deadline; launchers should run mpirun
// under `timeout`.
//
// Operations match by order on a communicator (MPI's rule): every member
// must run the same collectives in the same order with the same sizes; the
// run id is not needed to match them and is ignored. Sizes are not checked
// across processes (a mismatch is MPI's MPI_ERR_TRUNCATE error or a
// timeout). Counts are limited to MPI's int (2^31-1 bytes per exchange).
//
// Thread-safety: MPI is initialized with MPI_THREAD_SERIALIZED and every
// MPI call of one MpiCliques' communicators is made under one mutex, so
// communicators may be used from any threads (one op at a time per
// communicator, as communicator.h says). MpiCliques is thread-safe except
// Acquire, which every process calls once, in the same order, before runs.
#ifndef XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_MPI_COMMUNICATOR_H_
#define XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_MPI_COMMUNICATOR_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "xla/backends/gpu/runtime/collectives/communicator.h"
#include "xla/backends/gpu/runtime/collectives/host_device_communicator.h"
#include "xla/backends/gpu/runtime/collectives/mpi_api.h"

namespace xla::gpu {

class MpiCommunicator : public Communicator {
 public:
  // `comm` (owned: freed by the destructor) has `size` members of which
  // this process is `rank`. `mpi_mu` serializes MPI calls and outlives this.
  MpiCommunicator(const MpiApi& api, MPI_Comm comm, int64_t rank, int64_t size, std::string name,
                  absl::Duration timeout, std::mutex* mpi_mu);
  ~MpiCommunicator() override;

  int64_t rank() const override { return rank_; }
  int64_t size() const override { return size_; }

  absl::Status AllReduce(int64_t run_id, ReductionKind kind, PrimitiveType type, const void* send,
                         void* recv, int64_t count) override;
  absl::Status AllGather(int64_t run_id, const void* send, void* recv, int64_t bytes) override;
  absl::Status ReduceScatter(int64_t run_id, ReductionKind kind, PrimitiveType type,
                             const void* send, void* recv, int64_t count) override;
  absl::Status AllToAll(int64_t run_id, const void* send, void* recv, int64_t bytes) override;
  // Every rank first shares its source (one small all-gather), then each
  // rank sends to the ranks that named it and receives from its source.
  absl::Status CollectivePermute(int64_t run_id, const void* send, void* recv, int64_t bytes,
                                 std::optional<int64_t> source_rank) override;
  // One MPI_Ibcast from root_rank (polled with the deadline, like the
  // others): a copy, so no ordering question arises.
  absl::Status Broadcast(int64_t run_id, const void* send, void* recv, int64_t bytes,
                         int64_t root_rank) override;

 private:
  // recv = every rank's `bytes` of send, in rank order (size() * bytes).
  absl::StatusOr<std::shared_ptr<std::vector<char>>> Gather(absl::string_view op,
                                                            const void* send, int64_t bytes);
  // recv block r = rank r's block rank() of send (size() blocks of bytes).
  absl::StatusOr<std::shared_ptr<std::vector<char>>> Exchange(absl::string_view op,
                                                              const void* send, int64_t bytes);
  // Polls `requests` until all complete or the deadline passes; on timeout
  // keeps `keep_alive` (the buffers MPI may still write) forever.
  absl::Status Wait(absl::string_view op, std::vector<MPI_Request>& requests,
                    std::shared_ptr<std::vector<char>> keep_alive);
  // InvalidArgument when bytes * size() exceeds MPI's int count.
  absl::Status CheckCount(absl::string_view op, int64_t bytes) const;

  const MpiApi& api_;
  MPI_Comm comm_;
  const int64_t rank_;
  const int64_t size_;
  const std::string name_;
  const absl::Duration timeout_;
  std::mutex* mpi_mu_;
  std::vector<std::shared_ptr<std::vector<char>>> abandoned_;  // see Wait
};

class MpiCliques {
 public:
  // Initializes MPI when nobody has (MPI_Init_thread, MPI_THREAD_SERIALIZED;
  // finalized by the destructor then), makes MPI errors return codes on the
  // world communicator, and creates the world clique. Collective: every
  // process calls it. FailedPrecondition when MPI gives a thread level
  // below serialized; MPI's errors otherwise.
  static absl::StatusOr<std::unique_ptr<MpiCliques>> Create(
      const MpiApi& api, absl::Duration timeout = absl::Seconds(60));
  ~MpiCliques();

  int64_t world_rank() const { return world_rank_; }
  int64_t world_size() const { return world_size_; }

  // Creates the cliques in `keys` not created yet, in order, by splitting
  // the world (MPI_Comm_split; blocks until every process arrives).
  // Collective: every process passes the same keys in the same order.
  // InvalidArgument when a key names a device >= world_size().
  absl::Status Acquire(absl::Span<const CliqueKey> keys);

  // The communicator of `device_id` (this process' world rank) in `key`.
  // InvalidArgument when device_id is not this process' rank or not a
  // member; FailedPrecondition when `key` was not acquired (creating it
  // now would need every process). Thread-safe.
  absl::StatusOr<Communicator*> Get(const CliqueKey& key, int64_t device_id);
  // The same communicator as the DeviceCommunicator collective thunks use
  // (HostDeviceCommunicator: host callbacks on the stream); Get's errors.
  absl::StatusOr<DeviceCommunicator*> GetForStream(const CliqueKey& key, int64_t device_id);

  // The clique of every process (created by Create).
  Communicator* world() { return world_; }

  // Ends every process of the job (MPI_Abort): after an error, peers may be
  // blocked in a collective that will never complete. Does not return.
  [[noreturn]] void Abort(int exit_code);

 private:
  MpiCliques(const MpiApi& api, absl::Duration timeout) : api_(api), timeout_(timeout) {}

  const MpiApi& api_;
  const absl::Duration timeout_;
  bool finalize_ = false;
  int64_t world_rank_ = 0;
  int64_t world_size_ = 0;
  std::mutex mpi_mu_;  // serializes MPI calls
  MpiCommunicator* world_ = nullptr;  // in cliques_
  mutable std::mutex mu_;
  // nullptr: acquired, but this process is not a member. Guarded by mu_.
  std::map<CliqueKey, std::unique_ptr<MpiCommunicator>> cliques_;
  HostDeviceCommunicators on_stream_;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_MPI_COMMUNICATOR_H_
