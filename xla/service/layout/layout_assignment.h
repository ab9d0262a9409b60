// LayoutAssignment ("layout-assignment"): gives every array shape of the
// module an explicit physical layout.
//
// Rule: every array shape inside the module (every computation, fused and
// reducer computations included) is row-major (minor_to_major = rank-1, ...,
// 0). The only exceptions are the entry computation's boundary:
//   * entry parameter i keeps the layout from the module's
//     entry_computation_layout when that has one, else the parameter's own
//     layout, else row-major. A non-row-major parameter is followed by a
//     `copy` into row-major (through get-tuple-element / tuple for tuple
//     parameters), and only that copy reads it; a complex (c64, c128) one
//     is bitcast to its real (re, im) view with the pair dimension most
//     minor, copied, and bitcast back, since no kernel has complex
//     elements;
//   * the entry result gets the layout from entry_computation_layout, else
//     the root's own layout, else row-major. When that is not row-major a
//     `copy` into it becomes the root (per element for tuple results;
//     between bitcasts of the real views for complex ones).
// Layouts are physical only: the evaluator and Literal work on logical
// (row-major) values, so the inserted copies are identities there, and
// bitcasts keep their meaning because everything else is row-major.
// Array layouts carrying a suffix (tiles `T(...)`, element size `E(..)`,
// memory space `S(n)`, ...) or a malformed minor_to_major are not understood
// and are left exactly as they are; they are listed in unhandled().
//
// The pass is idempotent: a module that already satisfies the rule is not
// changed (Run returns false). Not thread-safe (mutates the module).
#ifndef XLA_SERVICE_LAYOUT_LAYOUT_ASSIGNMENT_H_
#define XLA_SERVICE_LAYOUT_LAYOUT_ASSIGNMENT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/hlo/transforms/hlo_pass.h"
#include "xla/types/shape.h"

namespace xla {

class LayoutAssignment : public HloPass {
 public:
  absl::string_view name() const override { return "layout-assignment"; }
  // Fails when the module has no entry computation, or when the entry
  // layout does not match the entry signature (an unverified module).
  absl::StatusOr<bool> Run(HloModule* module) override;

  // "<computation>/<instruction>: <shape>" for every shape whose layout the
  // last Run left alone because it has a suffix or is malformed.
  const std::vector<std::string>& unhandled() const { return unhandled_; }

 private:
  std::vector<std::string> unhandled_;
};

// True when array shape `shape` has exactly the row-major layout (no
// suffix). Pure.
bool HasRowMajorLayout(const Shape& shape);

// True when the layout of array shape `shape` is one the pass understands:
// no suffix, and minor_to_major a permutation of the dims. Pure.
bool HasPlainLayout(const Shape& shape);

// Checks the rule above on `module` (what LayoutAssignment guarantees), with
// shapes that lack a plain layout ignored. OK, or InvalidArgumentError
// naming the first offending instruction and shape. Pure.
absl::Status CheckLayoutsAssigned(const HloModule& module);

}  // namespace xla

#endif  // XLA_SERVICE_LAYOUT_LAYOUT_ASSIGNMENT_H_
