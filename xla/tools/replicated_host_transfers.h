// The host side of a replicated run's host transfers (`xla_aot eval
// --replicas=N`, `xla_aot run --replicas=N`; docs/host_transfers.md): one
// HostTransferServer per participant, so that each counts its own recvs
// and records its own sends. Participant d reads slice d of each
// --host_recv file (leading dimension N) or draws from ParticipantSeed(seed,
// d); its sends print "host send: participant d channel C ...". After the
// run, WriteSends writes each send stacked over the participants.
//
//   ReplicatedHostTransfers host(flags, n, &err);
//   options.host_transfers = host.evaluator_hooks();   // or callbacks()
//   ... run ...
//   RETURN_IF_ERROR(host.WriteSends());
//
// Thread-safety: each participant's callbacks and hook may be called from
// any thread (the servers guard their state); sends() and WriteSends()
// while no run is in flight.
#ifndef XLA_TOOLS_REPLICATED_HOST_TRANSFERS_H_
#define XLA_TOOLS_REPLICATED_HOST_TRANSFERS_H_

#include <cstdint>
#include <memory>
#include <ostream>
#include <vector>

#include "absl/status/status.h"
#include "xla/backends/gpu/runtime/execute_options.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/tools/host_transfer_flags.h"

namespace xla::cli {

class ReplicatedHostTransfers {
 public:
  // One server per participant 0 .. `participants` - 1 (>= 1), each serving
  // `flags` as HostTransferServer does with its HostParticipant; sends are
  // printed to `log` (when not null; it must outlive this object).
  ReplicatedHostTransfers(const HostTransferFlags& flags, int64_t participants, std::ostream* log);

  // Participant d's runtime callbacks at [d] (valid while this lives): what
  // ReplicatedExecutor::RunOnLiterals and tools::RunReplicated take.
  std::vector<const gpu::HostTransferCallbacks*> callbacks() const;
  // Participant d's evaluator hook at [d] (valid while this lives): what
  // ReplicatedEvaluatorOptions::host_transfers takes.
  std::vector<const HostTransferHook*> evaluator_hooks() const;

  // Every participant's sends, participant by participant, each in the
  // order it made them (HostSend::participant set).
  std::vector<HostSend> sends() const;

  // With --host_send_dir, writes DIR/send_C_I.npy for each array send #I on
  // channel C: the participants' data stacked (leading dimension N, slice d
  // from participant d); nothing without it. FailedPrecondition naming the
  // file, the channel, the index and the participant when participants
  // disagree (one made the send and another did not, or their shapes
  // differ): such sends cannot be stacked. Write errors as WriteNpyFile.
  absl::Status WriteSends() const;

 private:
  std::string send_dir_;
  std::vector<std::unique_ptr<HostTransferServer>> servers_;
};

}  // namespace xla::cli

#endif  // XLA_TOOLS_REPLICATED_HOST_TRANSFERS_H_
