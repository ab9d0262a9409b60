// Collectives on CUDA devices through NCCL (loaded with dlopen,
// xla/stream_executor/cuda/nccl_api.h): one NcclCommunicator per
// participant and clique, created by NcclCliques, whose NCCL unique ids
// travel through a pluggable NcclBootstrap.
//
//   NcclCommunicator     a DeviceCommunicator over one ncclComm_t: every
//                        operation is one NCCL call (or one
//                        ncclGroupStart/End of sends and receives)
//                        enqueued on the participant's CudaStream, so it
//                        runs in stream order on the device.
//   NcclBootstrap        how a clique's members agree on its ncclUniqueId:
//                        InProcessNcclBootstrap for the devices of one
//                        process, HostNcclBootstrap over any host
//                        Communicator spanning every process (MPI's world
//                        clique under mpirun: mpi_communicator.h).
//   NcclCliques          the clique cache of one run configuration:
//                        Acquire (every participant, same keys, same order)
//                        exchanges ids and calls ncclCommInitRank; Get then
//                        returns the communicator without blocking.
//
// Types and reductions: NCCL reduces s8, u8, s32, u32, s64, u64, f16, f32,
// f64 and bf16 with sum, prod, min and max; pred and/or run as min/max over
// u8 (values are 0 or 1). Bitwise and/or of integers and 16-bit integers
// have no NCCL form: Unimplemented, naming the op and type. Byte moves
// (gathers, all-to-all, permutes, broadcasts) use ncclInt8.
//
// Order: NCCL chooses its reduction order (ring or tree, by size and
// topology); results match the host target's rank-order fold only up to
// floating-point rounding.
//
// Thread-safety: NcclCliques is thread-safe except that each participant
// calls Acquire from its own thread; a communicator follows
// communicator.h.
#ifndef XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_NCCL_COMMUNICATOR_H_
#define XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_NCCL_COMMUNICATOR_H_

#include <nccl.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "xla/backends/gpu/runtime/collectives/communicator.h"
#include "xla/backends/gpu/runtime/collectives/rendezvous.h"
#include "xla/stream_executor/cuda/cuda_executor.h"
#include "xla/stream_executor/cuda/nccl_api.h"

namespace xla::gpu {

// The NCCL data type and reduction op that compute `kind` over `type`.
// Unimplemented naming both when NCCL has none. Pure.
absl::StatusOr<std::pair<ncclDataType_t, ncclRedOp_t>> NcclReduction(ReductionKind kind,
                                                                     PrimitiveType type);

class NcclCommunicator : public DeviceCommunicator {
 public:
  // Takes ownership of `comm` (ncclCommDestroy in the destructor), of which
  // this participant is `rank` of `size`; `executor` is its device (for
  // scratch memory) and must outlive this. `label` names the clique in
  // errors ("devices [0,1]").
  NcclCommunicator(const stream_executor::cuda::NcclApi& api, ncclComm_t comm, int64_t rank,
                   int64_t size, stream_executor::cuda::CudaExecutor& executor,
                   std::string label);
  ~NcclCommunicator() override;

  int64_t rank() const override { return rank_; }
  int64_t size() const override { return size_; }

  // Each enqueues its NCCL call(s) on `stream`, which must be a CudaStream
  // of this communicator's device (InvalidArgument otherwise); NCCL's
  // errors (NcclStatus) name the call and the clique. NCCL matches
  // operations by stream order: run_id is not used.
  absl::Status AllReduce(int64_t run_id, ReductionKind kind, PrimitiveType type,
                         stream_executor::DeviceMemoryBase send,
                         stream_executor::DeviceMemoryBase recv, int64_t count,
                         stream_executor::Stream& stream) override;
  absl::Status AllGather(int64_t run_id, stream_executor::DeviceMemoryBase send,
                         stream_executor::DeviceMemoryBase recv, int64_t bytes,
                         stream_executor::Stream& stream) override;
  absl::Status ReduceScatter(int64_t run_id, ReductionKind kind, PrimitiveType type,
                             stream_executor::DeviceMemoryBase send,
                             stream_executor::DeviceMemoryBase recv, int64_t count,
                             stream_executor::Stream& stream) override;
  // One group of size() sends and size() receives.
  absl::Status AllToAll(int64_t run_id, stream_executor::DeviceMemoryBase send,
                        stream_executor::DeviceMemoryBase recv, int64_t bytes,
                        stream_executor::Stream& stream) override;
  // One group of the sends to `target_ranks` and the receive from
  // `source_rank`; without a source, recv is zeroed on the stream first.
  absl::Status CollectivePermute(int64_t run_id, stream_executor::DeviceMemoryBase send,
                                 stream_executor::DeviceMemoryBase recv, int64_t bytes,
                                 std::optional<int64_t> source_rank,
                                 absl::Span<const int64_t> target_ranks,
                                 stream_executor::Stream& stream) override;
  absl::Status Broadcast(int64_t run_id, stream_executor::DeviceMemoryBase send,
                         stream_executor::DeviceMemoryBase recv, int64_t bytes, int64_t root_rank,
                         stream_executor::Stream& stream) override;
  absl::StatusOr<stream_executor::DeviceMemoryBase> Scratch(
      int64_t bytes, stream_executor::Stream& stream) override;

  // ncclCommAbort: NCCL work of this communicator still waiting for peers
  // ends (failing), and the communicator is freed; later operations fail
  // with FailedPrecondition. Idempotent. Thread-safe, except that an
  // operation being enqueued at that very moment may still reach NCCL.
  void Abort();

 private:
  // Enqueues `call` (which issues NCCL work on the given stream and
  // returns NCCL's result) on `stream` as the operation `op`.
  absl::Status Enqueue(stream_executor::Stream& stream, const char* op,
                       std::function<ncclResult_t(cudaStream_t)> call);

  const stream_executor::cuda::NcclApi& api_;
  const ncclComm_t comm_;
  const int64_t rank_;
  const int64_t size_;
  stream_executor::cuda::CudaExecutor& executor_;
  const std::string label_;
  std::atomic<bool> aborted_{false};
  std::mutex mu_;
  // The current scratch buffer is the last; guarded by mu_.
  std::vector<stream_executor::DeviceMemoryBase> scratch_;
};

class NcclBootstrap {
 public:
  virtual ~NcclBootstrap() = default;

  // Agrees on the unique id of clique `key` (whose rank 0 makes it with
  // `make_id`). Called by every participant of the run configuration,
  // members of `key` or not, for every clique in the same order;
  // `device_id` is the caller's global device id. Returns the id on
  // members (anything on non-members). Errors: a participant that never
  // arrives (DeadlineExceeded naming it), make_id's error.
  virtual absl::StatusOr<ncclUniqueId> ExchangeId(
      const CliqueKey& key, int64_t device_id,
      const std::function<absl::StatusOr<ncclUniqueId>()>& make_id) = 0;
};

// The members of a clique in one process meet at a Rendezvous: rank 0
// arrives with the id, the others with nothing. Thread-safe.
class InProcessNcclBootstrap : public NcclBootstrap {
 public:
  explicit InProcessNcclBootstrap(absl::Duration timeout) : timeout_(timeout) {}
  absl::StatusOr<ncclUniqueId> ExchangeId(
      const CliqueKey& key, int64_t device_id,
      const std::function<absl::StatusOr<ncclUniqueId>()>& make_id) override;

 private:
  const absl::Duration timeout_;
  std::mutex mu_;
  std::map<CliqueKey, std::shared_ptr<Rendezvous>> rendezvous_;  // guarded by mu_
};

// The id travels as a broadcast over `world`, a host communicator whose
// rank r is global device r (MPI's world clique: one process per device),
// from the clique's first device; every process takes part in every
// exchange. `world` must outlive this. Thread-safety: one exchange at a
// time (callers follow NcclCliques::Acquire's order).
class HostNcclBootstrap : public NcclBootstrap {
 public:
  explicit HostNcclBootstrap(Communicator* world) : world_(world) {}
  absl::StatusOr<ncclUniqueId> ExchangeId(
      const CliqueKey& key, int64_t device_id,
      const std::function<absl::StatusOr<ncclUniqueId>()>& make_id) override;

 private:
  Communicator* world_;
};

class NcclCliques {
 public:
  // `bootstrap` must outlive this.
  NcclCliques(const stream_executor::cuda::NcclApi& api, NcclBootstrap* bootstrap)
      : api_(api), bootstrap_(bootstrap) {}

  // Creates participant `device_id`'s communicators, on `executor`, for
  // the cliques in `keys` that it is a member of: agrees on each clique's
  // id through the bootstrap, then calls ncclCommInitRank with the
  // device's context current (it returns when every member has). Every
  // participant calls it from its own thread with the same keys in the same
  // order. Errors name the clique and the device: the bootstrap's, NCCL's,
  // the driver's (making the context current).
  absl::Status Acquire(absl::Span<const CliqueKey> keys, int64_t device_id,
                       stream_executor::cuda::CudaExecutor& executor);

  // The communicator of `device_id` in `key`. FailedPrecondition when it
  // was not acquired (creating one needs every member; see Acquire).
  // Thread-safe.
  absl::StatusOr<DeviceCommunicator*> Get(const CliqueKey& key, int64_t device_id);

  // Communicators created so far (members x cliques).
  int64_t num_communicators() const;

  // Aborts every communicator (NcclCommunicator::Abort): what a replicated
  // run does when one participant fails, so that its peers stop waiting for
  // it inside NCCL. The cliques are then unusable. Thread-safe; idempotent.
  void AbortAll();
  bool aborted() const { return aborted_.load(); }

 private:
  // Acquire for one clique; errors without the clique/device prefix.
  absl::Status AcquireOne(const CliqueKey& key, int64_t device_id,
                          stream_executor::cuda::CudaExecutor& executor);

  const stream_executor::cuda::NcclApi& api_;
  NcclBootstrap* bootstrap_;
  std::atomic<bool> aborted_{false};
  mutable std::mutex mu_;
  std::map<std::pair<CliqueKey, int64_t>, std::unique_ptr<NcclCommunicator>>
      communicators_;  // guarded by mu_
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_NCCL_COMMUNICATOR_H_
