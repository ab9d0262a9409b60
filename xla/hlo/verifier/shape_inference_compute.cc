// Shape rules for contractions and linear algebra: dot, ragged-dot,
// scaled-dot, convolution, fft, cholesky, triangular-solve, batch-norm-*,
// topk.
#include <algorithm>
#include <vector>

#include "absl/strings/str_join.h"
#include "xla/hlo/verifier/shape_inference_internal.h"
#include "xla/util/status_macros.h"

namespace xla::shape_inference_internal {
namespace {

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

struct Dims {
  std::vector<int64_t> sizes;
  std::vector<bool> dynamic;
  void Add(const Shape& s, int64_t d) {
    sizes.push_back(s.dimensions(d));
    dynamic.push_back(s.is_dynamic_dimension(d));
  }
};

// Checks that lhs dimensions `l` pair up with rhs dimensions `r` (same
// length, in range, same sizes).
absl::Status CheckDimPairs(const InferContext& ctx, AttrId lhs_attr, AttrId rhs_attr,
                           const Shape& lhs, const Shape& rhs) {
  const std::vector<int64_t>& l = ctx.instr().GetIntList(lhs_attr);
  const std::vector<int64_t>& r = ctx.instr().GetIntList(rhs_attr);
  RETURN_IF_ERROR(ctx.CheckDimIndices(lhs_attr, l, lhs.rank()));
  RETURN_IF_ERROR(ctx.CheckDimIndices(rhs_attr, r, rhs.rank()));
  if (l.size() != r.size()) {
    return ctx.Error(AttrName(lhs_attr), "={", absl::StrJoin(l, ","), "} and ",
                     AttrName(rhs_attr), "={", absl::StrJoin(r, ","),
                     "} must have the same length");
  }
  for (size_t i = 0; i < l.size(); ++i) {
    if (!DimsAgree(lhs.dimensions(l[i]), rhs.dimensions(r[i]))) {
      return ctx.Error(AttrName(lhs_attr), " dimension ", l[i], " of ", ShapeStr(lhs),
                       " does not match ", AttrName(rhs_attr), " dimension ", r[i], " of ",
                       ShapeStr(rhs));
    }
  }
  return absl::OkStatus();
}

// Result dimensions of a dot-like op: batch, lhs free, rhs free (rhs
// dimensions listed in `rhs_excluded` are dropped too).
absl::StatusOr<Dims> DotDims(const InferContext& ctx, const Shape& lhs, const Shape& rhs,
                             const std::vector<int64_t>& rhs_excluded) {
  RETURN_IF_ERROR(
      CheckDimPairs(ctx, AttrId::kLhsBatchDims, AttrId::kRhsBatchDims, lhs, rhs));
  RETURN_IF_ERROR(CheckDimPairs(ctx, AttrId::kLhsContractingDims,
                                AttrId::kRhsContractingDims, lhs, rhs));
  const HloInstruction& instr = ctx.instr();
  const std::vector<int64_t>& lb = instr.GetIntList(AttrId::kLhsBatchDims);
  const std::vector<int64_t>& lc = instr.GetIntList(AttrId::kLhsContractingDims);
  const std::vector<int64_t>& rb = instr.GetIntList(AttrId::kRhsBatchDims);
  const std::vector<int64_t>& rc = instr.GetIntList(AttrId::kRhsContractingDims);
  for (int64_t d : lb) {
    if (Contains(lc, d)) return ctx.Error("lhs dimension ", d, " is both batch and contracting");
  }
  for (int64_t d : rb) {
    if (Contains(rc, d)) return ctx.Error("rhs dimension ", d, " is both batch and contracting");
  }
  Dims out;
  for (int64_t d : lb) out.Add(lhs, d);
  for (int64_t d = 0; d < lhs.rank(); ++d) {
    if (!Contains(lb, d) && !Contains(lc, d)) out.Add(lhs, d);
  }
  for (int64_t d = 0; d < rhs.rank(); ++d) {
    if (!Contains(rb, d) && !Contains(rc, d) && !Contains(rhs_excluded, d)) out.Add(rhs, d);
  }
  return out;
}

// The element type used when the shape is not declared: the lhs type when
// both operands agree.
std::optional<PrimitiveType> CommonType(const Shape& lhs, const Shape& rhs) {
  if (lhs.element_type() != rhs.element_type()) return std::nullopt;
  return lhs.element_type();
}

absl::Status CheckLabelIndices(const InferContext& ctx, const char* what,
                               const std::vector<int64_t>& dims, int64_t rank) {
  for (int64_t d : dims) {
    if (d < 0 || d >= rank) {
      return ctx.Error("dim_labels ", what, " dimension ", d, " is out of range for rank ",
                       rank);
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> InferDot(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectArray(0));
  RETURN_IF_ERROR(ctx.ExpectArray(1));
  const Shape& lhs = ctx.operand_shape(0);
  const Shape& rhs = ctx.operand_shape(1);
  ASSIGN_OR_RETURN(Dims d, DotDims(ctx, lhs, rhs, {}));
  return ctx.WithDeclaredType(MakeArray(lhs.element_type(), d.sizes, d.dynamic),
                              CommonType(lhs, rhs));
}

absl::StatusOr<Shape> InferRaggedDot(const InferContext& ctx) {
  for (int64_t i = 0; i < 3; ++i) RETURN_IF_ERROR(ctx.ExpectArray(i));
  const Shape& lhs = ctx.operand_shape(0);
  const Shape& rhs = ctx.operand_shape(1);
  const Shape& group_sizes = ctx.operand_shape(2);
  if (group_sizes.rank() < 1 || !IsInteger(group_sizes.element_type())) {
    return ctx.Error("group sizes must be an integer array of rank >= 1, got ",
                     ShapeStr(group_sizes));
  }
  const int64_t num_groups = group_sizes.dimensions(group_sizes.rank() - 1);
  const HloInstruction& instr = ctx.instr();
  const std::vector<int64_t>& ragged = instr.GetIntList(AttrId::kLhsRaggedDims);
  const std::vector<int64_t>& group = instr.GetIntList(AttrId::kRhsGroupDims);
  if (ragged.size() != 1) return ctx.Error("lhs_ragged_dims must name one dimension");
  RETURN_IF_ERROR(ctx.CheckDimIndices(AttrId::kLhsRaggedDims, ragged, lhs.rank()));
  RETURN_IF_ERROR(ctx.CheckDimIndices(AttrId::kRhsGroupDims, group, rhs.rank()));
  const bool ragged_contracting = Contains(instr.GetIntList(AttrId::kLhsContractingDims), ragged[0]);
  const bool ragged_batch = Contains(instr.GetIntList(AttrId::kLhsBatchDims), ragged[0]);
  const bool ragged_free = !ragged_contracting && !ragged_batch;
  if (ragged_free != (group.size() == 1) || group.size() > 1) {
    return ctx.Error("rhs_group_dims must name one dimension exactly when the lhs ragged ",
                     "dimension is a non-contracting, non-batch dimension");
  }
  if (ragged_free && !DimsAgree(rhs.dimensions(group[0]), num_groups)) {
    return ctx.Error("rhs group dimension ", group[0], " of ", ShapeStr(rhs), " must have ",
                     num_groups, " groups (the minor dimension of ", ShapeStr(group_sizes), ")");
  }
  ASSIGN_OR_RETURN(Dims d, DotDims(ctx, lhs, rhs, group));
  if (ragged_contracting) {
    d.sizes.insert(d.sizes.begin(), num_groups);
    d.dynamic.insert(d.dynamic.begin(), false);
  }
  return ctx.WithDeclaredType(MakeArray(lhs.element_type(), d.sizes, d.dynamic),
                              CommonType(lhs, rhs));
}

absl::StatusOr<Shape> InferScaledDot(const InferContext& ctx) {
  for (int64_t i = 0; i < 4; ++i) RETURN_IF_ERROR(ctx.ExpectArray(i));
  const Shape& lhs = ctx.operand_shape(0);
  const Shape& rhs = ctx.operand_shape(1);
  for (int64_t i : {0, 1}) {
    const Shape& operand = ctx.operand_shape(i);
    const Shape& scale = ctx.operand_shape(i + 2);
    if (scale.IsScalar()) continue;
    bool ok = scale.rank() == operand.rank();
    for (int64_t d = 0; ok && d < operand.rank(); ++d) {
      ok = scale.dimensions(d) > 0 && operand.dimensions(d) % scale.dimensions(d) == 0;
    }
    if (!ok) {
      return ctx.Error("scale ", ShapeStr(scale), " must be a scalar or divide ",
                       ShapeStr(operand), " dimension by dimension");
    }
  }
  ASSIGN_OR_RETURN(Dims d, DotDims(ctx, lhs, rhs, {}));
  return ctx.WithDeclaredType(MakeArray(lhs.element_type(), d.sizes, d.dynamic), std::nullopt);
}

namespace {

// Checks that the labels, the window and both operands agree on the number
// of spatial dimensions and that every label index is in range.
absl::Status CheckConvLabels(const InferContext& ctx, const ConvDimLabels& labels,
                             const Window& window, const Shape& lhs, const Shape& rhs) {
  const size_t spatial = labels.input_spatial.size();
  const int64_t rank = static_cast<int64_t>(spatial + 2);
  if (lhs.rank() != rank || rhs.rank() != rank || labels.kernel_spatial.size() != spatial ||
      labels.output_spatial.size() != spatial || window.dims.size() != spatial) {
    return ctx.Error("dim_labels ", labels.text, " with ", window.dims.size(),
                     " window dimensions does not fit input ", ShapeStr(lhs), " and kernel ",
                     ShapeStr(rhs));
  }
  RETURN_IF_ERROR(CheckLabelIndices(ctx, "input", labels.input_spatial, rank));
  RETURN_IF_ERROR(
      CheckLabelIndices(ctx, "input", {labels.input_batch, labels.input_feature}, rank));
  RETURN_IF_ERROR(CheckLabelIndices(ctx, "kernel", labels.kernel_spatial, rank));
  RETURN_IF_ERROR(CheckLabelIndices(
      ctx, "kernel", {labels.kernel_input_feature, labels.kernel_output_feature}, rank));
  RETURN_IF_ERROR(CheckLabelIndices(ctx, "output", labels.output_spatial, rank));
  return CheckLabelIndices(ctx, "output", {labels.output_batch, labels.output_feature}, rank);
}

// Checks feature and batch sizes against feature_group_count `fgc` and
// batch_group_count `bgc`.
absl::Status CheckConvGroups(const InferContext& ctx, const ConvDimLabels& labels,
                             const Shape& lhs, const Shape& rhs, int64_t fgc, int64_t bgc) {
  if (fgc < 1 || bgc < 1 || (fgc > 1 && bgc > 1)) {
    return ctx.Error("feature_group_count=", fgc, " and batch_group_count=", bgc,
                     " must be positive and not both above 1");
  }
  const int64_t batch = lhs.dimensions(labels.input_batch);
  const int64_t in_features = lhs.dimensions(labels.input_feature);
  const int64_t kernel_in = rhs.dimensions(labels.kernel_input_feature);
  const int64_t kernel_out = rhs.dimensions(labels.kernel_output_feature);
  if (in_features != kUnboundedSize &&
      (in_features % fgc != 0 || in_features / fgc != kernel_in)) {
    return ctx.Error("input features ", in_features, " of ", ShapeStr(lhs),
                     " must equal kernel input features ", kernel_in,
                     " times feature_group_count ", fgc);
  }
  if (kernel_out % fgc != 0 || kernel_out % bgc != 0) {
    return ctx.Error("kernel output features ", kernel_out, " must be divisible by ",
                     "feature_group_count ", fgc, " and batch_group_count ", bgc);
  }
  if (batch != kUnboundedSize && batch % bgc != 0) {
    return ctx.Error("input batch ", batch, " must be divisible by batch_group_count ", bgc);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> InferConvolution(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectArray(0));
  RETURN_IF_ERROR(ctx.ExpectArray(1));
  const Shape& lhs = ctx.operand_shape(0);
  const Shape& rhs = ctx.operand_shape(1);
  RETURN_IF_ERROR(ctx.Require(AttrId::kDimLabels));
  const ConvDimLabels* labels = ctx.Attr<ConvDimLabels>(AttrId::kDimLabels);
  if (labels == nullptr) return ctx.Error("dim_labels has the wrong kind");
  const Window empty_window;
  const Window* window = ctx.Attr<Window>(AttrId::kWindow);
  if (window == nullptr) window = &empty_window;
  RETURN_IF_ERROR(CheckConvLabels(ctx, *labels, *window, lhs, rhs));
  const int64_t bgc = ctx.instr().GetInt(AttrId::kBatchGroupCount, 1);
  RETURN_IF_ERROR(CheckConvGroups(ctx, *labels, lhs, rhs,
                                  ctx.instr().GetInt(AttrId::kFeatureGroupCount, 1), bgc));
  const size_t spatial = labels->input_spatial.size();
  std::vector<int64_t> dims(spatial + 2);
  const int64_t batch = lhs.dimensions(labels->input_batch);
  dims[labels->output_batch] = batch == kUnboundedSize ? batch : batch / bgc;
  dims[labels->output_feature] = rhs.dimensions(labels->kernel_output_feature);
  for (size_t i = 0; i < spatial; ++i) {
    const WindowDim& w = window->dims[i];
    if (w.size != rhs.dimensions(labels->kernel_spatial[i])) {
      return ctx.Error("window size ", w.size, " of spatial dimension ", i,
                       " does not match kernel ", ShapeStr(rhs));
    }
    ASSIGN_OR_RETURN(dims[labels->output_spatial[i]],
                     WindowOutputSize(ctx, lhs.dimensions(labels->input_spatial[i]), w, i));
  }
  return ctx.WithDeclaredType(MakeArray(lhs.element_type(), dims), CommonType(lhs, rhs));
}

absl::StatusOr<Shape> InferFft(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectArray(0));
  const Shape& operand = ctx.operand_shape(0);
  const std::string& type = ctx.instr().GetString(AttrId::kFftType);
  const std::vector<int64_t>& length = ctx.instr().GetIntList(AttrId::kFftLength);
  const int64_t n = static_cast<int64_t>(length.size());
  if (n < 1 || n > 3 || n > operand.rank()) {
    return ctx.Error("fft_length={", absl::StrJoin(length, ","), "} must have 1 to 3 entries ",
                     "and at most the rank of ", ShapeStr(operand));
  }
  const PrimitiveType et = operand.element_type();
  Shape out = operand;
  const int64_t last = operand.rank() - 1;
  int64_t expected_last = length.back();
  if (type == "FFT" || type == "IFFT") {
    if (!IsComplex(et)) return ctx.Error(type, " needs a complex operand, got ", ShapeStr(operand));
  } else if (type == "RFFT") {
    if (et != PrimitiveType::F32 && et != PrimitiveType::F64) {
      return ctx.Error("RFFT needs an f32 or f64 operand, got ", ShapeStr(operand));
    }
    out.set_element_type(et == PrimitiveType::F32 ? PrimitiveType::C64 : PrimitiveType::C128);
    out.set_dimensions(last, length.back() / 2 + 1);
  } else if (type == "IRFFT") {
    if (!IsComplex(et)) return ctx.Error("IRFFT needs a complex operand, got ", ShapeStr(operand));
    out.set_element_type(ComplexComponentType(et));
    out.set_dimensions(last, length.back());
    expected_last = length.back() / 2 + 1;
  } else {
    return ctx.Error("fft_type must be FFT, IFFT, RFFT or IRFFT, got '", type, "'");
  }
  for (int64_t i = 0; i < n; ++i) {
    const int64_t d = operand.rank() - n + i;
    const int64_t want = d == last ? expected_last : length[i];
    if (!DimsAgree(operand.dimensions(d), want)) {
      return ctx.Error(type, " with fft_length={", absl::StrJoin(length, ","),
                       "} expects dimension ", d, " of ", ShapeStr(operand), " to be ", want);
    }
  }
  return out;
}

absl::StatusOr<Shape> InferCholesky(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectArray(0));
  const Shape& a = ctx.operand_shape(0);
  if (a.rank() < 2 || a.dimensions(a.rank() - 1) != a.dimensions(a.rank() - 2)) {
    return ctx.Error("cholesky needs square minor dimensions, got ", ShapeStr(a));
  }
  return a;
}

absl::StatusOr<Shape> InferTriangularSolve(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectArray(0));
  RETURN_IF_ERROR(ctx.ExpectArray(1));
  RETURN_IF_ERROR(ctx.ExpectSameType(0, 1));
  const Shape& a = ctx.operand_shape(0);
  const Shape& b = ctx.operand_shape(1);
  const int64_t r = a.rank();
  if (r < 2 || a.dimensions(r - 1) != a.dimensions(r - 2)) {
    return ctx.Error("triangular-solve needs a square matrix a, got ", ShapeStr(a));
  }
  bool ok = b.rank() == r;
  for (int64_t d = 0; ok && d < r - 2; ++d) ok = a.dimensions(d) == b.dimensions(d);
  const bool left = ctx.instr().GetBool(AttrId::kLeftSide);
  if (ok) ok = b.dimensions(left ? r - 2 : r - 1) == a.dimensions(r - 1);
  if (!ok) {
    return ctx.Error("triangular-solve b ", ShapeStr(b), " does not fit a ", ShapeStr(a),
                     " with left_side=", left ? "true" : "false");
  }
  return b;
}

absl::StatusOr<Shape> InferBatchNorm(const InferContext& ctx) {
  for (int64_t i = 0; i < ctx.operand_count(); ++i) RETURN_IF_ERROR(ctx.ExpectArray(i));
  const Shape& operand = ctx.operand_shape(0);
  const int64_t fi = ctx.instr().GetInt(AttrId::kFeatureIndex);
  if (fi < 0 || fi >= operand.rank()) {
    return ctx.Error("feature_index=", fi, " is out of range for ", ShapeStr(operand));
  }
  const HloOpcode op = ctx.opcode();
  const Shape feature = MakeArray(operand.element_type(), {operand.dimensions(fi)});
  for (int64_t i = 1; i < ctx.operand_count(); ++i) {
    const bool full = op == HloOpcode::kBatchNormGrad && i == 4;  // grad_output
    const Shape& want = full ? operand : feature;
    if (!ShapesCompatible(ctx.operand_shape(i), want, /*ignore_dynamic=*/true)) {
      return ctx.Error("operand ", i, " is ", ShapeStr(ctx.operand_shape(i)), ", expected ",
                       ShapeStr(want));
    }
  }
  if (op == HloOpcode::kBatchNormInference) return operand;
  return Shape::Tuple({operand, feature, feature});
}

absl::StatusOr<Shape> InferTopK(const InferContext& ctx) {
  RETURN_IF_ERROR(ctx.ExpectArray(0));
  const Shape& operand = ctx.operand_shape(0);
  const int64_t k = ctx.instr().GetInt(AttrId::kK);
  if (operand.rank() < 1) return ctx.Error("topk needs an operand of rank >= 1");
  const int64_t last = operand.rank() - 1;
  if (k < 0 || (!operand.is_unbounded_dimension(last) && k > operand.dimensions(last))) {
    return ctx.Error("k=", k, " is out of range for ", ShapeStr(operand));
  }
  Shape values = operand;
  values.set_dimensions(last, k);
  values.set_dynamic_dimension(last, false);
  Shape indices = values;
  indices.set_element_type(PrimitiveType::S32);
  return Shape::Tuple({values, indices});
}

}  // namespace xla::shape_inference_internal
