// convolution for the evaluator, following XLA / StableHLO semantics:
//
//   * dim_labels give the batch, feature and spatial dimensions of the input,
//     the kernel (input feature `i`, output feature `o`) and the output;
//   * per spatial dimension the window has a size (the kernel's), a stride,
//     low/high padding (negative padding crops), base (lhs) dilation, window
//     (rhs) dilation and reversal (the kernel is read back to front);
//   * feature_group_count G splits the input features and the kernel output
//     features into G contiguous groups; output feature o uses input features
//     of group o / (O / G);
//   * batch_group_count B splits the input batch into B contiguous groups;
//     output feature o reads input batch (o / (O / B)) * (N / B) + b.
// Accumulation as in linalg_util.h (f64 / exact integers, one rounding).
#include <cstdlib>
#include <variant>
#include <vector>

#include "xla/hlo/evaluator/index_util.h"
#include "xla/hlo/evaluator/linalg_util.h"
#include "xla/hlo/evaluator/op_helpers.h"
#include "xla/util/status_macros.h"

namespace xla::evaluator::linalg {
namespace {

using op_helpers::OpError;

struct ConvPlan {
  ConvDimLabels labels;
  std::vector<WindowDim> window;
  int64_t feature_groups = 1;
  int64_t batch_groups = 1;
  std::vector<int64_t> out_dims;
};

absl::Status CheckLabels(const HloInstruction& instr, const ConvDimLabels& l, int64_t lhs_rank,
                         int64_t rhs_rank) {
  const size_t spatial = l.input_spatial.size();
  const int64_t rank = static_cast<int64_t>(spatial + 2);
  if (lhs_rank != rank || rhs_rank != rank || l.kernel_spatial.size() != spatial ||
      l.output_spatial.size() != spatial) {
    return OpError(instr, "dim_labels ", l.text, " do not fit operands of rank ", lhs_rank,
                   " and ", rhs_rank);
  }
  std::vector<int64_t> in = {l.input_batch, l.input_feature};
  std::vector<int64_t> kernel = {l.kernel_input_feature, l.kernel_output_feature};
  std::vector<int64_t> out = {l.output_batch, l.output_feature};
  in.insert(in.end(), l.input_spatial.begin(), l.input_spatial.end());
  kernel.insert(kernel.end(), l.kernel_spatial.begin(), l.kernel_spatial.end());
  out.insert(out.end(), l.output_spatial.begin(), l.output_spatial.end());
  RETURN_IF_ERROR(op_helpers::CheckDimList(instr, "input dim_labels", in, rank));
  RETURN_IF_ERROR(op_helpers::CheckDimList(instr, "kernel dim_labels", kernel, rank));
  return op_helpers::CheckDimList(instr, "output dim_labels", out, rank);
}

absl::Status CheckGroups(const HloInstruction& instr, const ConvPlan& p, const Shape& lhs,
                         const Shape& rhs) {
  const int64_t g = p.feature_groups, b = p.batch_groups;
  const int64_t batch = lhs.dimensions(p.labels.input_batch);
  const int64_t in_features = lhs.dimensions(p.labels.input_feature);
  const int64_t kernel_in = rhs.dimensions(p.labels.kernel_input_feature);
  const int64_t kernel_out = rhs.dimensions(p.labels.kernel_output_feature);
  if (g < 1 || b < 1 || (g > 1 && b > 1)) {
    return OpError(instr, "feature_group_count=", g, " and batch_group_count=", b,
                   " must be positive and not both above 1");
  }
  if (in_features % g != 0 || in_features / g != kernel_in || kernel_out % g != 0 ||
      kernel_out % b != 0 || batch % b != 0) {
    return OpError(instr, "input ", lhs.ToString(false), " and kernel ", rhs.ToString(false),
                   " do not fit feature_group_count=", g, " and batch_group_count=", b);
  }
  return absl::OkStatus();
}

// Output size of one spatial dimension (StableHLO's num_windows).
int64_t WindowCount(int64_t in, const WindowDim& w) {
  const int64_t dilated = in == 0 ? 0 : (in - 1) * w.lhs_dilate + 1;
  const int64_t padded = w.pad_low + dilated + w.pad_high;
  const int64_t span = (w.size - 1) * w.rhs_dilate + 1;
  if (padded <= 0 || span > padded) return 0;
  return (padded - span) / w.stride + 1;
}

absl::StatusOr<std::vector<WindowDim>> GetWindow(const HloInstruction& instr, size_t spatial) {
  const AttrValue* v = instr.FindAttr(AttrId::kWindow);
  const Window* window = v == nullptr ? nullptr : std::get_if<Window>(v);
  std::vector<WindowDim> dims;
  if (window != nullptr) dims = window->dims;
  if (dims.size() != spatial) {
    return OpError(instr, "window has ", dims.size(), " dimensions, expected ", spatial);
  }
  // Bounding every field keeps all position arithmetic far from overflow.
  constexpr int64_t kLimit = int64_t{1} << 40;
  for (const WindowDim& w : dims) {
    if (w.size < 1 || w.stride < 1 || w.lhs_dilate < 1 || w.rhs_dilate < 1 ||
        w.size > kLimit || w.stride > kLimit || w.lhs_dilate > kLimit ||
        w.rhs_dilate > kLimit || std::abs(w.pad_low) > kLimit || std::abs(w.pad_high) > kLimit) {
      return OpError(instr, "window ", WindowToString(*window),
                     " needs positive sizes, strides and dilations, and every field at most 2^40");
    }
  }
  return dims;
}

absl::StatusOr<ConvPlan> PlanConvolution(const HloInstruction& instr, const Shape& lhs,
                                         const Shape& rhs) {
  const AttrValue* v = instr.FindAttr(AttrId::kDimLabels);
  const ConvDimLabels* labels = v == nullptr ? nullptr : std::get_if<ConvDimLabels>(v);
  if (labels == nullptr) return OpError(instr, "dim_labels are missing");
  ConvPlan p;
  p.labels = *labels;
  RETURN_IF_ERROR(CheckLabels(instr, p.labels, lhs.rank(), rhs.rank()));
  const size_t spatial = p.labels.input_spatial.size();
  ASSIGN_OR_RETURN(p.window, GetWindow(instr, spatial));
  p.feature_groups = instr.GetInt(AttrId::kFeatureGroupCount, 1);
  p.batch_groups = instr.GetInt(AttrId::kBatchGroupCount, 1);
  RETURN_IF_ERROR(CheckGroups(instr, p, lhs, rhs));
  p.out_dims.assign(spatial + 2, 0);
  p.out_dims[p.labels.output_batch] = lhs.dimensions(p.labels.input_batch) / p.batch_groups;
  p.out_dims[p.labels.output_feature] = rhs.dimensions(p.labels.kernel_output_feature);
  for (size_t i = 0; i < spatial; ++i) {
    if (p.window[i].size != rhs.dimensions(p.labels.kernel_spatial[i])) {
      return OpError(instr, "window size ", p.window[i].size, " of spatial dimension ", i,
                     " does not match kernel ", rhs.ToString(false));
    }
    p.out_dims[p.labels.output_spatial[i]] =
        WindowCount(lhs.dimensions(p.labels.input_spatial[i]), p.window[i]);
  }
  return p;
}

// Input position read by output position `out` and kernel tap `k` in one
// spatial dimension, or -1 when the tap falls on padding or between dilated
// input elements.
int64_t InputPosition(const WindowDim& w, int64_t out, int64_t k, int64_t in_size) {
  const int64_t p = out * w.stride + k * w.rhs_dilate - w.pad_low;
  if (p < 0 || p % w.lhs_dilate != 0) return -1;
  const int64_t q = p / w.lhs_dilate;
  return q < in_size ? q : -1;
}

// Everything the inner loops need, precomputed.
struct ConvLoop {
  const ConvPlan& plan;
  const Shape& lhs;
  const Shape& rhs;
  std::vector<int64_t> ls, ks;       // row-major strides
  std::vector<int64_t> kernel_taps;  // kernel spatial sizes
};

// Accumulates output element `out` (a multi-index of the output).
void AccumulateOne(const ConvLoop& c, const std::vector<int64_t>& out, const DecodedArray& a,
                   const DecodedArray& b, Accumulator& acc) {
  const ConvDimLabels& l = c.plan.labels;
  const int64_t o = out[l.output_feature];
  const int64_t kernel_out = c.rhs.dimensions(l.kernel_output_feature);
  const int64_t kernel_in = c.rhs.dimensions(l.kernel_input_feature);
  const int64_t fg = o / (kernel_out / c.plan.feature_groups);
  const int64_t bg = o / (kernel_out / c.plan.batch_groups);
  const int64_t batch = bg * (c.lhs.dimensions(l.input_batch) / c.plan.batch_groups) +
                        out[l.output_batch];
  if (ElementCount(c.kernel_taps) == 0) return;
  std::vector<int64_t> tap(c.kernel_taps.size(), 0);
  do {
    int64_t loff = batch * c.ls[l.input_batch];
    int64_t roff = o * c.ks[l.kernel_output_feature];
    bool inside = true;
    for (size_t i = 0; inside && i < tap.size(); ++i) {
      const WindowDim& w = c.plan.window[i];
      const int64_t q = InputPosition(w, out[l.output_spatial[i]], tap[i],
                                      c.lhs.dimensions(l.input_spatial[i]));
      inside = q >= 0;
      loff += q * c.ls[l.input_spatial[i]];
      roff += (w.reversal ? w.size - 1 - tap[i] : tap[i]) * c.ks[l.kernel_spatial[i]];
    }
    if (!inside) continue;
    for (int64_t ki = 0; ki < kernel_in; ++ki) {
      acc.AddProduct(a, loff + (fg * kernel_in + ki) * c.ls[l.input_feature], b,
                     roff + ki * c.ks[l.kernel_input_feature]);
    }
  } while (NextIndex(tap, c.kernel_taps));
}

}  // namespace

absl::StatusOr<Literal> EvalConvolution(const HloInstruction& instr,
                                        absl::Span<const Literal* const> operands,
                                        EvalContext& ctx) {
  const Literal& lhs = *operands[0];
  const Literal& rhs = *operands[1];
  RETURN_IF_ERROR(op_helpers::ExpectArray(instr, lhs, "input"));
  RETURN_IF_ERROR(op_helpers::ExpectArray(instr, rhs, "kernel"));
  ASSIGN_OR_RETURN(ConvPlan plan, PlanConvolution(instr, lhs.shape(), rhs.shape()));
  const PrimitiveType out_type = instr.shape().element_type();
  RETURN_IF_ERROR(op_helpers::CheckArrayResult(instr, plan.out_dims, out_type));
  const AccumKind kind =
      AccumKindFor(lhs.shape().element_type(), rhs.shape().element_type(), out_type);
  const DecodedArray a = Decode(lhs, kind);
  const DecodedArray b = Decode(rhs, kind);
  ConvLoop loop{plan, lhs.shape(), rhs.shape(), RowMajorStrides(lhs.shape().dimensions()),
                RowMajorStrides(rhs.shape().dimensions()), {}};
  for (int64_t d : plan.labels.kernel_spatial) loop.kernel_taps.push_back(rhs.shape().dimensions(d));
  Literal out(instr.shape());
  if (out.element_count() == 0) return out;
  std::vector<int64_t> index(plan.out_dims.size(), 0);
  int64_t linear = 0;
  do {
    Accumulator acc(kind);
    AccumulateOne(loop, index, a, b, acc);
    acc.Store(out, linear++);
  } while (NextIndex(index, plan.out_dims));
  return out;
}

}  // namespace xla::evaluator::linalg
