#include "xla/stream_executor/dnn.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/util/status_macros.h"

namespace stream_executor {
namespace {

absl::Status Bad(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("convolution: ", what));
}

absl::Status CheckAll(absl::string_view field, const std::vector<int64_t>& values, int64_t min,
                      size_t count) {
  if (values.size() != count) {
    return Bad(absl::StrCat(field, " has ", values.size(), " entries, needs ", count));
  }
  for (int64_t v : values) {
    if (v < min) return Bad(absl::StrCat(field, " [", absl::StrJoin(values, ","), "] has a value below ", min));
  }
  return absl::OkStatus();
}

absl::Status CheckTensor(absl::string_view name, const DnnTensor& t, size_t rank) {
  RETURN_IF_ERROR(CheckAll(absl::StrCat(name, ".dims"), t.dims, 1, rank));
  return CheckAll(absl::StrCat(name, ".strides"), t.strides, 0, rank);
}

// The output extent of spatial dimension i by the convolution formula.
int64_t OutputExtent(const DnnConvolutionConfig& c, size_t i) {
  const int64_t window = (c.filter_dims[i + 2] - 1) * c.dilations[i] + 1;
  const int64_t room = c.input.dims[i + 2] + 2 * c.padding[i] - window;
  return room < 0 ? 0 : room / c.strides[i] + 1;
}

absl::Status CheckSize(absl::string_view name, const DeviceMemoryBase& buffer, int64_t elements,
                       int64_t width) {
  const __int128 bytes = static_cast<__int128>(elements) * width;
  if (bytes <= static_cast<__int128>(buffer.size)) return absl::OkStatus();
  return Bad(absl::StrCat("the ", name, " buffer has ", buffer.size, " bytes but the tensor spans ",
                          static_cast<int64_t>(bytes)));
}

}  // namespace

absl::string_view DnnConvolutionKindName(DnnConvolutionKind kind) {
  switch (kind) {
    case DnnConvolutionKind::kForward:
      return "forward";
    case DnnConvolutionKind::kBackwardData:
      return "backward_data";
    case DnnConvolutionKind::kBackwardFilter:
      return "backward_filter";
  }
  return "?";
}

absl::string_view DnnEpilogueName(DnnEpilogue epilogue) {
  switch (epilogue) {
    case DnnEpilogue::kNone:
      return "none";
    case DnnEpilogue::kBias:
      return "bias";
    case DnnEpilogue::kBiasRelu:
      return "bias_relu";
  }
  return "?";
}

int64_t DnnElementBytes(DnnElementType type) {
  switch (type) {
    case DnnElementType::kF16:
    case DnnElementType::kBF16:
      return 2;
    case DnnElementType::kF32:
      return 4;
  }
  return 0;
}

std::vector<int64_t> DnnFilterStrides(const DnnConvolutionConfig& c) {
  const std::vector<int64_t>& d = c.filter_dims;
  std::vector<int64_t> strides(d.size(), 1);
  if (d.size() < 3) return strides;
  // Memory order as indices into d: OIHW = 0,1,2..; OHWI = 0,2..,1.
  std::vector<size_t> order = {0};
  if (c.filter_layout == DnnFilterLayout::kOIHW) order.push_back(1);
  for (size_t i = 2; i < d.size(); ++i) order.push_back(i);
  if (c.filter_layout == DnnFilterLayout::kOHWI) order.push_back(1);
  int64_t stride = 1;
  for (size_t i = order.size(); i-- > 0;) {
    strides[order[i]] = stride;
    stride *= d[order[i]];
  }
  return strides;
}

int64_t DnnTensorSpan(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides) {
  int64_t last = 0;
  for (size_t i = 0; i < dims.size() && i < strides.size(); ++i) {
    if (dims[i] == 0) return 0;
    last += (dims[i] - 1) * strides[i];
  }
  return last + 1;
}

absl::Status CheckDnnConvolution(const DnnConvolutionConfig& c) {
  const size_t rank = c.input.dims.size();
  if (rank != 4 && rank != 5) {
    return Bad(absl::StrCat("x has rank ", rank, "; only 2 or 3 spatial dimensions (rank 4 or 5)"));
  }
  if (DnnElementBytes(c.element_type) == 0) {
    return Bad(absl::StrCat("unknown element type ", static_cast<int>(c.element_type)));
  }
  RETURN_IF_ERROR(CheckTensor("x", c.input, rank));
  RETURN_IF_ERROR(CheckTensor("y", c.output, rank));
  RETURN_IF_ERROR(CheckAll("filter_dims", c.filter_dims, 1, rank));
  RETURN_IF_ERROR(CheckAll("padding", c.padding, 0, rank - 2));
  RETURN_IF_ERROR(CheckAll("strides", c.strides, 1, rank - 2));
  RETURN_IF_ERROR(CheckAll("dilations", c.dilations, 1, rank - 2));
  const int64_t groups = c.feature_groups;
  const int64_t n = c.input.dims[0], channels = c.input.dims[1], k = c.output.dims[1];
  if (groups < 1 || channels % groups != 0 || k % groups != 0) {
    return Bad(absl::StrCat("feature_groups ", groups, " must divide C = ", channels,
                            " and K = ", k));
  }
  if (c.output.dims[0] != n || c.filter_dims[0] != k || c.filter_dims[1] * groups != channels) {
    return Bad(absl::StrCat("x [", absl::StrJoin(c.input.dims, ","), "], w [",
                            absl::StrJoin(c.filter_dims, ","), "] and y [",
                            absl::StrJoin(c.output.dims, ","), "] disagree on N, C or K (groups ",
                            groups, ")"));
  }
  for (size_t i = 0; i + 2 < rank; ++i) {
    if (c.output.dims[i + 2] != OutputExtent(c, i)) {
      return Bad(absl::StrCat("y's spatial dimension ", i, " is ", c.output.dims[i + 2],
                              " but the window gives ", OutputExtent(c, i)));
    }
  }
  if (c.allow_tf32 && c.element_type != DnnElementType::kF32) {
    return Bad("TF32 is only for f32 convolutions");
  }
  if (c.epilogue != DnnEpilogue::kNone && c.kind != DnnConvolutionKind::kForward) {
    return Bad(absl::StrCat("a ", DnnEpilogueName(c.epilogue), " epilogue on a ",
                            DnnConvolutionKindName(c.kind),
                            " convolution; only forward convolutions fuse one"));
  }
  return absl::OkStatus();
}

absl::Status CheckDnnConvolutionBuffers(const DnnConvolutionConfig& c, const DeviceMemoryBase& x,
                                        const DeviceMemoryBase& w, const DeviceMemoryBase& y,
                                        const DeviceMemoryBase& bias) {
  const int64_t width = DnnElementBytes(c.element_type);
  RETURN_IF_ERROR(CheckSize("x", x, DnnTensorSpan(c.input.dims, c.input.strides), width));
  RETURN_IF_ERROR(CheckSize("w", w, DnnTensorSpan(c.filter_dims, DnnFilterStrides(c)), width));
  RETURN_IF_ERROR(CheckSize("y", y, DnnTensorSpan(c.output.dims, c.output.strides), width));
  if (c.epilogue == DnnEpilogue::kNone) return absl::OkStatus();
  if (bias.opaque == nullptr) return Bad("the epilogue's bias buffer is null");
  return CheckSize("bias", bias, c.output.dims.size() > 1 ? c.output.dims[1] : 0, width);
}

std::string DnnConvolutionToString(const DnnConvolutionConfig& c) {
  constexpr const char* kTypes[] = {"f16", "bf16", "f32"};
  return absl::StrCat(
      DnnConvolutionKindName(c.kind), " ", kTypes[static_cast<int>(c.element_type)], " x[",
      absl::StrJoin(c.input.dims, ","), "]/[", absl::StrJoin(c.input.strides, ","), "] w[",
      absl::StrJoin(c.filter_dims, ","), "] ",
      c.filter_layout == DnnFilterLayout::kOIHW ? "oihw" : "ohwi", " y[",
      absl::StrJoin(c.output.dims, ","), "]/[", absl::StrJoin(c.output.strides, ","),
      "] pad=", absl::StrJoin(c.padding, ","), " stride=", absl::StrJoin(c.strides, ","),
      " dilation=", absl::StrJoin(c.dilations, ","), " groups=", c.feature_groups,
      " tf32=", c.allow_tf32 ? 1 : 0,
      c.epilogue == DnnEpilogue::kNone ? "" : absl::StrCat(" epilogue=", DnnEpilogueName(c.epilogue)));
}

}  // namespace stream_executor
