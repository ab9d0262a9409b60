// DnnConvolutionConfig: a platform-neutral description of one convolution
// that a DNN library (cuda: cuDNN) runs, in the library's logical order:
//
//   x  (input)   [N, C, S0, S1(, S2)]            any strides (elements)
//   w  (filter)  [K, C / groups, W0, W1(, W2)]   packed, kOIHW or kOHWI
//   y  (output)  [N, K, R0, R1(, R2)]            any strides (elements)
//
//   y[n, k, r] = sum_{c in k's group, j} x[n, c, r * stride - pad + j * dilation] * w[k, c', j]
//
// with zero outside x, and R_i = (S_i + 2 * pad_i - ((W_i - 1) * dilation_i + 1)) / stride_i + 1
// (floor). The kind says which of the three is the result:
//   kForward         y = conv(x, w)
//   kBackwardData    x = the transposed convolution of y with w (dx from dy)
//   kBackwardFilter  w = the correlation of x with y (dw from x and dy)
// The result is overwritten (beta 0). A forward convolution may carry a
// fused epilogue (kBias, kBiasRelu): y = act(conv(x, w) + bias[k]), with
// bias one value per output feature K (packed, the element type) and act
// the identity or max(v, 0) (NaN stays NaN). Padding is symmetric (cuDNN's legacy
// descriptors cannot say otherwise); 1-D convolutions are written as 2-D
// with a spatial extent of 1. F32 accumulates in f32 (TF32 operands when
// allow_tf32), F16 and BF16 in f32.
//
// Thread-safety: plain value types; the functions are pure.
#ifndef XLA_STREAM_EXECUTOR_DNN_H_
#define XLA_STREAM_EXECUTOR_DNN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "xla/stream_executor/device_memory.h"

namespace stream_executor {

enum class DnnConvolutionKind { kForward, kBackwardData, kBackwardFilter };
enum class DnnElementType { kF16, kBF16, kF32 };
// The filter's packed memory order: [K, C, W..] or [K, W.., C].
enum class DnnFilterLayout { kOIHW, kOHWI };
// What a forward convolution does to its result before storing it: nothing,
// add a per-output-feature bias, or add the bias and apply ReLU.
enum class DnnEpilogue { kNone, kBias, kBiasRelu };

// "forward", "backward_data", "backward_filter".
absl::string_view DnnConvolutionKindName(DnnConvolutionKind kind);
// "none", "bias", "bias_relu".
absl::string_view DnnEpilogueName(DnnEpilogue epilogue);
// Bytes of one element (2 or 4).
int64_t DnnElementBytes(DnnElementType type);

// An activation tensor: logical dims [N, C, spatial..] and the stride of
// each, in elements.
struct DnnTensor {
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;
};

struct DnnConvolutionConfig {
  DnnConvolutionKind kind = DnnConvolutionKind::kForward;
  DnnElementType element_type = DnnElementType::kF32;
  DnnTensor input;                    // x
  DnnTensor output;                   // y
  std::vector<int64_t> filter_dims;   // [K, C / groups, W..]
  DnnFilterLayout filter_layout = DnnFilterLayout::kOIHW;
  // One per spatial dimension.
  std::vector<int64_t> padding;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  int64_t feature_groups = 1;
  // F32 only: operands may be rounded to TF32.
  bool allow_tf32 = false;
  // kForward only: the fused epilogue (its bias is a separate buffer).
  DnnEpilogue epilogue = DnnEpilogue::kNone;
};

// The packed strides of the filter, in the order of filter_dims. Pure.
std::vector<int64_t> DnnFilterStrides(const DnnConvolutionConfig& c);

// Elements a tensor with these dims and strides spans (largest offset + 1;
// 0 when a dim is 0). Pure.
int64_t DnnTensorSpan(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides);

// OK when `c` is a convolution every DNN platform can run: 2 or 3 spatial
// dimensions, all extents >= 1, strides and dilations >= 1, padding >= 0,
// C and K divisible by feature_groups, filter_dims[1] * groups == C,
// output spatial sizes as the formula above gives them, N and K equal
// between x, y and w, non-negative tensor strides, TF32 only for F32, an
// epilogue only on a forward convolution.
// InvalidArgument naming the field and the values otherwise.
absl::Status CheckDnnConvolution(const DnnConvolutionConfig& c);

// OK when each buffer holds its tensor (x: DnnTensorSpan(input), w: the
// packed filter, y: DnnTensorSpan(output), bias: K elements when the
// config has an epilogue, in elements of the type); InvalidArgument naming
// the tensor and both sizes otherwise. `bias` is ignored without an
// epilogue.
absl::Status CheckDnnConvolutionBuffers(const DnnConvolutionConfig& c, const DeviceMemoryBase& x,
                                        const DeviceMemoryBase& w, const DeviceMemoryBase& y,
                                        const DeviceMemoryBase& bias);

// One line for messages and tests: "forward f32 x[3,3,7,5]/[105,1,15,3] w[5,3,3,3] oihw
// y[...]/[...] pad=1,0 stride=2,1 dilation=1,2 groups=1 tf32=0", plus
// " epilogue=bias_relu" when there is one.
std::string DnnConvolutionToString(const DnnConvolutionConfig& c);

// A convolution prepared for one device (StreamExecutor::PrepareConvolution):
// the library's descriptors and the algorithm its heuristics chose.
// Immutable once made; any stream of that device may run it, concurrently.
class DnnConvolutionPlan {
 public:
  virtual ~DnnConvolutionPlan() = default;
  virtual const DnnConvolutionConfig& config() const = 0;
  // The chosen algorithm, in the library's numbering (for reports).
  virtual int64_t algorithm() const = 0;
  // Bytes of workspace the algorithm needs; never above the limit it was
  // prepared with.
  virtual uint64_t workspace_bytes() const = 0;
};

}  // namespace stream_executor

#endif  // XLA_STREAM_EXECUTOR_DNN_H_
