// Small queries and helpers shared by the fusion passes and analyses:
// fused computations, row reductions, elementwise-like ops, which
// computations the passes rewrite, and unique computation names.
// Queries are pure and thread-safe on a module nobody mutates;
// ComputationNamer is not thread-safe.
#ifndef XLA_SERVICE_FUSION_FUSION_UTIL_H_
#define XLA_SERVICE_FUSION_FUSION_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/hlo/ir/hlo_module.h"

namespace xla {

// The computation a fusion instruction calls (first of `calls`); nullptr
// for other instructions or a fusion without callee.
HloComputation* FusedComputation(const HloInstruction& fusion);

// True for a fusion of kind kLoop or kInput with a called computation: the
// kinds the fusion passes create, merge and extend.
bool IsMergeableFusion(const HloInstruction& instr);

// True when `reduce` is a single-input, single-result reduce whose reduced
// dimensions are exactly the trailing (minor-most, row-major) dimensions of
// its operand, at least one of them. `row_rank` (may be null) gets the
// number of kept leading dimensions.
bool IsRowReduction(const HloInstruction& reduce, int64_t* row_rank);

// True when element i of `instr` depends only on element i of each operand
// (elementwise opcodes, convert, select, clamp, is-finite, ...), all array
// operands having the result's dimensions or being scalars.
bool IsElementwiseLike(const HloInstruction& instr);

// The computations the fusion passes rewrite, callers before callees: the
// entry, and transitively while bodies and conditions, conditional branches
// and call targets. Never reducers, comparators or fused computations.
std::vector<HloComputation*> ComputationsToFuse(const HloModule& module);

// Hands out computation names unique in a module, as
// HloModule::UniqueComputationName does (`base`, else `base.N` with the
// smallest free N), but reading the module's names once. Names handed out
// are remembered.
class ComputationNamer {
 public:
  explicit ComputationNamer(const HloModule& module);
  std::string Unique(const std::string& base);

 private:
  absl::flat_hash_set<std::string> used_;
};

}  // namespace xla

#endif  // XLA_SERVICE_FUSION_FUSION_UTIL_H_
