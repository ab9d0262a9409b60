// Inserts the copies buffer assignment needs where a buffer cannot be shared
// (see alias_analysis.h for the sharing rules). Run after the optimization
// passes and before scheduling; keeps the module's meaning.
//
// * first, every while body, condition, branch or call target called from
//   more than one place gets a clone per extra call site (alias analysis
//   needs one call site each);
// * while init: a leaf that the loop only reads (the body's root returns the
//   body parameter's own leaf there, directly or through nested loops that
//   only read it) gets no copy: the loop buffer and the while result's leaf
//   share the init's buffer, whatever defines it. Any other leaf gets `copy`
//   unless it is a value the init is its only consumer of, defined in the
//   caller by an instruction that is not a parameter or constant (anything
//   else would be overwritten by the loop); where that leaf is computed from
//   constants alone (a broadcast of a constant, an iota, a fusion without
//   operands), the loop gets a clone of that instruction instead of a copy
//   (the original is removed when nothing else uses it). Every rule here
//   sees a read-only result leaf as the init value it shares (a parameter
//   stays a parameter, a constant a constant), and counts the readers of
//   that leaf as readers of the init value; buffer assignment refuses
//   in-place writes over parameters that are not donated and over
//   constants;
// * while body root: a leaf that is not the body parameter's own leaf is
//   written into the loop-carried buffer. A value computed in the body that
//   the root returns at that one leaf (other body instructions may read it
//   too, but no nested while, conditional or call), that reads the old value
//   only in place (in_place.h: element-wise, or a dynamic-update-slice of
//   it, fused or not), and from which no other reader of the old value is
//   reachable, is ordered after every other reader of the old value by
//   control edges and is computed straight into the loop buffer, no copy;
//   otherwise a `copy` (two when the source is another leaf of the
//   parameter, so swaps work) is ordered that way;
// * conditional branch and call roots: a leaf gets `copy` unless it is a
//   fresh value whose only consumer is the root;
// * entry root: a leaf gets `copy` when it is a constant, a parameter that
//   input_output_alias / buffer_donor does not let it share, or a value
//   already returned at an earlier leaf.
// Not thread-safe (mutates the module).
#ifndef XLA_SERVICE_BUFFER_ASSIGNMENT_COPY_INSERTION_H_
#define XLA_SERVICE_BUFFER_ASSIGNMENT_COPY_INSERTION_H_

#include "absl/status/statusor.h"
#include "xla/hlo/ir/hlo_module.h"

namespace xla {

// Returns whether anything changed. Fails only on malformed modules (no
// entry computation, a while without body); the module is then unchanged.
absl::StatusOr<bool> AddCopiesForWhileAndConditional(HloModule* module);

}  // namespace xla

#endif  // XLA_SERVICE_BUFFER_ASSIGNMENT_COPY_INSERTION_H_
