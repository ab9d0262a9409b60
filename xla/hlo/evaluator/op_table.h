// Internal to the evaluator: the per-opcode dispatch table and the context
// that op implementations use to call computations.
//
// Each op family lives in its own file and registers its opcodes:
//   elementwise_ops.cc  unary/binary/compare/select/clamp/convert/...
//   shape_ops.cc        broadcast, reshape, transpose, slice, pad, ...
//   reduce_ops.cc       reduce, reduce-window, select-and-scatter
//   control_ops.cc      while, conditional, call, map, fusion, tuples, ...
//                       custom-call (fused_attention_op.cc: Transformer
//                       Engine's fused attention; te_softmax_op.cc: its
//                       scaled softmax)
//   linalg_ops.cc       dot, convolution
//   indexing_ops.cc     gather, scatter, sort, topk
//   rng_ops.cc          rng-bit-generator (Philox, ThreeFry), rng
//   batch_norm_ops.cc   batch-norm-training, -inference, -grad
// An opcode with no entry is reported as unsupported, naming the instruction.
#ifndef XLA_HLO_EVALUATOR_OP_TABLE_H_
#define XLA_HLO_EVALUATOR_OP_TABLE_H_

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/numeric/int128.h"

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/types/literal.h"

namespace xla::evaluator {

class EvalContext;

// Computes the value of `instr` from its operands' values (in operand order).
// The result must have instr.shape()'s element type and dimensions (tuples for
// tuple shapes). Errors name the instruction.
using OpEvaluator = absl::StatusOr<Literal> (*)(const HloInstruction& instr,
                                                absl::Span<const Literal* const> operands,
                                                EvalContext& ctx);

using OpTable = std::array<OpEvaluator, kHloOpcodeCount>;

// What op implementations may ask of the running evaluation.
class EvalContext {
 public:
  explicit EvalContext(const EvaluatorOptions& options);
  ~EvalContext();

  const EvaluatorOptions& options() const { return options_; }

  // Evaluates `computation` with `args` (used by reduce, map, sort, while,
  // call, fusion, ...). Fails past options().max_call_depth and past the
  // time limit.
  absl::StatusOr<Literal> Call(const HloComputation& computation,
                               absl::Span<const Literal* const> args);

  // XLA's executable-global RNG state (rng-get-and-update-state): returns
  // the state as it stands and adds `delta` (mod 2^128), as XLA's
  // RngGetAndUpdateStateThunk does: options().rng_state when set, else a
  // state of this evaluation starting from XLA's initial value 0x7012395,
  // as a freshly loaded executable's first run.
  absl::uint128 TakeRngState(int64_t delta) {
    absl::uint128& state = options_.rng_state != nullptr ? *options_.rng_state : rng_state_;
    const absl::uint128 old = state;
    state += absl::uint128(static_cast<uint64_t>(delta));
    if (delta < 0) state -= absl::uint128(1) << 64;  // sign extension
    return old;
  }

  // The evaluation order of a computation, computed once per context.
  struct Plan;

 private:
  const Plan& GetPlan(const HloComputation& computation);
  absl::StatusOr<Literal> Run(const HloComputation& computation,
                              absl::Span<const Literal* const> args);
  absl::Status CheckDeadline(const HloInstruction& instr);

  const EvaluatorOptions& options_;
  int64_t depth_ = 0;
  std::chrono::steady_clock::time_point deadline_;
  int64_t steps_ = 0;
  absl::flat_hash_map<const HloComputation*, std::unique_ptr<Plan>> plans_;
  absl::uint128 rng_state_ = 0x7012395;
};

// One registration function per family (see the file list above).
void RegisterElementwiseOps(OpTable& table);
void RegisterShapeOps(OpTable& table);
void RegisterReduceOps(OpTable& table);
void RegisterControlOps(OpTable& table);
void RegisterLinalgOps(OpTable& table);
void RegisterIndexingOps(OpTable& table);
void RegisterRngOps(OpTable& table);
void RegisterBatchNormOps(OpTable& table);

// The table with every family registered (built once; thread-safe).
const OpTable& GetOpTable();

}  // namespace xla::evaluator

#endif  // XLA_HLO_EVALUATOR_OP_TABLE_H_
