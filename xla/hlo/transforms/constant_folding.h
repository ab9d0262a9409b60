// ConstantFolding: evaluates instructions whose operands are all constants
// (HloEvaluator) and replaces them with the resulting constant.
//
// Bounded so that folding never materializes big arrays: the result must
// have at most `max_result_elements` elements and the operands together at
// most `max_operand_elements`. Never folds: side-effecting ops
// (HasSideEffect), rng ops, broadcasts (broadcast(constant) stays, it is
// cheaper than the array it would become), parameters and other
// zero-operand ops except iota (folded under the bound), tuple-shaped
// results, instructions with control edges, elided constants, and anything
// the evaluator rejects or that runs a while loop past 1024 iterations.
// Deterministic. Not thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_CONSTANT_FOLDING_H_
#define XLA_HLO_TRANSFORMS_CONSTANT_FOLDING_H_

#include <cstdint>

#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

struct ConstantFoldingOptions {
  int64_t max_result_elements = int64_t{1} << 16;
  int64_t max_operand_elements = int64_t{1} << 22;
};

class ConstantFolding : public HloPass {
 public:
  explicit ConstantFolding(ConstantFoldingOptions options = {}) : options_(options) {}
  absl::string_view name() const override { return "constant-folding"; }
  // Never fails on a verified module: an instruction the evaluator cannot
  // fold is left as it is.
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  ConstantFoldingOptions options_;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_CONSTANT_FOLDING_H_
