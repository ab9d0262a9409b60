// The `xla_aot run --replicas=N` path: runs a loaded host artifact on N
// host devices (xla/aot/replicated_execution.h) with stacked inputs.
//
// Every input carries a leading dimension of N: slice i (the input without
// that dimension) is replica i's argument. Every result leaf comes back
// stacked the same way: output leaf k has shape [N] + leaf k's shape, slice
// i being replica i's value (stacked_literals.h).
//
// Thread-safety: as ReplicatedExecutor::RunOnLiterals.
#ifndef XLA_TOOLS_REPLICATED_RUN_H_
#define XLA_TOOLS_REPLICATED_RUN_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "xla/aot/executable.h"
#include "xla/backends/gpu/runtime/collectives/in_process_communicator.h"
#include "xla/tools/stacked_literals.h"
#include "xla/types/literal.h"

namespace xla::tools {

// Runs `executable` on `num_replicas` x P host devices (P: the partitions
// its collectives were compiled for, aot::ProgramNumPartitions).
// `stacked_inputs[p]` is parameter p for all participants (leading
// dimension num_replicas x P, participant d = replica * P + partition). Returns
// the result leaves (depth-first order, as ExecuteOnLiterals), each stacked.
// `host_transfers`, when not empty, is each participant's host side
// (participant d's at [d]; ReplicatedExecutor::RunOnLiterals).
// Errors: InvalidArgument naming the input for a wrong leading dimension;
// ReplicatedExecutor's errors (device-count or host-side-count mismatch,
// "replica <r>: ...", timeouts naming the missing rank).
absl::StatusOr<std::vector<Literal>> RunReplicated(
    aot::Executable& executable, int64_t num_replicas,
    absl::Span<const Literal> stacked_inputs,
    absl::Duration collective_timeout = gpu::kDefaultCollectiveTimeout,
    absl::Span<const gpu::HostTransferCallbacks* const> host_transfers = {});

}  // namespace xla::tools

#endif  // XLA_TOOLS_REPLICATED_RUN_H_
