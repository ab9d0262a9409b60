#include "xla/hlo/evaluator/te_softmax_op.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "xla/hlo/proto/te_softmax_call.h"
#include "xla/util/math_util.h"
#include "xla/util/status_macros.h"

namespace xla::evaluator {
namespace {

using te_softmax::TeSoftmaxCall;
using te_softmax::TeSoftmaxMask;

// TE's value for a masked position (before the row maximum is taken).
constexpr double kMaskedValue = -10000.0;

// Where row `r` of x (rows in row-major order over all but the last
// dimension) sits: its query index and, for a mask operand, the mask row.
struct RowGeometry {
  int64_t rows_per_batch;  // heads * q_seqlen (masked forms)
  int64_t q_seqlen;
  bool shared_mask;  // the mask's leading dimensions have product 1
};

RowGeometry Geometry(const HloInstruction& instr, const TeSoftmaxCall& call) {
  const std::vector<int64_t>& d = instr.shape().dimensions();
  const size_t r = d.size();
  RowGeometry g{1, r >= 2 ? d[r - 2] : 1, true};
  if (r >= 3) g.rows_per_batch = d[r - 3] * d[r - 2];
  if (call.mask == TeSoftmaxMask::kOperand) {
    const std::vector<int64_t>& m = instr.operand(1)->shape().dimensions();
    g.shared_mask = Product(m, 0, m.size() - 3) == 1;
  }
  return g;
}

// True when position `j` of row `row` takes part (the causal rule; the
// mask operand is applied as a value instead).
bool Visible(const TeSoftmaxCall& call, const RowGeometry& g, int64_t row, int64_t j) {
  return call.mask != TeSoftmaxMask::kCausal || j <= row % g.q_seqlen;
}

void ForwardRow(const TeSoftmaxCall& call, const RowGeometry& g, const Literal& x,
                const Literal* mask, int64_t row, int64_t n, Literal& out) {
  std::vector<double> v(n, -std::numeric_limits<double>::infinity());
  const int64_t mask_row = g.shared_mask ? row % g.q_seqlen
                                         : (row / g.rows_per_batch) * g.q_seqlen + row % g.q_seqlen;
  for (int64_t j = 0; j < n; ++j) {
    if (!Visible(call, g, row, j)) continue;
    const bool masked = mask != nullptr && mask->GetInt(mask_row * n + j) == 1;
    v[j] = masked ? kMaskedValue : call.scale * x.GetDouble(row * n + j);
  }
  const double max = *std::max_element(v.begin(), v.end());
  double sum = 0;
  for (double& e : v) sum += (e = std::exp(e - max));
  const bool all_masked = mask != nullptr && max == kMaskedValue;
  for (int64_t j = 0; j < n; ++j) out.SetDouble(row * n + j, all_masked ? 0.0 : v[j] / sum);
}

void BackwardRow(const TeSoftmaxCall& call, const RowGeometry& g, const Literal& dy,
                 const Literal& y, int64_t row, int64_t n, Literal& out) {
  std::vector<double> yv(n, 0.0), gv(n, 0.0);
  double sum = 0;
  for (int64_t j = 0; j < n; ++j) {
    if (!Visible(call, g, row, j)) continue;
    yv[j] = y.GetDouble(row * n + j);
    sum += (gv[j] = dy.GetDouble(row * n + j) * yv[j]);
  }
  for (int64_t j = 0; j < n; ++j) out.SetDouble(row * n + j, call.scale * (gv[j] - yv[j] * sum));
}

}  // namespace

absl::StatusOr<Literal> EvalTeSoftmax(const HloInstruction& instr,
                                      absl::Span<const Literal* const> operands) {
  ASSIGN_OR_RETURN(TeSoftmaxCall call, te_softmax::ReadTeSoftmaxCall(instr));
  Shape shape = instr.shape();
  shape.clear_layout();
  Literal out(shape);
  const int64_t n = shape.dimensions(shape.rank() - 1);
  if (n == 0 || out.element_count() == 0) return out;
  const int64_t rows = out.element_count() / n;
  const RowGeometry g = Geometry(instr, call);
  const Literal* mask = call.mask == TeSoftmaxMask::kOperand ? operands[1] : nullptr;
  for (int64_t row = 0; row < rows; ++row) {
    if (call.backward) {
      BackwardRow(call, g, *operands[0], *operands[1], row, n, out);
    } else {
      ForwardRow(call, g, *operands[0], mask, row, n, out);
    }
  }
  return out;
}

}  // namespace xla::evaluator
