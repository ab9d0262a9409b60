// ReductionKind: which of the canonical reduce forms an instruction has.
//
// The forms (what reduction-canonicalizer produces, and what the reduction
// emitters accept), on the inputs' dimensions:
//   row:    [rows, columns] reduce dims={1}          -> [rows]
//           [r1, ..., rk, columns] reduce dims={k}   -> [r1, ..., rk]
//           (rows = r1 * ... * rk > 1, columns > 1; unit dims among
//           the r's are allowed). Kept as it is rather
//           than reshaped to [rows, columns], so that the row dims of the
//           reduce's input and output stay those of the surrounding ops:
//           a softmax or layer norm over [batch, heads, seq, seq] then
//           forms one row-normalization fusion (instruction_fusion.h).
//   column: [rows, columns] reduce dims={0}          -> [columns]
//           [batch, rows, columns] reduce dims={1}   -> [batch, columns]
//   whole:  [columns] reduce dims={0}                -> scalar
// Pure functions; thread-safe.
#ifndef XLA_SERVICE_CANONICALIZE_REDUCTION_KIND_H_
#define XLA_SERVICE_CANONICALIZE_REDUCTION_KIND_H_

#include <cstdint>

#include "absl/strings/string_view.h"
#include "xla/hlo/ir/hlo_instruction.h"

namespace xla {

enum class ReductionForm { kRow, kColumn, kWhole, kOther };

// The form and the sizes of the input viewed as [batch, rows, columns]
// (unused sizes are 1). Row and whole reductions reduce `columns`; column
// reductions reduce `rows`.
struct ReductionKind {
  ReductionForm form = ReductionForm::kOther;
  int64_t batch = 1;
  int64_t rows = 1;
  int64_t columns = 1;
  // Elements folded into each output element.
  int64_t reduced_size() const { return form == ReductionForm::kColumn ? rows : columns; }
};

// "row", "column", "whole" or "other".
absl::string_view ReductionFormName(ReductionForm form);

// Classifies `reduce`: kOther for anything but a reduce (variadic or not)
// whose inputs have one of the forms above with static dimensions.
ReductionKind ClassifyReduction(const HloInstruction& reduce);

}  // namespace xla

#endif  // XLA_SERVICE_CANONICALIZE_REDUCTION_KIND_H_
