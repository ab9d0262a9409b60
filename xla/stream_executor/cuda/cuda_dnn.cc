#include "xla/stream_executor/cuda/cuda_dnn.h"

#include <algorithm>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "xla/util/status_macros.h"

namespace stream_executor::cuda {
namespace {

absl::StatusOr<std::vector<int>> ToInts(const std::vector<int64_t>& values,
                                        absl::string_view field) {
  std::vector<int> out;
  for (int64_t v : values) {
    if (v > std::numeric_limits<int>::max()) {
      return absl::InvalidArgumentError(
          absl::StrCat("convolution: ", field, " value ", v, " does not fit cuDNN's int"));
    }
    out.push_back(static_cast<int>(v));
  }
  return out;
}

cudnnDataType_t DataType(DnnElementType type) {
  switch (type) {
    case DnnElementType::kF16:
      return CUDNN_DATA_HALF;
    case DnnElementType::kBF16:
      return CUDNN_DATA_BFLOAT16;
    case DnnElementType::kF32:
      return CUDNN_DATA_FLOAT;
  }
  return CUDNN_DATA_FLOAT;
}

bool FmaOnly(const DnnConvolutionConfig& c) {
  return c.element_type == DnnElementType::kF32 && !c.allow_tf32;
}

// One heuristic result, whichever kind's struct it came from.
struct Candidate {
  int algo = 0;
  cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
  size_t memory = 0;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
};

// The descriptors of one convolution, owned; destroyed with the plan.
class CudnnPlan : public DnnConvolutionPlan {
 public:
  CudnnPlan(const CudnnApi& api, DnnConvolutionConfig config) : api_(api), config_(std::move(config)) {}
  ~CudnnPlan() override {
    if (x_ != nullptr) (void)api_.cudnnDestroyTensorDescriptor(x_);
    if (y_ != nullptr) (void)api_.cudnnDestroyTensorDescriptor(y_);
    if (bias_ != nullptr) (void)api_.cudnnDestroyTensorDescriptor(bias_);
    if (activation_ != nullptr) (void)api_.cudnnDestroyActivationDescriptor(activation_);
    if (w_ != nullptr) (void)api_.cudnnDestroyFilterDescriptor(w_);
    if (conv_ != nullptr) (void)api_.cudnnDestroyConvolutionDescriptor(conv_);
  }

  const DnnConvolutionConfig& config() const override { return config_; }
  int64_t algorithm() const override { return algo_; }
  uint64_t workspace_bytes() const override { return workspace_; }

  // Creates and sets the four descriptors from `a`.
  absl::Status Build(const CudnnConvolutionArgs& a) {
    RETURN_IF_ERROR(CudnnStatus(api_, "cudnnCreateTensorDescriptor", api_.cudnnCreateTensorDescriptor(&x_)));
    RETURN_IF_ERROR(CudnnStatus(api_, "cudnnCreateTensorDescriptor", api_.cudnnCreateTensorDescriptor(&y_)));
    RETURN_IF_ERROR(CudnnStatus(api_, "cudnnCreateFilterDescriptor", api_.cudnnCreateFilterDescriptor(&w_)));
    RETURN_IF_ERROR(CudnnStatus(api_, "cudnnCreateConvolutionDescriptor",
                                api_.cudnnCreateConvolutionDescriptor(&conv_)));
    const int rank = static_cast<int>(a.x_dims.size());
    RETURN_IF_ERROR(CudnnStatus(api_, "cudnnSetTensorNdDescriptor (x)",
                                api_.cudnnSetTensorNdDescriptor(x_, a.data_type, rank, a.x_dims.data(),
                                                                a.x_strides.data())));
    RETURN_IF_ERROR(CudnnStatus(api_, "cudnnSetTensorNdDescriptor (y)",
                                api_.cudnnSetTensorNdDescriptor(y_, a.data_type, rank, a.y_dims.data(),
                                                                a.y_strides.data())));
    RETURN_IF_ERROR(CudnnStatus(api_, "cudnnSetFilterNdDescriptor",
                                api_.cudnnSetFilterNdDescriptor(w_, a.data_type, a.filter_format, rank,
                                                                a.filter_dims.data())));
    RETURN_IF_ERROR(CudnnStatus(
        api_, "cudnnSetConvolutionNdDescriptor",
        api_.cudnnSetConvolutionNdDescriptor(conv_, rank - 2, a.padding.data(), a.strides.data(),
                                             a.dilations.data(), CUDNN_CROSS_CORRELATION,
                                             a.compute_type)));
    RETURN_IF_ERROR(CudnnStatus(api_, "cudnnSetConvolutionGroupCount",
                                api_.cudnnSetConvolutionGroupCount(conv_, a.groups)));
    RETURN_IF_ERROR(CudnnStatus(api_, "cudnnSetConvolutionMathType",
                                api_.cudnnSetConvolutionMathType(conv_, a.math_type)));
    return a.bias_dims.empty() ? absl::OkStatus() : BuildEpilogue(a);
  }

  // The bias and activation descriptors of a fused epilogue.
  absl::Status BuildEpilogue(const CudnnConvolutionArgs& a) {
    RETURN_IF_ERROR(CudnnStatus(api_, "cudnnCreateTensorDescriptor", api_.cudnnCreateTensorDescriptor(&bias_)));
    RETURN_IF_ERROR(CudnnStatus(api_, "cudnnCreateActivationDescriptor",
                                api_.cudnnCreateActivationDescriptor(&activation_)));
    RETURN_IF_ERROR(CudnnStatus(
        api_, "cudnnSetTensorNdDescriptor (bias)",
        api_.cudnnSetTensorNdDescriptor(bias_, a.data_type, static_cast<int>(a.bias_dims.size()),
                                        a.bias_dims.data(), a.bias_strides.data())));
    return CudnnStatus(api_, "cudnnSetActivationDescriptor",
                       api_.cudnnSetActivationDescriptor(activation_, a.activation,
                                                         CUDNN_PROPAGATE_NAN, 0.0));
  }

  // The one algorithm cuDNN runs an IDENTITY epilogue with, and its
  // workspace.
  absl::StatusOr<std::vector<Candidate>> ImplicitPrecompGemm(cudnnHandle_t handle,
                                                             cudnnMathType_t math) const {
    const cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    size_t bytes = 0;
    RETURN_IF_ERROR(CudnnStatus(api_, "cudnnGetConvolutionForwardWorkspaceSize",
                                api_.cudnnGetConvolutionForwardWorkspaceSize(handle, x_, w_, conv_,
                                                                             y_, algo, &bytes)));
    return std::vector<Candidate>{{static_cast<int>(algo), CUDNN_STATUS_SUCCESS, bytes, math}};
  }

  // The kind's heuristics, up to 16 candidates in cuDNN's order.
  absl::StatusOr<std::vector<Candidate>> Heuristics(cudnnHandle_t handle) const {
    constexpr int kMax = 16;
    int count = 0;
    std::vector<Candidate> out;
    auto collect = [&](const auto* results) {
      for (int i = 0; i < count; ++i) {
        out.push_back({static_cast<int>(results[i].algo), results[i].status, results[i].memory,
                       results[i].mathType});
      }
    };
    switch (config_.kind) {
      case DnnConvolutionKind::kForward: {
        cudnnConvolutionFwdAlgoPerf_t r[kMax];
        RETURN_IF_ERROR(CudnnStatus(api_, "cudnnGetConvolutionForwardAlgorithm_v7",
                                    api_.cudnnGetConvolutionForwardAlgorithm_v7(
                                        handle, x_, w_, conv_, y_, kMax, &count, r)));
        collect(r);
        break;
      }
      case DnnConvolutionKind::kBackwardData: {
        cudnnConvolutionBwdDataAlgoPerf_t r[kMax];
        RETURN_IF_ERROR(CudnnStatus(api_, "cudnnGetConvolutionBackwardDataAlgorithm_v7",
                                    api_.cudnnGetConvolutionBackwardDataAlgorithm_v7(
                                        handle, w_, y_, conv_, x_, kMax, &count, r)));
        collect(r);
        break;
      }
      case DnnConvolutionKind::kBackwardFilter: {
        cudnnConvolutionBwdFilterAlgoPerf_t r[kMax];
        RETURN_IF_ERROR(CudnnStatus(api_, "cudnnGetConvolutionBackwardFilterAlgorithm_v7",
                                    api_.cudnnGetConvolutionBackwardFilterAlgorithm_v7(
                                        handle, x_, y_, conv_, w_, kMax, &count, r)));
        collect(r);
        break;
      }
    }
    return out;
  }

  // Takes the first usable candidate within `limit`.
  absl::Status Choose(const std::vector<Candidate>& candidates, uint64_t limit) {
    size_t smallest = std::numeric_limits<size_t>::max();
    for (const Candidate& c : candidates) {
      if (c.status != CUDNN_STATUS_SUCCESS) continue;
      if (FmaOnly(config_) && c.math != CUDNN_FMA_MATH) continue;
      smallest = std::min(smallest, c.memory);
      if (c.memory > limit) continue;
      algo_ = c.algo;
      workspace_ = c.memory;
      return CudnnStatus(api_, "cudnnSetConvolutionMathType",
                         api_.cudnnSetConvolutionMathType(conv_, c.math));
    }
    return absl::NotFoundError(absl::StrCat(
        "convolution: no cuDNN algorithm for ", DnnConvolutionToString(config_), " fits the ", limit,
        "-byte workspace the compiler reserved (", candidates.size(), " candidates; smallest usable need ",
        smallest == std::numeric_limits<size_t>::max() ? std::string("none")
                                                       : absl::StrCat(smallest, " bytes"),
        ")"));
  }

  // The kind's convolution call with alpha 1, beta 0 (with an epilogue:
  // alpha1 1, alpha2 0, z = y).
  cudnnStatus_t Run(cudnnHandle_t handle, const void* x, const void* w, const void* y,
                    void* workspace, const void* bias) const {
    const float one = 1, zero = 0;
    switch (config_.kind) {
      case DnnConvolutionKind::kForward:
        if (config_.epilogue != DnnEpilogue::kNone) {
          return api_.cudnnConvolutionBiasActivationForward(
              handle, &one, x_, x, w_, w, conv_, static_cast<cudnnConvolutionFwdAlgo_t>(algo_),
              workspace, workspace_, &zero, y_, y, bias_, bias, activation_, y_,
              const_cast<void*>(y));
        }
        return api_.cudnnConvolutionForward(
            handle, &one, x_, x, w_, w, conv_, static_cast<cudnnConvolutionFwdAlgo_t>(algo_),
            workspace, workspace_, &zero, y_, const_cast<void*>(y));
      case DnnConvolutionKind::kBackwardData:
        return api_.cudnnConvolutionBackwardData(
            handle, &one, w_, w, y_, y, conv_, static_cast<cudnnConvolutionBwdDataAlgo_t>(algo_),
            workspace, workspace_, &zero, x_, const_cast<void*>(x));
      case DnnConvolutionKind::kBackwardFilter:
        return api_.cudnnConvolutionBackwardFilter(
            handle, &one, x_, x, y_, y, conv_, static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo_),
            workspace, workspace_, &zero, w_, const_cast<void*>(w));
    }
    return CUDNN_STATUS_BAD_PARAM;
  }

 private:
  const CudnnApi& api_;
  const DnnConvolutionConfig config_;
  cudnnTensorDescriptor_t x_ = nullptr;
  cudnnTensorDescriptor_t y_ = nullptr;
  cudnnFilterDescriptor_t w_ = nullptr;
  cudnnConvolutionDescriptor_t conv_ = nullptr;
  cudnnTensorDescriptor_t bias_ = nullptr;           // with an epilogue only
  cudnnActivationDescriptor_t activation_ = nullptr;  // with an epilogue only
  int algo_ = 0;
  uint64_t workspace_ = 0;
};

}  // namespace

absl::StatusOr<CudnnConvolutionArgs> CudnnConvolutionArgsFor(const DnnConvolutionConfig& c) {
  RETURN_IF_ERROR(CheckDnnConvolution(c));
  CudnnConvolutionArgs a;
  a.data_type = DataType(c.element_type);
  a.compute_type = CUDNN_DATA_FLOAT;
  a.math_type = FmaOnly(c) ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH;
  ASSIGN_OR_RETURN(a.x_dims, ToInts(c.input.dims, "x dims"));
  ASSIGN_OR_RETURN(a.x_strides, ToInts(c.input.strides, "x strides"));
  ASSIGN_OR_RETURN(a.y_dims, ToInts(c.output.dims, "y dims"));
  ASSIGN_OR_RETURN(a.y_strides, ToInts(c.output.strides, "y strides"));
  a.filter_format = c.filter_layout == DnnFilterLayout::kOIHW ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC;
  ASSIGN_OR_RETURN(a.filter_dims, ToInts(c.filter_dims, "filter dims"));
  ASSIGN_OR_RETURN(a.padding, ToInts(c.padding, "padding"));
  ASSIGN_OR_RETURN(a.strides, ToInts(c.strides, "strides"));
  ASSIGN_OR_RETURN(a.dilations, ToInts(c.dilations, "dilations"));
  a.groups = static_cast<int>(c.feature_groups);
  if (c.epilogue == DnnEpilogue::kNone) return a;
  a.bias_dims.assign(a.y_dims.size(), 1);
  a.bias_dims[1] = a.y_dims[1];
  a.bias_strides.assign(a.y_dims.size(), 1);
  a.bias_strides[0] = a.y_dims[1];
  a.activation = c.epilogue == DnnEpilogue::kBiasRelu ? CUDNN_ACTIVATION_RELU
                                                       : CUDNN_ACTIVATION_IDENTITY;
  return a;
}

absl::StatusOr<std::unique_ptr<CudnnHandle>> CudnnHandle::Create(const CudnnApi& cudnn,
                                                                 const CudaDriverApi& driver,
                                                                 CUcontext context) {
  CU_RETURN_IF_ERROR(driver, cuCtxSetCurrent, context);
  cudnnHandle_t handle = nullptr;
  RETURN_IF_ERROR(CudnnStatus(cudnn, "cudnnCreate", cudnn.cudnnCreate(&handle)));
  return std::unique_ptr<CudnnHandle>(new CudnnHandle(cudnn, driver, context, handle));
}

CudnnHandle::~CudnnHandle() {
  (void)CU_STATUS(driver_, cuCtxSetCurrent, context_);
  (void)cudnn_.cudnnDestroy(handle_);
}

absl::StatusOr<std::unique_ptr<DnnConvolutionPlan>> CudnnHandle::Prepare(
    const DnnConvolutionConfig& config, uint64_t workspace_limit) {
  ASSIGN_OR_RETURN(const CudnnConvolutionArgs args, CudnnConvolutionArgsFor(config));
  auto plan = std::make_unique<CudnnPlan>(cudnn_, config);
  RETURN_IF_ERROR(plan->Build(args));
  std::lock_guard<std::mutex> lock(mu_);
  CU_RETURN_IF_ERROR(driver_, cuCtxSetCurrent, context_);
  ASSIGN_OR_RETURN(const std::vector<Candidate> candidates,
                   config.epilogue == DnnEpilogue::kBias
                       ? plan->ImplicitPrecompGemm(handle_, args.math_type)
                       : plan->Heuristics(handle_));
  RETURN_IF_ERROR(plan->Choose(candidates, workspace_limit));
  return std::unique_ptr<DnnConvolutionPlan>(std::move(plan));
}

absl::Status CudnnHandle::Convolution(CudaStream& stream, const DnnConvolutionPlan& plan,
                                      const DeviceMemoryBase& x, const DeviceMemoryBase& w,
                                      const DeviceMemoryBase& y, const DeviceMemoryBase& workspace,
                                      const DeviceMemoryBase& bias) {
  const auto* cudnn_plan = dynamic_cast<const CudnnPlan*>(&plan);
  absl::Status valid = cudnn_plan == nullptr
                           ? absl::InvalidArgumentError("the plan was not made by cuDNN")
                           : CheckDnnConvolutionBuffers(plan.config(), x, w, y, bias);
  if (valid.ok() && workspace.size < plan.workspace_bytes()) {
    valid = absl::InvalidArgumentError(absl::StrCat("the workspace has ", workspace.size,
                                                    " bytes, the algorithm needs ",
                                                    plan.workspace_bytes()));
  }
  if (!valid.ok()) return stream.RejectAtEnqueue("convolution", valid);
  return stream.EnqueueDriverWork(
      "convolution", [this, cudnn_plan, x = x.opaque, w = w.opaque, y = y.opaque,
                      ws = workspace.opaque, b = bias.opaque](CUstream cu_stream) {
        std::lock_guard<std::mutex> lock(mu_);
        RETURN_IF_ERROR(CudnnStatus(
            cudnn_, "cudnnSetStream",
            cudnn_.cudnnSetStream(handle_, reinterpret_cast<cudaStream_t>(cu_stream))));
        return CudnnStatus(cudnn_, absl::StrCat("cudnnConvolution (",
                                                DnnConvolutionKindName(cudnn_plan->config().kind), ")"),
                           cudnn_plan->Run(handle_, x, w, y, ws, b));
      });
}

}  // namespace stream_executor::cuda
