// The reference evaluator: runs an HloModule on the CPU, one instruction at a
// time, following XLA's operation semantics. It is the numerical oracle every
// later test compares against, so it favours exactness over speed.
//
// Float arithmetic: f64 ops compute in f64; f32 ops compute in f64 and round
// once to f32 (exact for + - * / sqrt); f16, bf16 and the f8/f4 types compute
// like XLA does, in f32, and round to the narrow type (round-to-nearest-even).
// Integer arithmetic wraps modulo 2^bits; division by zero and INT_MIN / -1
// follow XLA's definitions.
//
// Errors (absl::Status, never a crash): an opcode or custom call the evaluator
// does not support (the message names the instruction and the opcode), wrong
// argument count or shapes, a `while` loop that runs past
// EvaluatorOptions::max_while_iterations, calls nested deeper than
// max_call_depth, evaluation past time_limit_seconds (DeadlineExceeded), and
// elided constants (`constant({...})`).
//
// Thread-safety: an HloEvaluator may be used from one thread at a time;
// distinct evaluators may run concurrently on the same (unmodified) module.
#ifndef XLA_HLO_EVALUATOR_HLO_EVALUATOR_H_
#define XLA_HLO_EVALUATOR_HLO_EVALUATOR_H_

#include <cstdint>
#include <functional>

#include "absl/numeric/int128.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/types/literal.h"

namespace xla {

// Evaluates collectives (all-reduce, all-gather, reduce-scatter, all-to-all,
// collective-permute, collective-broadcast, their -start forms, replica-id and
// partition-id) for one participant of a multi-device run. Implemented by the
// replicated evaluator (replicated_evaluator.h); without one, the evaluator
// runs collectives as a single participant. An implementation is called from
// the participant's own evaluation thread.
class CollectiveHook {
 public:
  virtual ~CollectiveHook() = default;
  // The value of `instr` for this participant, from its operands' values.
  // Errors name the instruction.
  virtual absl::StatusOr<Literal> EvaluateCollective(const HloInstruction& instr,
                                                     absl::Span<const Literal* const> operands) = 0;
};

// The caller's side of host transfers (send/recv with is_host_transfer=true;
// docs/host_transfers.md), as ExecuteOptions::host_transfers is the
// runtime's: each is called once per evaluated send / recv, in evaluation
// order, from the evaluating thread. `rendezvous` is the frontend attribute
// _xla_host_transfer_rendezvous ("" when absent). A non-OK return fails the
// evaluation with it, annotated with the instruction.
struct HostTransferHook {
  // `data`: the send's operand (an array or ()).
  std::function<absl::Status(int64_t channel_id, absl::string_view rendezvous,
                             const Literal& data)>
      send;
  // The recv's data, which must have `shape` (checked).
  std::function<absl::StatusOr<Literal>(int64_t channel_id, absl::string_view rendezvous,
                                        const Shape& shape)>
      recv;
};

struct EvaluatorOptions {
  // Iterations one `while` instruction may run before evaluation fails.
  int64_t max_while_iterations = int64_t{1} << 24;
  // Nesting of called computations (while bodies, calls, reducers, ...).
  int64_t max_call_depth = 200;
  // Wall-clock limit for one Evaluate call in seconds (0 = none). Past it,
  // evaluation fails with DeadlineExceeded. Checked between instructions.
  double time_limit_seconds = 0;
  // Runs the collectives when set (not owned; must outlive the evaluation);
  // nullptr = single-participant semantics.
  CollectiveHook* collectives = nullptr;
  // rng-get-and-update-state reads and advances *rng_state when set (not
  // owned; must outlive the evaluation), so successive evaluations continue
  // one sequence, as successive runs of one loaded executable do; nullptr:
  // each evaluation starts from XLA's initial state 0x7012395, as a freshly
  // loaded executable's first run.
  absl::uint128* rng_state = nullptr;
  // Serves host transfers when set (not owned; must outlive the
  // evaluation); without it, or without the direction's callback, a host
  // transfer fails with FailedPrecondition naming the instruction, channel
  // and rendezvous.
  const HostTransferHook* host_transfers = nullptr;
};

class HloEvaluator {
 public:
  explicit HloEvaluator(EvaluatorOptions options = {}) : options_(options) {}

  // Evaluates the entry computation with `args` (one per parameter, shapes
  // compatible with the parameters, layouts ignored).
  absl::StatusOr<Literal> Evaluate(const HloModule& module, absl::Span<const Literal> args);

  // Evaluates one computation of a module.
  absl::StatusOr<Literal> EvaluateComputation(const HloComputation& computation,
                                              absl::Span<const Literal* const> args);

  const EvaluatorOptions& options() const { return options_; }

 private:
  EvaluatorOptions options_;
};

}  // namespace xla

#endif  // XLA_HLO_EVALUATOR_HLO_EVALUATOR_H_
