// Replicated execution: one loaded Executable run on N x P devices at once
// (N replicas of a module compiled for P partitions: P is read from its
// collectives, 1 without), one thread per participant, each with its own
// arguments. Participant d = replica * P + partition (its global device id)
// runs on device d with replica id d / P and partition id d % P; every
// participant of one Run shares a run id. Devices by the artifact's
// platform:
//   host  N x P host devices created here; collective thunks
//         (xla/backends/gpu/runtime/collectives/collective_thunk.h) reach each other
//         through an in-process clique cache.
//   cuda  GPUs 0 .. N x P - 1 of the CUDA platform; collectives run through
//         NCCL (nccl_communicator.h), ids exchanged in process.
// Communicators are created once per executor (one run configuration), in
// Create, and reused by every Run.
//
//   ASSIGN_OR_RETURN(auto replicated, ReplicatedExecutor::Create(exe, {4}));
//   ASSIGN_OR_RETURN(auto results, replicated->RunOnLiterals(per_replica_args));
//
// Create checks the program's collectives against the participant count:
// every group and pair must name participants in [0, N x P), and the groups
// of each collective must cover every participant exactly once
// (InvalidArgument naming the collective, the participant and the count
// otherwise: the device-count mismatch); collectives that disagree on P are
// refused. Run errors name the participant ("replica 2: ..."); one that fails
// before a collective leaves the others waiting at most `timeout` on the
// host (on GPUs it aborts the NCCL communicators, so its peers stop at
// once, and the executor refuses later runs), and the error reported is the
// failing replica's own (not its peers' timeouts).
//
// Thread-safety: Run may be called from several threads; runs are
// independent (distinct run ids). The Executable must outlive the executor.
#ifndef XLA_AOT_REPLICATED_EXECUTION_H_
#define XLA_AOT_REPLICATED_EXECUTION_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "xla/aot/executable.h"
#include "xla/backends/gpu/runtime/collectives/collective_context.h"
#include "xla/backends/gpu/runtime/collectives/in_process_communicator.h"
#include "xla/backends/gpu/runtime/collectives/nccl_communicator.h"
#include "xla/stream_executor/host/host_executor.h"
#include "xla/stream_executor/platform.h"
#include "xla/types/literal.h"

namespace xla::aot {

struct ReplicatedExecutionOptions {
  // Replicas (= host devices), >= 1.
  int64_t num_replicas = 1;
  // How long a replica waits for its peers at a collective.
  absl::Duration collective_timeout = gpu::kDefaultCollectiveTimeout;
  // Threads of each host device's launch pool (the devices share the
  // machine's cores).
  int threads_per_device = 1;
  // CUDA artifacts: the platform whose GPUs 0 .. N x P - 1 run the
  // participants (not owned; must outlive the executor). nullptr: the
  // PlatformRegistry's "cuda". Unused for host artifacts.
  stream_executor::Platform* cuda_platform = nullptr;
};

// The partitions the program's collective thunks were compiled for: 1 when
// there are none. InvalidArgument when two collectives disagree.
absl::StatusOr<int64_t> ProgramNumPartitions(const gpu::Thunk& root);

// The cliques the program's collectives declared in Prepare
// (program.resources.collective_groups; device id = participant id), in
// their sorted order: what every participant acquires, in that order.
// InvalidArgument for a malformed group.
absl::StatusOr<std::vector<gpu::CliqueKey>> ProgramCliqueKeys(const gpu::Program& program);

class ReplicatedExecutor {
 public:
  // Creates (host) or opens (cuda) the N x P devices and the clique cache,
  // and acquires the communicators of every group the program's
  // collectives declare (their Prepare). Errors: InvalidArgument for
  // num_replicas < 1 or a program whose collectives do not fit N x P
  // participants (see above); FailedPrecondition when the platform is
  // neither host nor cuda, when the machine has fewer GPUs than
  // participants, or when NCCL is missing; the platform's and NCCL's errors
  // (naming the device and clique) when a device or communicator cannot be
  // created.
  static absl::StatusOr<std::unique_ptr<ReplicatedExecutor>> Create(
      Executable& executable, const ReplicatedExecutionOptions& options);

  // Releases the executable's state on the host devices this executor
  // created (Executable::ReleaseDevice) before destroying them; so
  // `executable` must outlive this executor, and no run may be in flight.
  ~ReplicatedExecutor();

  // Runs every participant once; `arguments[d]` are participant d's
  // arguments (as ExecuteOnLiterals). `host_transfers`, when not empty,
  // holds each participant's own host side (ExecuteOptions::host_transfers
  // of participant d's execution; not owned, called from that
  // participant's stream; one per participant). Returns results[d] =
  // participant d's result leaves. InvalidArgument when arguments.size()
  // (or a non-empty host_transfers.size()) != N x P; the
  // first failing participant's error otherwise, prefixed "replica <r>: "
  // ("replica <r> partition <p>: " when P > 1) and followed by one other
  // failed participant's error ("; meanwhile replica <k>: ...", e.g. its
  // timeout naming the missing rank).
  absl::StatusOr<std::vector<std::vector<Literal>>> RunOnLiterals(
      absl::Span<const std::vector<Literal>> arguments,
      absl::Span<const gpu::HostTransferCallbacks* const> host_transfers = {});

  // Participants (replicas x partitions): the devices, and the argument
  // lists RunOnLiterals takes.
  int64_t num_participants() const { return static_cast<int64_t>(devices_.size()); }
  int64_t num_partitions() const { return num_partitions_; }
  // Cliques created so far (one per distinct group).
  int64_t num_cliques() const { return cliques_.num_cliques(); }

 private:
  ReplicatedExecutor(Executable& executable, const ReplicatedExecutionOptions& options);
  // "replica r" or "replica r partition p" for participant d.
  std::string ParticipantName(int64_t d) const;
  // Where the collective thunks of a run get communicators: the NCCL
  // cliques on CUDA devices, the in-process cliques on host devices.
  decltype(gpu::CollectiveContext::communicator) Communicators();

  Executable& executable_;
  int64_t num_partitions_ = 1;
  // Creates the N x P host devices and their in-process cliques.
  absl::Status CreateHostDevices(int64_t n, const ReplicatedExecutionOptions& options);
  // Opens N x P CUDA devices and creates their NCCL communicators.
  absl::Status OpenCudaDevices(int64_t n, const ReplicatedExecutionOptions& options);

  // Participant d runs on devices_[d] (host devices owned by host_devices_,
  // CUDA ones by their platform).
  std::vector<stream_executor::StreamExecutor*> devices_;
  std::vector<std::unique_ptr<stream_executor::host::HostExecutor>> host_devices_;
  gpu::InProcessCliques cliques_;
  // CUDA only; destroyed before the devices they use.
  std::unique_ptr<gpu::InProcessNcclBootstrap> nccl_bootstrap_;
  std::unique_ptr<gpu::NcclCliques> nccl_cliques_;
};

}  // namespace xla::aot

#endif  // XLA_AOT_REPLICATED_EXECUTION_H_
