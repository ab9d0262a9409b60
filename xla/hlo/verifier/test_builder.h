// Test helpers: build HLO modules by hand with short shape strings.
//
//   HloModule m("m");
//   CompBuilder b(&m, "main");
//   HloInstruction* x = b.Param("f32[4,33]");
//   HloInstruction* y = b.Op(HloOpcode::kNegate, "f32[4,33]", {x});
//   b.Finish(y, /*entry=*/true);
//
// Test-only; aborts (XLA_CHECK) on malformed shape strings. Not thread-safe.
#ifndef XLA_HLO_VERIFIER_TEST_BUILDER_H_
#define XLA_HLO_VERIFIER_TEST_BUILDER_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/types/shape.h"

namespace xla::hlo_test {

// Parses a shape in HLO text (`f32[4,<=5,?]`, `(s32[], token[])`) with the
// parser's ParseShapeText and gives it the default layout. Aborts on
// malformed text.
Shape S(absl::string_view text);

// Appends instructions to a new computation of `module`.
class CompBuilder {
 public:
  CompBuilder(HloModule* module, std::string name);

  HloComputation* comp() const { return comp_; }

  // parameter(N) with N = the number of parameters added so far.
  HloInstruction* Param(absl::string_view shape, std::string name = "");
  // An instruction with a declared shape ("" = undeclared: an empty tuple).
  HloInstruction* Op(HloOpcode op, absl::string_view shape, std::vector<HloInstruction*> operands,
                     std::string name = "");
  // A constant holding zeros of `shape`.
  HloInstruction* Constant(absl::string_view shape, std::string name = "");
  // Sets the root (and the module's entry when `entry`).
  HloComputation* Finish(HloInstruction* root, bool entry = false);

 private:
  std::string NextName(absl::string_view base);

  HloModule* module_;
  HloComputation* comp_;
  int64_t params_ = 0;
};

// (T, T) -> T computation applying `op` (add, maximum, ...).
HloComputation* ScalarBinary(HloModule* module, absl::string_view type, HloOpcode op,
                             std::string name);
// (T, T) -> pred[] computation comparing its parameters.
HloComputation* ScalarLess(HloModule* module, absl::string_view type, std::string name);

}  // namespace xla::hlo_test

#endif  // XLA_HLO_VERIFIER_TEST_BUILDER_H_
