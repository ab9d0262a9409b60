#include "xla/service/canonicalize/convolution_to_gemm.h"

#include <string>
#include <variant>
#include <vector>

#include "xla/service/canonicalize/convolution_canonicalizer.h"
#include "xla/service/canonicalize/gemm_config.h"
#include "xla/service/canonicalize/rewrite_util.h"
#include "xla/types/primitive_type.h"
#include "xla/util/math_util.h"

namespace xla {
namespace {

using canonicalize::AddOp;
using canonicalize::AddReshape;
using canonicalize::IsStaticShape;


// The window of `conv` with one entry per spatial dim (absent entries are
// the defaults), or nullopt when it does not match `spatial`.
std::optional<std::vector<WindowDim>> WindowOf(const HloInstruction& conv, int64_t spatial) {
  const AttrValue* v = conv.FindAttr(AttrId::kWindow);
  if (v == nullptr) {
    if (spatial != 0) return std::nullopt;
    return std::vector<WindowDim>();
  }
  const Window* w = std::get_if<Window>(v);
  if (w == nullptr || static_cast<int64_t>(w->dims.size()) != spatial) return std::nullopt;
  return w->dims;
}

// pad(input, 0) with base dilation as interior padding and the window's
// edge padding; `input` itself when nothing pads.
HloInstruction* AddPaddedInput(HloComputation* comp, NameUniquer* names, HloInstruction* input,
                               const std::vector<WindowDim>& window) {
  const Shape& in = input->shape();
  const int64_t spatial = static_cast<int64_t>(window.size());
  std::vector<PaddingDim> padding(in.rank());
  std::vector<int64_t> dims = in.dimensions();
  bool pads = false;
  for (int64_t s = 0; s < spatial; ++s) {
    const WindowDim& w = window[s];
    PaddingDim& p = padding[s + 1];
    p.low = w.pad_low;
    p.high = w.pad_high;
    p.interior = w.lhs_dilate - 1;
    pads |= p.low != 0 || p.high != 0 || p.interior != 0;
    const int64_t n = dims[s + 1];
    dims[s + 1] = (n == 0 ? 0 : (n - 1) * w.lhs_dilate + 1) + p.low + p.high;
  }
  if (!pads) return input;
  HloInstruction* zero = comp->AddInstruction(
      MakeScalarConstant(in.element_type(), 0.0, names->Unique("im2col.zero")));
  HloInstruction* pad = AddOp(comp, names, HloOpcode::kPad, Shape::Array(in.element_type(), dims),
                            {input, zero}, "im2col.pad");
  pad->SetAttr(AttrId::kPadding, padding);
  return pad;
}

// The kernel positions in row-major order of the kernel's spatial dims.
std::vector<std::vector<int64_t>> KernelPositions(const std::vector<WindowDim>& window) {
  std::vector<std::vector<int64_t>> out = {{}};
  for (const WindowDim& w : window) {
    std::vector<std::vector<int64_t>> next;
    for (const std::vector<int64_t>& prefix : out) {
      for (int64_t k = 0; k < w.size; ++k) {
        next.push_back(prefix);
        next.back().push_back(k);
      }
    }
    out = std::move(next);
  }
  return out;
}

// The [N, R0.., C] slice of `padded` that kernel position `pos` reads.
HloInstruction* AddPatch(HloComputation* comp, NameUniquer* names, HloInstruction* padded,
                         const std::vector<WindowDim>& window, const std::vector<int64_t>& pos,
                         const std::vector<int64_t>& patch_dims) {
  const Shape& in = padded->shape();
  std::vector<SliceDim> slice(in.rank());
  bool whole = true;
  for (int64_t d = 0; d < in.rank(); ++d) {
    slice[d].limit = in.dimensions(d);
    if (d == 0 || d == in.rank() - 1) continue;
    const WindowDim& w = window[d - 1];
    slice[d].start = pos[d - 1] * w.rhs_dilate;
    slice[d].stride = w.stride;
    slice[d].limit = slice[d].start + (patch_dims[d] - 1) * w.stride + 1;
    whole &= slice[d].start == 0 && slice[d].limit == in.dimensions(d) &&
             (w.stride == 1 || patch_dims[d] <= 1);
  }
  if (whole) return padded;
  HloInstruction* s = AddOp(comp, names, HloOpcode::kSlice,
                          Shape::Array(in.element_type(), patch_dims), {padded}, "im2col.slice");
  s->SetAttr(AttrId::kSlice, slice);
  return s;
}

absl::StatusOr<HloInstruction*> Rewrite(const ConvolutionToGemmOptions& options,
                                        HloInstruction* conv, HloComputation* comp,
                                        NameUniquer* names) {
  if (!ConvolutionRunsAsGemm(*conv, options)) return nullptr;
  const Shape& out = conv->shape();
  const int64_t rank = out.rank();
  const std::vector<WindowDim> window = *WindowOf(*conv, rank - 2);
  HloInstruction* input = conv->operands()[0];
  HloInstruction* kernel = conv->operands()[1];
  const int64_t channels = input->shape().dimensions(rank - 1);
  const int64_t outputs = out.dimensions(rank - 1);
  const PrimitiveType type = out.element_type();

  std::vector<int64_t> patch_dims = out.dimensions();
  patch_dims.back() = channels;
  HloInstruction* padded = AddPaddedInput(comp, names, input, window);
  std::vector<HloInstruction*> patches;
  for (const std::vector<int64_t>& pos : KernelPositions(window)) {
    patches.push_back(AddPatch(comp, names, padded, window, pos, patch_dims));
  }
  HloInstruction* im2col = patches.front();
  if (patches.size() > 1) {
    std::vector<int64_t> dims = patch_dims;
    dims.back() = channels * static_cast<int64_t>(patches.size());
    im2col = AddOp(comp, names, HloOpcode::kConcatenate, Shape::Array(type, dims), patches,
                 "im2col");
    im2col->SetAttr(AttrId::kDimensions, std::vector<int64_t>{rank - 1});
  }
  const int64_t rows = Product(absl::MakeConstSpan(out.dimensions()).subspan(0, rank - 1));
  const int64_t depth = im2col->shape().dimensions(rank - 1);
  HloInstruction* lhs = AddReshape(comp, names, im2col, {rows, depth});
  HloInstruction* rhs = AddReshape(comp, names, kernel, {depth, outputs});
  HloInstruction* dot = AddOp(comp, names, HloOpcode::kDot, Shape::Array(type, {rows, outputs}),
                            {lhs, rhs}, conv->name() + ".gemm");
  dot->SetAttr(AttrId::kLhsContractingDims, std::vector<int64_t>{1});
  dot->SetAttr(AttrId::kRhsContractingDims, std::vector<int64_t>{0});
  // The GEMM computes at the precision the convolution asked for
  // (dot_precision.h).
  for (AttrId id : {AttrId::kOperandPrecision, AttrId::kAlgorithm}) {
    if (const AttrValue* value = conv->FindAttr(id)) dot->SetAttr(id, *value);
  }
  return AddOp(comp, names, HloOpcode::kReshape, out, {dot}, "reshape");
}

}  // namespace

bool ConvolutionRunsAsGemm(const HloInstruction& conv, const ConvolutionToGemmOptions& options) {
  if (!IsCanonicalConvolution(conv) || conv.operand_count() != 2) return false;
  const Shape& out = conv.shape();
  const Shape& in = conv.operand(0)->shape();
  const Shape& kernel = conv.operand(1)->shape();
  if (!out.IsArray() || !IsStaticShape(out) || !IsStaticShape(in) || !IsStaticShape(kernel)) {
    return false;
  }
  const int64_t rank = out.rank();
  if (rank < 2 || in.rank() != rank || kernel.rank() != rank) return false;
  if (conv.GetInt(AttrId::kFeatureGroupCount, 1) != 1 ||
      conv.GetInt(AttrId::kBatchGroupCount, 1) != 1) {
    return false;
  }
  const PrimitiveType type = out.element_type();
  if (!IsGemmElementType(type) || in.element_type() != type || kernel.element_type() != type) {
    return false;
  }
  const std::optional<std::vector<WindowDim>> window = WindowOf(conv, rank - 2);
  if (!window.has_value()) return false;
  int64_t positions = 1;
  for (int64_t s = 0; s < rank - 2; ++s) {
    const WindowDim& w = (*window)[s];
    if (w.reversal || w.size != kernel.dimensions(s) || w.stride < 1 || w.lhs_dilate < 1 ||
        w.rhs_dilate < 1) {
      return false;
    }
    positions *= w.size;
  }
  double rows = 1;
  for (int64_t d = 0; d + 1 < rank; ++d) rows *= static_cast<double>(out.dimensions(d));
  if (rows == 0 || out.dimensions(rank - 1) == 0) return false;
  // The cost estimate (convolution_to_gemm.h): few kernel positions, and an
  // output with at least as many spatial positions as the window has.
  int64_t output_positions = 1;
  for (int64_t s = 1; s + 1 < rank; ++s) output_positions *= out.dimensions(s);
  if (positions > options.max_kernel_positions || output_positions < positions) return false;
  const double im2col_bytes = rows * static_cast<double>(positions) *
                              static_cast<double>(in.dimensions(rank - 1)) * ByteWidth(type);
  return im2col_bytes <= static_cast<double>(options.max_im2col_bytes);
}

absl::StatusOr<bool> ConvolutionToGemm::Run(HloModule* module) {
  const ConvolutionToGemmOptions options = options_;
  return canonicalize::RewriteEach(
      module, HloOpcode::kConvolution,
      [options](HloInstruction* conv, HloComputation* comp, NameUniquer* names) {
        return Rewrite(options, conv, comp, names);
      });
}

}  // namespace xla
