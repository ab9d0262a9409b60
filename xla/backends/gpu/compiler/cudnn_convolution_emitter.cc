#include "xla/backends/gpu/compiler/cudnn_convolution_emitter.h"

#include <algorithm>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/service/canonicalize/cudnn_convolution_rewriter.h"
#include "xla/types/xla_data_convert.h"

namespace xla::gpu {
namespace {

constexpr int64_t kMinWorkspace = int64_t{4} << 20;
constexpr int64_t kMaxWorkspace = int64_t{256} << 20;

absl::Status Bad(const HloInstruction& call, absl::string_view what) {
  return absl::InternalError(
      absl::StrCat("cuDNN convolution '", call.name(), "': ", what));
}

// Element strides of every dimension of `shape` (row-major when no layout).
std::vector<int64_t> Strides(const Shape& shape) {
  std::vector<int64_t> minor_to_major;
  if (shape.has_layout() && !shape.layout().minor_to_major.empty()) {
    minor_to_major = shape.layout().minor_to_major;
  } else {
    for (int64_t d = shape.rank() - 1; d >= 0; --d) minor_to_major.push_back(d);
  }
  std::vector<int64_t> strides(shape.rank(), 1);
  int64_t stride = 1;
  for (int64_t d : minor_to_major) {
    strides[d] = stride;
    stride *= shape.dimensions(d);
  }
  return strides;
}

// dims and strides of `shape` in the order [first, second, spatial..], with
// a unit spatial dimension appended for 1-D.
void Logical(const Shape& shape, int64_t first, int64_t second, const std::vector<int64_t>& spatial,
             google::protobuf::RepeatedField<int64_t>* dims,
             google::protobuf::RepeatedField<int64_t>* strides) {
  const std::vector<int64_t> all = Strides(shape);
  std::vector<int64_t> order = {first, second};
  order.insert(order.end(), spatial.begin(), spatial.end());
  for (int64_t d : order) {
    dims->Add(shape.dimensions(d));
    strides->Add(all[d]);
  }
  if (spatial.size() == 1) {
    dims->Add(1);
    strides->Add(1);
  }
}

// The filter's packed layout: its dims [k, c, spatial..] must be, major to
// minor, k c spatial.. (OIHW) or k spatial.. c (OHWI).
absl::StatusOr<ConvolutionFilterLayoutProto> FilterLayout(const HloInstruction& call,
                                                          const Shape& shape, int64_t k, int64_t c,
                                                          const std::vector<int64_t>& spatial) {
  const std::vector<int64_t> strides = Strides(shape);
  auto packed = [&](const std::vector<int64_t>& major_to_minor) {
    int64_t expected = 1;
    for (size_t i = major_to_minor.size(); i-- > 0;) {
      if (strides[major_to_minor[i]] != expected && shape.dimensions(major_to_minor[i]) != 1) {
        return false;
      }
      expected *= shape.dimensions(major_to_minor[i]);
    }
    return true;
  };
  std::vector<int64_t> oihw = {k, c}, ohwi = {k};
  oihw.insert(oihw.end(), spatial.begin(), spatial.end());
  ohwi.insert(ohwi.end(), spatial.begin(), spatial.end());
  ohwi.push_back(c);
  if (packed(oihw)) return CONVOLUTION_FILTER_LAYOUT_OIHW;
  if (packed(ohwi)) return CONVOLUTION_FILTER_LAYOUT_OHWI;
  return Bad(call, absl::StrCat("the filter ", shape.ToString(),
                                " is not packed as [K, C, W..] or [K, W.., C]"));
}

// Backward filter: x = operand 0 (N = its feature label, C = its batch
// label), dy = operand 1 (N = i, K = o), dw = the result (K = f, C = b);
// stride = the window dilation, dilation = the window stride.
absl::StatusOr<ConvolutionThunkProto> BackwardFilterConfig(const HloInstruction& call,
                                                           const ConvDimLabels& l,
                                                           const Window& window, bool allow_tf32) {
  const Shape& dw = call.shape();
  ConvolutionThunkProto p;
  p.set_kind(CONVOLUTION_KIND_BACKWARD_FILTER);
  p.set_element_type(PrimitiveTypeToProto(dw.element_type()));
  Logical(call.operand(0)->shape(), l.input_feature, l.input_batch, l.input_spatial,
          p.mutable_input_dims(), p.mutable_input_strides());
  Logical(call.operand(1)->shape(), l.kernel_input_feature, l.kernel_output_feature,
          l.kernel_spatial, p.mutable_output_dims(), p.mutable_output_strides());
  google::protobuf::RepeatedField<int64_t> unused_strides;
  Logical(dw, l.output_feature, l.output_batch, l.output_spatial, p.mutable_filter_dims(),
          &unused_strides);
  absl::StatusOr<ConvolutionFilterLayoutProto> layout =
      FilterLayout(call, dw, l.output_feature, l.output_batch, l.output_spatial);
  if (!layout.ok()) return layout.status();
  p.set_filter_layout(*layout);
  for (const WindowDim& d : window.dims) {
    p.add_padding(d.pad_low);
    p.add_strides(d.rhs_dilate);
    p.add_dilations(d.stride);
  }
  if (window.dims.size() == 1) {
    p.add_padding(0);
    p.add_strides(1);
    p.add_dilations(1);
  }
  p.set_feature_groups(1);
  if (allow_tf32 && dw.element_type() == PrimitiveType::F32) p.set_allow_tf32(true);
  return p;
}

}  // namespace

absl::StatusOr<ConvolutionThunkProto> CudnnConvolutionThunkConfig(const HloInstruction& call,
                                                                  bool allow_tf32) {
  const AttrValue* labels_attr = call.FindAttr(AttrId::kDimLabels);
  const AttrValue* window_attr = call.FindAttr(AttrId::kWindow);
  if (!IsCudnnConvolutionCall(call) || labels_attr == nullptr || window_attr == nullptr ||
      call.operand_count() != 2 + (IsFusedEpilogue(call) ? 1 : 0) || !call.shape().IsArray()) {
    return Bad(call, "not a cuDNN convolution custom call with dim_labels and a window");
  }
  const ConvDimLabels& l = std::get<ConvDimLabels>(*labels_attr);
  const Window& window = std::get<Window>(*window_attr);
  const bool backward_data =
      call.GetString(AttrId::kCustomCallTarget) == kCudnnConvBackwardDataTarget;
  const Shape& in = call.operand(0)->shape();
  const Shape& kernel = call.operand(1)->shape();
  const Shape& out = call.shape();
  if (call.GetString(AttrId::kCustomCallTarget) == kCudnnConvBackwardFilterTarget) {
    return BackwardFilterConfig(call, l, window, allow_tf32);
  }
  ConvolutionThunkProto p;
  p.set_kind(backward_data ? CONVOLUTION_KIND_BACKWARD_DATA : CONVOLUTION_KIND_FORWARD);
  p.set_element_type(PrimitiveTypeToProto(out.element_type()));
  // x and y in cuDNN's sense: dy is operand 0 and dx the result for
  // backward data.
  const Shape& x = backward_data ? out : in;
  const Shape& y = backward_data ? in : out;
  Logical(x, backward_data ? l.output_batch : l.input_batch,
          backward_data ? l.output_feature : l.input_feature,
          backward_data ? l.output_spatial : l.input_spatial, p.mutable_input_dims(),
          p.mutable_input_strides());
  Logical(y, backward_data ? l.input_batch : l.output_batch,
          backward_data ? l.input_feature : l.output_feature,
          backward_data ? l.input_spatial : l.output_spatial, p.mutable_output_dims(),
          p.mutable_output_strides());
  const int64_t k = backward_data ? l.kernel_input_feature : l.kernel_output_feature;
  const int64_t c = backward_data ? l.kernel_output_feature : l.kernel_input_feature;
  google::protobuf::RepeatedField<int64_t> unused_strides;
  Logical(kernel, k, c, l.kernel_spatial, p.mutable_filter_dims(), &unused_strides);
  absl::StatusOr<ConvolutionFilterLayoutProto> layout =
      FilterLayout(call, kernel, k, c, l.kernel_spatial);
  if (!layout.ok()) return layout.status();
  p.set_filter_layout(*layout);
  for (const WindowDim& d : window.dims) {
    p.add_padding(backward_data ? (d.size - 1) * d.rhs_dilate - d.pad_low : d.pad_low);
    p.add_strides(backward_data ? d.lhs_dilate : d.stride);
    p.add_dilations(d.rhs_dilate);
  }
  if (window.dims.size() == 1) {
    p.add_padding(0);
    p.add_strides(1);
    p.add_dilations(1);
  }
  p.set_feature_groups(call.GetInt(AttrId::kFeatureGroupCount, 1));
  if (allow_tf32 && out.element_type() == PrimitiveType::F32) p.set_allow_tf32(true);
  if (call.GetString(AttrId::kCustomCallTarget) == kCudnnConvForwardBiasReluTarget) {
    p.set_activation(CONVOLUTION_ACTIVATION_RELU);
  }
  return p;
}

bool IsFusedEpilogue(const HloInstruction& call) {
  const std::string& target = call.GetString(AttrId::kCustomCallTarget);
  return target == kCudnnConvForwardBiasTarget || target == kCudnnConvForwardBiasReluTarget;
}

int64_t CudnnWorkspaceBound(const HloInstruction& call) {
  int64_t bytes = call.shape().ByteSize().value_or(kMaxWorkspace);
  for (const HloInstruction* operand : call.operands()) {
    bytes += operand->shape().ByteSize().value_or(kMaxWorkspace);
  }
  return std::clamp(bytes, kMinWorkspace, kMaxWorkspace);
}

}  // namespace xla::gpu
