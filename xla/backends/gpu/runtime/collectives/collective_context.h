// CollectiveContext: what collective thunks need to know about the
// execution they run in: this device's replica and partition id, the run
// id, the device of every participant, and where communicators come from.
//
// It travels with one execution: the caller (the replicated executor,
// xla/aot/replicated_execution.h, or xla_aot_mpi_run) passes it in
// ExecuteOptions::collectives, GpuExecutable::Execute puts it in
// ExecuteParams::collectives, and collective thunks read it in
// ExecuteOnStream and capture what they need into the work they enqueue.
//
// Thread-safety: immutable during the execution; `communicator` is called
// from the executing thread.
#ifndef XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_COLLECTIVE_CONTEXT_H_
#define XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_COLLECTIVE_CONTEXT_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "xla/backends/gpu/runtime/collectives/communicator.h"

namespace xla::gpu {

struct CollectiveContext {
  int64_t replica_id = 0;
  int64_t partition_id = 0;
  // Partitions of the run (>= 1).
  int64_t num_partitions = 1;
  // Identifies one execution of all replicas; equal on every replica of it
  // and larger for every later execution (communicators forget old runs).
  int64_t run_id = 0;
  // The device of participant d (global device id replica * num_partitions
  // + partition); its size is replicas x partitions.
  std::vector<int64_t> replica_devices;
  // The communicator of `device_id` in `clique`; must be thread-safe. The
  // builder of the context decides once which cliques serve the execution's
  // platform (host: InProcessCliques or MpiCliques::GetForStream; CUDA:
  // NcclCliques::Get); collective thunks never ask.
  std::function<absl::StatusOr<DeviceCommunicator*>(const CliqueKey& clique, int64_t device_id)>
      communicator;

  // This device's participant (global device) id: the index into
  // replica_devices, and what collective groups and pairs name.
  int64_t participant_id() const { return replica_id * num_partitions + partition_id; }
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_COLLECTIVE_CONTEXT_H_
