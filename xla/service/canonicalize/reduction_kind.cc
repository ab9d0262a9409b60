#include "xla/service/canonicalize/reduction_kind.h"

#include <vector>

namespace xla {

absl::string_view ReductionFormName(ReductionForm form) {
  switch (form) {
    case ReductionForm::kRow:
      return "row";
    case ReductionForm::kColumn:
      return "column";
    case ReductionForm::kWhole:
      return "whole";
    case ReductionForm::kOther:
      return "other";
  }
  return "other";
}

namespace {

// A reduce over the last of rank >= 3 dims is a row as it is when it has
// more than one row and more than one column. Unit dims among the row dims
// change no element's position (a softmax over [batch, 1, seq, seq], one
// head, stays one row normalization). One row is left to the canonicalizer,
// which makes it a whole reduction, and one column a [rows, 1] row.
bool IsMultiDimRow(const Shape& shape) {
  const int64_t rank = shape.rank();
  int64_t rows = 1;
  for (int64_t i = 0; i + 1 < rank; ++i) rows *= shape.dimensions(i);
  return rows > 1 && shape.dimensions(rank - 1) > 1;
}

}  // namespace

ReductionKind ClassifyReduction(const HloInstruction& reduce) {
  ReductionKind kind;
  if (reduce.opcode() != HloOpcode::kReduce || reduce.operand_count() < 2) return kind;
  const Shape& in = reduce.operand(0)->shape();
  if (!in.IsArray() || !in.is_static()) return kind;
  const std::vector<int64_t>& d = reduce.dimensions();
  if (d.size() != 1) return kind;
  const int64_t rank = in.rank();
  if (rank == 1 && d[0] == 0) {
    kind.form = ReductionForm::kWhole;
    kind.columns = in.dimensions(0);
  } else if (rank >= 2 && d[0] == rank - 1 && (rank == 2 || IsMultiDimRow(in))) {
    kind.form = ReductionForm::kRow;
    for (int64_t i = 0; i + 1 < rank; ++i) kind.rows *= in.dimensions(i);
    kind.columns = in.dimensions(rank - 1);
  } else if (rank == 2 && d[0] == 0) {
    kind.form = ReductionForm::kColumn;
    kind.rows = in.dimensions(0);
    kind.columns = in.dimensions(1);
  } else if (rank == 3 && d[0] == 1) {
    kind.form = ReductionForm::kColumn;
    kind.batch = in.dimensions(0);
    kind.rows = in.dimensions(1);
    kind.columns = in.dimensions(2);
  }
  return kind;
}

}  // namespace xla
