// CollectiveContext: what collective thunks need to know about the
// execution they run in: this device's replica and partition id, the run
// id, the device of every participant, and where communicators come from.
//
// GpuExecutable::Execute does not carry it yet: the replicated executor
// (xla/aot/replicated_execution.h) installs it on the executing thread with
// ScopedCollectiveContext around Execute, and collective thunks read it in
// ExecuteOnStream (which runs on the caller's thread) and capture what they
// need into the work they enqueue.
//
// Thread-safety: the context is immutable while installed; installation is
// per thread.
#ifndef XLA_BACKENDS_GPU_RUNTIME_COLLECTIVE_CONTEXT_H_
#define XLA_BACKENDS_GPU_RUNTIME_COLLECTIVE_CONTEXT_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "xla/backends/gpu/runtime/communicator.h"

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
  // The host communicator of `device_id` in `clique` (host devices); must
  // be thread-safe.
  std::function<absl::StatusOr<Communicator*>(const CliqueKey& clique, int64_t device_id)>
      communicator;
  // For devices whose collectives run on streams (platforms other than
  // "host"): the device communicator of `device_id` in `clique`; must be
  // thread-safe. Unset when the execution's devices are host devices.
  std::function<absl::StatusOr<DeviceCommunicator*>(const CliqueKey& clique, int64_t device_id)>
      device_communicator;

  // This device's participant (global device) id: the index into
  // replica_devices, and what collective groups and pairs name.
  int64_t participant_id() const { return replica_id * num_partitions + partition_id; }
};

// The context installed on this thread, or nullptr.
const CollectiveContext* CurrentCollectiveContext();

// Installs `context` on this thread for the scope's lifetime (restoring the
// previous one after). `context` must outlive the scope.
class ScopedCollectiveContext {
 public:
  explicit ScopedCollectiveContext(const CollectiveContext* context);
  ~ScopedCollectiveContext();
  ScopedCollectiveContext(const ScopedCollectiveContext&) = delete;
  ScopedCollectiveContext& operator=(const ScopedCollectiveContext&) = delete;

 private:
  const CollectiveContext* previous_;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_COLLECTIVE_CONTEXT_H_
