// The reference evaluator for multi-device runs: the oracle for collectives.
//
// EvaluateReplicated runs one HloEvaluator per participant (global device id
// d = replica * num_partitions + partition), each on its own thread, and
// meets them at every collective: the participants of one group (see
// xla/hlo/ir/collective_groups.h) hand over their operands, the last to
// arrive computes every member's result, and each takes its own. Semantics:
//
//   all-reduce(-start)    to_apply folded left over the members in
//                         ascending id order (whatever order the group
//                         lists them in: the runtime's communicators combine
//                         clique ranks, i.e. sorted device ids, the same
//                         way), element by element, for each operand; each
//                         step is the reducer's own arithmetic (bf16/f16
//                         add: computed in f32, rounded to the type)
//   all-gather(-start)    operands concatenated along `dimensions={d}` in
//                         group order
//   reduce-scatter        all-reduce, then the member at group position j
//                         keeps chunk j along d
//   all-to-all            with `dimensions={d}`: each member's operand is cut
//                         into n chunks along d, member j receives chunk j of
//                         every member, concatenated in group order; without
//                         it (n operands): element i of member j's result is
//                         operand j of member i
//   collective-permute    source_target_pairs over replica ids (no channel)
//                         or partition ids (channel_id set); a member that no
//                         pair targets gets zeros
//   collective-broadcast  every member gets the first member's operand
//   replica-id, partition-id  of the participant
// The -done halves and async wrappers work as in the single evaluator.
// Results are deterministic: the reduction order is fixed, whoever arrives
// last.
//
// Participants are matched by instruction and by how often each has reached
// it. A participant that waits longer than `timeout_seconds` for the rest of
// its group fails with DeadlineExceeded, naming the instruction and the
// participants that never arrived; one that waits for a participant that has
// already finished (e.g. a collective inside a branch that only some
// participants take) fails at once with FailedPrecondition naming it. No
// evaluation hangs. The error returned is the first (by device id) that is
// not a consequence of another participant's failure, prefixed with
// "replica R, partition P: ".
//
// Thread-safety: EvaluateReplicated may be called concurrently; the module
// must not change while it runs.
#ifndef XLA_HLO_EVALUATOR_REPLICATED_EVALUATOR_H_
#define XLA_HLO_EVALUATOR_REPLICATED_EVALUATOR_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/types/literal.h"

namespace xla {

struct ReplicatedEvaluatorOptions {
  // Replicas and partitions of the run; 0 = the module's `replica_count` /
  // `num_partitions` attribute, or 1 when it has none.
  int64_t num_replicas = 0;
  int64_t num_partitions = 0;
  // How long a participant waits at one collective for the rest of its group.
  double timeout_seconds = 60;
  // Options of each participant's evaluator (its `collectives` is ignored).
  EvaluatorOptions evaluator;
  // Each participant's own host side (docs/host_transfers.md): when not
  // empty, participant d's evaluator serves its host transfers with
  // host_transfers[d] (not owned; each must outlive the call, and may be
  // called from participant d's thread) in place of
  // evaluator.host_transfers, which all participants would share. Must
  // then hold one entry per participant (replicas x partitions).
  std::vector<const HostTransferHook*> host_transfers;
};

// Number of participants (replicas x partitions) a run of `module` with
// `options` has, after applying the defaults above. Fails for non-positive
// counts.
absl::StatusOr<int64_t> ReplicatedParticipantCount(const HloModule& module,
                                                   const ReplicatedEvaluatorOptions& options);

// Evaluates the entry computation once per participant; `args[d]` are the
// arguments of global device d and the result has one literal per device, in
// the same order. With a single participant this is exactly
// HloEvaluator(options.evaluator).Evaluate(module, args[0]) (with
// host_transfers[0] when given). Fails (InvalidArgument) when the number of
// argument lists, or of non-empty options.host_transfers, is not replicas x
// partitions or a list has the wrong number of arguments, and as described
// above for evaluation errors, timeouts and diverging participants.
absl::StatusOr<std::vector<Literal>> EvaluateReplicated(
    const HloModule& module, absl::Span<const std::vector<Literal>> args,
    const ReplicatedEvaluatorOptions& options = {});

}  // namespace xla

#endif  // XLA_HLO_EVALUATOR_REPLICATED_EVALUATOR_H_
