#include "xla/hlo/evaluator/onednn_layer_norm_op.h"

#include <cmath>
#include <cstdint>

#include "xla/hlo/proto/onednn_layer_norm_call.h"
#include "xla/util/status_macros.h"

namespace xla::evaluator {
namespace {

// Row `row` (length n) of x normalized into `out`.
void NormalizeRow(const Literal& x, const Literal& scale, const Literal& shift, double epsilon,
                  int64_t row, int64_t n, Literal& out) {
  const int64_t base = row * n;
  double mean = 0;
  for (int64_t j = 0; j < n; ++j) mean += x.GetDouble(base + j);
  mean /= static_cast<double>(n);
  double var = 0;
  for (int64_t j = 0; j < n; ++j) {
    const double d = x.GetDouble(base + j) - mean;
    var += d * d;
  }
  var /= static_cast<double>(n);
  const double inv = 1.0 / std::sqrt(var + epsilon);
  for (int64_t j = 0; j < n; ++j) {
    const double normalized = (x.GetDouble(base + j) - mean) * inv;
    out.SetDouble(base + j, normalized * scale.GetDouble(j) + shift.GetDouble(j));
  }
}

}  // namespace

absl::StatusOr<Literal> EvalOneDnnLayerNorm(const HloInstruction& instr,
                                            absl::Span<const Literal* const> operands) {
  ASSIGN_OR_RETURN(onednn::LayerNormCall call, onednn::ReadLayerNormCall(instr));
  Shape shape = instr.shape();
  shape.clear_layout();
  Literal out(shape);
  const int64_t n = shape.dimensions(shape.rank() - 1);
  if (n == 0 || out.element_count() == 0) return out;
  const int64_t rows = out.element_count() / n;
  for (int64_t row = 0; row < rows; ++row) {
    NormalizeRow(*operands[0], *operands[1], *operands[2], call.epsilon, row, n, out);
  }
  return out;
}

}  // namespace xla::evaluator
