#include "xla/service/canonicalize/cudnn_convolution_rewriter.h"

#include <algorithm>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xla/hlo/ir/conv_dim_labels.h"
#include "xla/service/canonicalize/rewrite_util.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

using canonicalize::AddOp;
using canonicalize::AddTranspose;
using canonicalize::IsStaticShape;

const ConvDimLabels* LabelsOf(const HloInstruction& conv) {
  const AttrValue* v = conv.FindAttr(AttrId::kDimLabels);
  return v == nullptr ? nullptr : std::get_if<ConvDimLabels>(v);
}

const Window* WindowOf(const HloInstruction& conv) {
  const AttrValue* v = conv.FindAttr(AttrId::kWindow);
  return v == nullptr ? nullptr : std::get_if<Window>(v);
}

bool IsDnnType(PrimitiveType t) {
  return t == PrimitiveType::F16 || t == PrimitiveType::BF16 || t == PrimitiveType::F32;
}

bool IsBackwardData(const Window& w) {
  for (const WindowDim& d : w.dims) {
    if (d.lhs_dilate > 1) return true;
  }
  return false;
}

// Why a base-dilated convolution is not cuDNN's backward data, or nullopt.
std::optional<std::string> BackwardDataRefusal(const HloInstruction& conv, const Window& w) {
  if (conv.GetInt(AttrId::kFeatureGroupCount, 1) != 1) {
    return "base dilation with feature groups (a grouped transposed convolution)";
  }
  for (size_t i = 0; i < w.dims.size(); ++i) {
    const WindowDim& d = w.dims[i];
    const int64_t p = (d.size - 1) * d.rhs_dilate - d.pad_low;
    if (d.stride != 1) return absl::StrCat("base dilation with window stride ", d.stride);
    if (p < 0 || d.pad_high - d.pad_low < 0 || d.pad_high - d.pad_low >= d.lhs_dilate) {
      return absl::StrCat("base dilation ", d.lhs_dilate, " with padding ", d.pad_low, "_",
                          d.pad_high, " and window ", d.size, " (dilation ", d.rhs_dilate,
                          ") in spatial dimension ", i,
                          " is not the transposed-convolution shape cuDNN's backward data computes");
    }
  }
  return std::nullopt;
}

// Kernel dims [first, second, spatial..] or [first, spatial.., second]
// (second last when `channel_last`).
std::vector<int64_t> FilterOrder(int64_t first, int64_t second, const std::vector<int64_t>& spatial,
                                 bool channel_last) {
  std::vector<int64_t> order = {first};
  if (!channel_last) order.push_back(second);
  order.insert(order.end(), spatial.begin(), spatial.end());
  if (channel_last) order.push_back(second);
  return order;
}

// The kernel part of dim_labels for FilterOrder's result ("o01i", "io01").
std::string KernelLabels(char first, char second, size_t spatial, bool channel_last) {
  std::string digits;
  for (size_t i = 0; i < spatial; ++i) absl::StrAppend(&digits, i);
  return channel_last ? absl::StrCat(std::string(1, first), digits, std::string(1, second))
                      : absl::StrCat(std::string(1, first), std::string(1, second), digits);
}

// `kernel` with its spatial dimensions reversed: the operand of `kernel`
// when that is already such a reverse (JAX writes transposed convolutions
// as a convolution of reverse(w)), else a new reverse.
HloInstruction* ReverseSpatial(HloInstruction* kernel, const std::vector<int64_t>& spatial,
                               HloComputation* comp, NameUniquer* names) {
  if (kernel->opcode() == HloOpcode::kReverse) {
    std::vector<int64_t> dims = kernel->dimensions(), want = spatial;
    std::sort(dims.begin(), dims.end());
    std::sort(want.begin(), want.end());
    if (dims == want) return kernel->operand(0);
  }
  HloInstruction* reversed = AddOp(comp, names, HloOpcode::kReverse, kernel->shape(), {kernel},
                                   absl::StrCat(kernel->name(), ".reverse"));
  reversed->SetAttr(AttrId::kDimensions, spatial);
  return reversed;
}

// True when `conv` (which passes the forward rules) is a weight gradient
// cuDNN's backward filter computes: no feature groups, and per spatial
// dimension a dilated window wider than the output, with the sizes cuDNN's
// dy formula gives (forward stride = window dilation, forward dilation =
// window stride, the same padding).
bool IsBackwardFilter(const HloInstruction& conv, const ConvDimLabels& l, const Window& w) {
  if (conv.GetInt(AttrId::kFeatureGroupCount, 1) != 1 || IsBackwardData(w)) return false;
  for (size_t i = 0; i < w.dims.size(); ++i) {
    const WindowDim& d = w.dims[i];
    const int64_t out = conv.shape().dimensions(l.output_spatial[i]);
    const int64_t in = conv.operand(0)->shape().dimensions(l.input_spatial[i]);
    if ((d.size - 1) * d.rhs_dilate + 1 <= out) return false;
    const int64_t room = in + 2 * d.pad_low - ((out - 1) * d.stride + 1);
    if (room < 0 || room / d.rhs_dilate + 1 != d.size) return false;
  }
  return true;
}

// The output part of dim_labels for dw in `order` (FilterOrder of f, b).
std::string OutputLabels(const ConvDimLabels& l, const std::vector<int64_t>& order) {
  std::string text;
  for (int64_t d : order) {
    if (d == l.output_feature) {
      text += 'f';
    } else if (d == l.output_batch) {
      text += 'b';
    } else {
      const auto it = std::find(l.output_spatial.begin(), l.output_spatial.end(), d);
      absl::StrAppend(&text, it - l.output_spatial.begin());
    }
  }
  return text;
}

// A weight gradient as cudnnConvolutionBackwardFilter: x and dy are the
// operands as they are (strided descriptors), dw is produced packed as
// [f, spatial.., b] (or [f, b, spatial..] when the result already is so)
// and transposed back to the convolution's result when it differs.
absl::StatusOr<HloInstruction*> RewriteBackwardFilter(HloInstruction* conv, HloComputation* comp,
                                                      NameUniquer* names) {
  const ConvDimLabels& l = *LabelsOf(*conv);
  std::vector<int64_t> order =
      FilterOrder(l.output_feature, l.output_batch, l.output_spatial, /*channel_last=*/false);
  if (!canonicalize::IsIdentityPermutation(order)) {
    order = FilterOrder(l.output_feature, l.output_batch, l.output_spatial, /*channel_last=*/true);
  }
  std::vector<int64_t> dims;
  for (int64_t d : order) dims.push_back(conv->shape().dimensions(d));
  const size_t arrow = l.text.find("->");
  ASSIGN_OR_RETURN(ConvDimLabels labels, ParseConvDimLabels(absl::StrCat(
                                             l.text.substr(0, arrow + 2), OutputLabels(l, order))));
  HloInstruction* call =
      AddOp(comp, names, HloOpcode::kCustomCall, Shape::Array(conv->shape().element_type(), dims),
            {conv->operand(0), conv->operand(1)}, conv->name());
  call->SetAttr(AttrId::kCustomCallTarget, std::string(kCudnnConvBackwardFilterTarget));
  call->SetAttr(AttrId::kWindow, *WindowOf(*conv));
  call->SetAttr(AttrId::kDimLabels, labels);
  call->SetAttr(AttrId::kFeatureGroupCount, int64_t{1});
  if (const AttrValue* precision = conv->FindAttr(AttrId::kOperandPrecision)) {
    call->SetAttr(AttrId::kOperandPrecision, *precision);
  }
  HloInstruction* back = AddTranspose(comp, names, call, canonicalize::InversePermutation(order));
  *back->mutable_shape() = conv->shape();  // keep the original layout
  return back;
}

absl::StatusOr<HloInstruction*> Rewrite(HloInstruction* conv, HloComputation* comp,
                                        NameUniquer* names) {
  if (CudnnConvolutionRefusal(*conv).has_value()) return nullptr;
  const ConvDimLabels& l = *LabelsOf(*conv);
  const Window& window = *WindowOf(*conv);
  if (IsBackwardFilter(*conv, l, window)) return RewriteBackwardFilter(conv, comp, names);
  const bool backward_data = IsBackwardData(window);
  const size_t spatial = l.input_spatial.size();
  const bool channel_last = l.input_feature == static_cast<int64_t>(spatial) + 1;
  HloInstruction* kernel = conv->operand(1);
  if (backward_data) kernel = ReverseSpatial(kernel, l.kernel_spatial, comp, names);
  const int64_t first = backward_data ? l.kernel_input_feature : l.kernel_output_feature;
  const int64_t second = backward_data ? l.kernel_output_feature : l.kernel_input_feature;
  kernel = AddTranspose(comp, names, kernel,
                        FilterOrder(first, second, l.kernel_spatial, channel_last));
  const std::string kernel_labels =
      KernelLabels(backward_data ? 'i' : 'o', backward_data ? 'o' : 'i', spatial, channel_last);
  const size_t underscore = l.text.find('_'), arrow = l.text.find("->");
  ASSIGN_OR_RETURN(ConvDimLabels labels,
                   ParseConvDimLabels(absl::StrCat(l.text.substr(0, underscore), "_",
                                                   kernel_labels, l.text.substr(arrow))));
  HloInstruction* call =
      AddOp(comp, names, HloOpcode::kCustomCall, conv->shape(), {conv->operand(0), kernel},
            conv->name());
  call->SetAttr(AttrId::kCustomCallTarget,
                std::string(backward_data ? kCudnnConvBackwardDataTarget : kCudnnConvForwardTarget));
  call->SetAttr(AttrId::kWindow, window);
  call->SetAttr(AttrId::kDimLabels, labels);
  call->SetAttr(AttrId::kFeatureGroupCount, conv->GetInt(AttrId::kFeatureGroupCount, 1));
  if (const AttrValue* precision = conv->FindAttr(AttrId::kOperandPrecision)) {
    call->SetAttr(AttrId::kOperandPrecision, *precision);
  }
  return call;
}

}  // namespace

bool IsCudnnConvolutionCall(const HloInstruction& instr) {
  if (instr.opcode() != HloOpcode::kCustomCall) return false;
  const std::string& target = instr.GetString(AttrId::kCustomCallTarget);
  for (absl::string_view known : {kCudnnConvForwardTarget, kCudnnConvBackwardDataTarget,
                                  kCudnnConvBackwardFilterTarget, kCudnnConvForwardBiasTarget,
                                  kCudnnConvForwardBiasReluTarget}) {
    if (target == known) return true;
  }
  return false;
}

std::optional<std::string> CudnnConvolutionRefusal(const HloInstruction& conv) {
  const ConvDimLabels* l = LabelsOf(conv);
  const Window* w = WindowOf(conv);
  if (conv.opcode() != HloOpcode::kConvolution || l == nullptr || conv.operand_count() != 2) {
    return "not a convolution with dim_labels";
  }
  const PrimitiveType type = conv.shape().element_type();
  if (!IsDnnType(type) || conv.operand(0)->shape().element_type() != type ||
      conv.operand(1)->shape().element_type() != type) {
    return absl::StrCat("element types ", PrimitiveTypeName(conv.operand(0)->shape().element_type()),
                        ", ", PrimitiveTypeName(conv.operand(1)->shape().element_type()), " -> ",
                        PrimitiveTypeName(type), ": cuDNN convolutions take one of f16, bf16, f32");
  }
  if (!IsStaticShape(conv.shape()) || !IsStaticShape(conv.operand(0)->shape()) ||
      !IsStaticShape(conv.operand(1)->shape())) {
    return "dynamic shapes";
  }
  const size_t spatial = l->input_spatial.size();
  if (spatial < 1 || spatial > 3 || w == nullptr || w->dims.size() != spatial) {
    return absl::StrCat(spatial, " spatial dimensions; cuDNN takes 1 to 3");
  }
  if (conv.GetInt(AttrId::kBatchGroupCount, 1) != 1) {
    return absl::StrCat("batch_group_count ", conv.GetInt(AttrId::kBatchGroupCount, 1),
                        ": cuDNN's legacy API has no batch groups");
  }
  for (size_t i = 0; i < spatial; ++i) {
    const WindowDim& d = w->dims[i];
    if (d.reversal) return absl::StrCat("window reversal in spatial dimension ", i);
    if (d.pad_low < 0 || d.pad_high < 0) {
      return absl::StrCat("negative padding ", d.pad_low, "_", d.pad_high);
    }
  }
  if (IsBackwardData(*w)) return BackwardDataRefusal(conv, *w);
  for (size_t i = 0; i < spatial; ++i) {
    const WindowDim& d = w->dims[i];
    if (d.pad_low != d.pad_high) {
      return absl::StrCat("asymmetric padding ", d.pad_low, "_", d.pad_high,
                          " in spatial dimension ", i,
                          ": cuDNN's legacy descriptors take one padding per dimension");
    }
  }
  return std::nullopt;
}

absl::StatusOr<bool> CudnnConvolutionRewriter::Run(HloModule* module) {
  return canonicalize::RewriteEach(module, HloOpcode::kConvolution, Rewrite);
}

}  // namespace xla
