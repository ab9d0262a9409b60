// Replicated execution: one loaded Executable run on N host devices at
// once, one thread per replica, each with its own arguments. Replica r runs
// on host device r (global device id r) with replica id r and partition id
// 0; every replica of one Run shares a run id. Collective thunks
// (xla/backends/gpu/runtime/collective_thunk.h) reach each other through
// the executor's in-process clique cache, created once per executor (one
// run configuration) and reused by every Run.
//
//   ASSIGN_OR_RETURN(auto replicated, ReplicatedExecutor::Create(exe, {4}));
//   ASSIGN_OR_RETURN(auto results, replicated->RunOnLiterals(per_replica_args));
//
// Create checks the program's collectives against the replica count: every
// group and pair must name replicas in [0, N), and the groups of each
// collective must cover every replica exactly once (InvalidArgument naming
// the collective, the replica and N otherwise: the device-count mismatch).
// Run errors name the replica ("replica 2: ..."); a replica that fails
// before a collective leaves the others waiting at most `timeout`, and the
// error reported is the failing replica's own (not its peers' timeouts).
//
// Thread-safety: Run may be called from several threads; runs are
// independent (distinct run ids). The Executable must outlive the executor.
#ifndef XLA_AOT_REPLICATED_EXECUTION_H_
#define XLA_AOT_REPLICATED_EXECUTION_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "xla/aot/executable.h"
#include "xla/backends/gpu/runtime/in_process_communicator.h"
#include "xla/stream_executor/host/host_executor.h"
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
};

class ReplicatedExecutor {
 public:
  // Creates the N host devices and the clique cache, and acquires the
  // communicators of every group the program's collectives declare (their
  // Prepare). Errors: InvalidArgument for num_replicas < 1 or a program
  // whose collectives do not fit N replicas (see above); FailedPrecondition
  // when the artifact's target is not "host".
  static absl::StatusOr<std::unique_ptr<ReplicatedExecutor>> Create(
      Executable& executable, const ReplicatedExecutionOptions& options);

  // Runs every replica once; `arguments[r]` are replica r's arguments (as
  // ExecuteOnLiterals). Returns results[r] = replica r's result leaves.
  // InvalidArgument when arguments.size() != N; the first failing
  // replica's error otherwise, prefixed "replica <r>: " and followed by
  // one other failed replica's error ("; meanwhile replica <k>: ...", e.g.
  // its timeout naming the missing rank).
  absl::StatusOr<std::vector<std::vector<Literal>>> RunOnLiterals(
      absl::Span<const std::vector<Literal>> arguments);

  int64_t num_replicas() const { return static_cast<int64_t>(devices_.size()); }
  // Cliques created so far (one per distinct group).
  int64_t num_cliques() const { return cliques_.num_cliques(); }

 private:
  ReplicatedExecutor(Executable& executable, const ReplicatedExecutionOptions& options);

  Executable& executable_;
  std::vector<std::unique_ptr<stream_executor::host::HostExecutor>> devices_;
  gpu::InProcessCliques cliques_;
};

}  // namespace xla::aot

#endif  // XLA_AOT_REPLICATED_EXECUTION_H_
