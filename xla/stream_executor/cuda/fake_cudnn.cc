#include "xla/stream_executor/cuda/fake_cudnn.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <map>

#include "xla/types/float_format.h"
#include "xla/util/logging.h"

namespace stream_executor::cuda {
namespace {

std::atomic<FakeCudnn*> active{nullptr};
int handle_storage;

FakeCudnn& Active() {
  FakeCudnn* fake = active.load();
  XLA_CHECK(fake != nullptr) << "a fake cuDNN entry point ran with no FakeCudnn alive";
  return *fake;
}

template <typename Desc, typename Handle>
Desc* Get(Handle handle) {
  return reinterpret_cast<Desc*>(handle);
}

xla::FloatFormatId FormatOf(cudnnDataType_t type) {
  switch (type) {
    case CUDNN_DATA_HALF:
      return xla::FloatFormatId::kF16;
    case CUDNN_DATA_BFLOAT16:
      return xla::FloatFormatId::kBF16;
    default:
      return xla::FloatFormatId::kF32;
  }
}

int Bytes(cudnnDataType_t type) { return type == CUDNN_DATA_FLOAT ? 4 : 2; }

// Reads / writes element `index` of a buffer of `type` as a double.
double Load(const void* data, cudnnDataType_t type, int64_t index) {
  uint64_t bits = 0;
  std::memcpy(&bits, static_cast<const char*>(data) + index * Bytes(type), Bytes(type));
  return xla::DecodeFloat(FormatOf(type), bits);
}

void Store(void* data, cudnnDataType_t type, int64_t index, double value) {
  const uint64_t bits = xla::EncodeFloat(FormatOf(type), value);
  std::memcpy(static_cast<char*>(data) + index * Bytes(type), &bits, Bytes(type));
}

// The packed strides of a filter of `dims` in `format` (KCRS or KRSC).
std::vector<int64_t> FilterStrides(const FakeCudnnFilter& w) {
  const size_t rank = w.dims.size();
  std::vector<size_t> order = {0};
  if (w.format == CUDNN_TENSOR_NCHW) order.push_back(1);
  for (size_t i = 2; i < rank; ++i) order.push_back(i);
  if (w.format != CUDNN_TENSOR_NCHW) order.push_back(1);
  std::vector<int64_t> strides(rank, 1);
  int64_t stride = 1;
  for (size_t i = rank; i-- > 0;) {
    strides[order[i]] = stride;
    stride *= w.dims[order[i]];
  }
  return strides;
}

int64_t Offset(const std::vector<int64_t>& index, const std::vector<int64_t>& strides) {
  int64_t offset = 0;
  for (size_t i = 0; i < index.size(); ++i) offset += index[i] * strides[i];
  return offset;
}

std::vector<int64_t> Widen(const std::vector<int>& v) { return std::vector<int64_t>(v.begin(), v.end()); }

// Advances `index` through [0, dims) in row-major order; false at the end.
bool Next(std::vector<int64_t>& index, const std::vector<int>& dims) {
  for (size_t i = index.size(); i-- > 0;) {
    if (++index[i] < dims[i]) return true;
    index[i] = 0;
  }
  return false;
}

// The fused epilogue at y element `index` (whose convolution term is
// `conv`): + alpha2 * z + bias[k], then the activation.
double Epilogue(const FakeCudnnCall& call, const std::vector<int64_t>& index, double conv) {
  double v = conv;
  if (call.alpha2 != 0) v += call.alpha2 * Load(call.z_data, call.z.type, Offset(index, Widen(call.z.strides)));
  std::vector<int64_t> bias_index(index.size(), 0);
  bias_index[1] = index[1];
  v += Load(call.bias_data, call.bias.type, Offset(bias_index, Widen(call.bias.strides)));
  if (call.activation.mode != CUDNN_ACTIVATION_RELU) return v;
  if (std::isnan(v)) return call.activation.nan == CUDNN_PROPAGATE_NAN ? v : 0.0;
  return v > 0 ? v : 0.0;
}

// Why cuDNN would refuse the fused call `call`, as its status (SUCCESS when
// it runs).
cudnnStatus_t FusedRefusal(const FakeCudnnCall& call) {
  const cudnnActivationMode_t mode = call.activation.mode;
  if (mode != CUDNN_ACTIVATION_RELU && mode != CUDNN_ACTIVATION_IDENTITY) {
    return CUDNN_STATUS_NOT_SUPPORTED;
  }
  if (mode == CUDNN_ACTIVATION_IDENTITY &&
      call.algorithm != CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM) {
    return CUDNN_STATUS_NOT_SUPPORTED;
  }
  std::vector<int> bias_dims(call.y.dims.size(), 1);
  if (bias_dims.size() > 1) bias_dims[1] = call.y.dims[1];
  if (call.bias.dims != bias_dims || call.z.dims != call.y.dims || call.bias_data == nullptr) {
    return CUDNN_STATUS_BAD_PARAM;
  }
  return CUDNN_STATUS_SUCCESS;
}

// The convolution of `call` computed from its descriptors: every (x, w, y)
// triple the cross-correlation pairs up, accumulated in double into the
// kind's result, then written as alpha * sum + beta * old.
void Compute(const FakeCudnnCall& call) {
  const std::vector<int64_t> xs = Widen(call.x.strides), ys = Widen(call.y.strides);
  const std::vector<int64_t> ws = FilterStrides(call.w);
  const size_t spatial = call.x.dims.size() - 2;
  const int groups = call.conv.groups;
  const int k_per_group = call.y.dims[1] / groups, c_per_group = call.w.dims[1];
  const bool tf32 = call.x.type == CUDNN_DATA_FLOAT && call.conv.math != CUDNN_FMA_MATH;
  auto read = [&](const void* data, int64_t index) {
    const double v = Load(data, call.x.type, index);
    return tf32 ? static_cast<double>(xla::RoundToTf32(static_cast<float>(v))) : v;
  };
  std::map<int64_t, double> sums;  // result offset -> sum
  std::vector<int64_t> y_index(call.y.dims.size(), 0);
  do {
    const int64_t n = y_index[0], k = y_index[1];
    std::vector<int> window_dims = {c_per_group};
    for (size_t i = 0; i < spatial; ++i) window_dims.push_back(call.w.dims[i + 2]);
    std::vector<int64_t> window(window_dims.size(), 0);
    do {
      std::vector<int64_t> x_index = {n, (k / k_per_group) * c_per_group + window[0]};
      bool inside = true;
      for (size_t i = 0; i < spatial; ++i) {
        const int64_t pos = y_index[i + 2] * call.conv.strides[i] - call.conv.padding[i] +
                            window[i + 1] * call.conv.dilations[i];
        inside = inside && pos >= 0 && pos < call.x.dims[i + 2];
        x_index.push_back(pos);
      }
      if (!inside) continue;
      std::vector<int64_t> w_index = {k, window[0]};
      for (size_t i = 0; i < spatial; ++i) w_index.push_back(window[i + 1]);
      const int64_t xo = Offset(x_index, xs), wo = Offset(w_index, ws), yo = Offset(y_index, ys);
      switch (call.kind) {
        case DnnConvolutionKind::kForward:
          sums[yo] += read(call.x_data, xo) * read(call.w_data, wo);
          break;
        case DnnConvolutionKind::kBackwardData:
          sums[xo] += read(call.y_data, yo) * read(call.w_data, wo);
          break;
        case DnnConvolutionKind::kBackwardFilter:
          sums[wo] += read(call.x_data, xo) * read(call.y_data, yo);
          break;
      }
    } while (Next(window, window_dims));
  } while (Next(y_index, call.y.dims));
  // Every element of the result is written, also those no term reaches.
  const void* result = call.kind == DnnConvolutionKind::kForward        ? call.y_data
                       : call.kind == DnnConvolutionKind::kBackwardData ? call.x_data
                                                                        : call.w_data;
  const std::vector<int>& dims = call.kind == DnnConvolutionKind::kForward        ? call.y.dims
                                 : call.kind == DnnConvolutionKind::kBackwardData ? call.x.dims
                                                                                  : call.w.dims;
  const std::vector<int64_t>& strides = call.kind == DnnConvolutionKind::kForward ? ys
                                        : call.kind == DnnConvolutionKind::kBackwardData ? xs
                                                                                         : ws;
  void* out = const_cast<void*>(result);
  std::vector<int64_t> index(dims.size(), 0);
  do {
    const int64_t o = Offset(index, strides);
    const double old = call.beta == 0 ? 0.0 : Load(out, call.x.type, o);
    const double value = call.alpha * sums[o] + call.beta * old;
    Store(out, call.x.type, o, call.fused ? Epilogue(call, index, value) : value);
  } while (Next(index, dims));
}

}  // namespace

// The C entry points; a friend so they reach the fake's state.
struct FakeCudnnEntryPoints {
  static size_t GetVersion() { return 91900; }
  static const char* ErrorString(cudnnStatus_t status) {
    return status == CUDNN_STATUS_EXECUTION_FAILED ? "CUDNN_STATUS_EXECUTION_FAILED"
                                                   : "CUDNN_STATUS_OTHER (the fake says no)";
  }
  static cudnnStatus_t Create(cudnnHandle_t* handle) {
    FakeCudnn& fake = Active();
    std::lock_guard<std::mutex> lock(fake.mu_);
    ++fake.live_handles_;
    *handle = reinterpret_cast<cudnnHandle_t>(&handle_storage);
    return CUDNN_STATUS_SUCCESS;
  }
  static cudnnStatus_t Destroy(cudnnHandle_t) {
    FakeCudnn& fake = Active();
    std::lock_guard<std::mutex> lock(fake.mu_);
    --fake.live_handles_;
    return CUDNN_STATUS_SUCCESS;
  }
  static cudnnStatus_t SetStream(cudnnHandle_t, cudaStream_t stream) {
    FakeCudnn& fake = Active();
    std::lock_guard<std::mutex> lock(fake.mu_);
    fake.bound_stream_ = stream;
    return CUDNN_STATUS_SUCCESS;
  }

  template <typename Desc, typename Handle>
  static cudnnStatus_t CreateDesc(Handle* handle) {
    FakeCudnn& fake = Active();
    std::lock_guard<std::mutex> lock(fake.mu_);
    ++fake.live_descriptors_;
    *handle = reinterpret_cast<Handle>(new Desc());
    return CUDNN_STATUS_SUCCESS;
  }
  template <typename Desc, typename Handle>
  static cudnnStatus_t DestroyDesc(Handle handle) {
    FakeCudnn& fake = Active();
    std::lock_guard<std::mutex> lock(fake.mu_);
    --fake.live_descriptors_;
    delete Get<Desc>(handle);
    return CUDNN_STATUS_SUCCESS;
  }

  static cudnnStatus_t SetTensor(cudnnTensorDescriptor_t d, cudnnDataType_t type, int rank,
                                 const int* dims, const int* strides) {
    if (rank < 3 || rank > 8) return CUDNN_STATUS_BAD_PARAM;
    *Get<FakeCudnnTensor>(d) = {type, std::vector<int>(dims, dims + rank),
                                std::vector<int>(strides, strides + rank)};
    return CUDNN_STATUS_SUCCESS;
  }
  static cudnnStatus_t SetFilter(cudnnFilterDescriptor_t d, cudnnDataType_t type,
                                 cudnnTensorFormat_t format, int rank, const int* dims) {
    if (rank < 3 || rank > 8) return CUDNN_STATUS_BAD_PARAM;
    *Get<FakeCudnnFilter>(d) = {type, format, std::vector<int>(dims, dims + rank)};
    return CUDNN_STATUS_SUCCESS;
  }
  static cudnnStatus_t SetConvolution(cudnnConvolutionDescriptor_t d, int length, const int* pad,
                                      const int* stride, const int* dilation,
                                      cudnnConvolutionMode_t mode, cudnnDataType_t compute) {
    FakeCudnnConvolution& c = *Get<FakeCudnnConvolution>(d);
    c.padding.assign(pad, pad + length);
    c.strides.assign(stride, stride + length);
    c.dilations.assign(dilation, dilation + length);
    c.mode = mode;
    c.compute_type = compute;
    return CUDNN_STATUS_SUCCESS;
  }
  static cudnnStatus_t SetGroups(cudnnConvolutionDescriptor_t d, int groups) {
    Get<FakeCudnnConvolution>(d)->groups = groups;
    return CUDNN_STATUS_SUCCESS;
  }
  static cudnnStatus_t SetMath(cudnnConvolutionDescriptor_t d, cudnnMathType_t math) {
    Get<FakeCudnnConvolution>(d)->math = math;
    return CUDNN_STATUS_SUCCESS;
  }
  static cudnnStatus_t SetActivation(cudnnActivationDescriptor_t d, cudnnActivationMode_t mode,
                                     cudnnNanPropagation_t nan, double coef) {
    *Get<FakeCudnnActivation>(d) = {mode, nan, coef};
    return CUDNN_STATUS_SUCCESS;
  }

  // The two fake algorithms, fastest first.
  template <typename Perf>
  static cudnnStatus_t Heuristics(int requested, int* returned, Perf* results) {
    FakeCudnn& fake = Active();
    {
      std::lock_guard<std::mutex> lock(fake.mu_);
      ++fake.heuristics_calls_;
    }
    const Perf all[] = {
        {static_cast<decltype(Perf::algo)>(1), CUDNN_STATUS_SUCCESS, 1.0f, kFakeCudnnWorkspaceBytes,
         CUDNN_DETERMINISTIC, CUDNN_TENSOR_OP_MATH, {}},
        {static_cast<decltype(Perf::algo)>(0), CUDNN_STATUS_SUCCESS, 2.0f, 0, CUDNN_DETERMINISTIC,
         CUDNN_FMA_MATH, {}},
    };
    *returned = std::min(requested, 2);
    for (int i = 0; i < *returned; ++i) results[i] = all[i];
    return CUDNN_STATUS_SUCCESS;
  }
  static cudnnStatus_t ForwardHeuristics(cudnnHandle_t, cudnnTensorDescriptor_t,
                                         cudnnFilterDescriptor_t, cudnnConvolutionDescriptor_t,
                                         cudnnTensorDescriptor_t, int requested, int* returned,
                                         cudnnConvolutionFwdAlgoPerf_t* results) {
    return Heuristics(requested, returned, results);
  }
  static cudnnStatus_t BackwardDataHeuristics(cudnnHandle_t, cudnnFilterDescriptor_t,
                                              cudnnTensorDescriptor_t, cudnnConvolutionDescriptor_t,
                                              cudnnTensorDescriptor_t, int requested, int* returned,
                                              cudnnConvolutionBwdDataAlgoPerf_t* results) {
    return Heuristics(requested, returned, results);
  }
  static cudnnStatus_t BackwardFilterHeuristics(cudnnHandle_t, cudnnTensorDescriptor_t,
                                                cudnnTensorDescriptor_t,
                                                cudnnConvolutionDescriptor_t,
                                                cudnnFilterDescriptor_t, int requested,
                                                int* returned,
                                                cudnnConvolutionBwdFilterAlgoPerf_t* results) {
    return Heuristics(requested, returned, results);
  }
  static size_t WorkspaceOf(int algo) { return algo == 1 ? kFakeCudnnWorkspaceBytes : 0; }
  static cudnnStatus_t ForwardWorkspace(cudnnHandle_t, cudnnTensorDescriptor_t,
                                        cudnnFilterDescriptor_t, cudnnConvolutionDescriptor_t,
                                        cudnnTensorDescriptor_t, cudnnConvolutionFwdAlgo_t algo,
                                        size_t* bytes) {
    *bytes = WorkspaceOf(algo);
    return CUDNN_STATUS_SUCCESS;
  }
  static cudnnStatus_t BackwardDataWorkspace(cudnnHandle_t, cudnnFilterDescriptor_t,
                                             cudnnTensorDescriptor_t, cudnnConvolutionDescriptor_t,
                                             cudnnTensorDescriptor_t,
                                             cudnnConvolutionBwdDataAlgo_t algo, size_t* bytes) {
    *bytes = WorkspaceOf(algo);
    return CUDNN_STATUS_SUCCESS;
  }
  static cudnnStatus_t BackwardFilterWorkspace(cudnnHandle_t, cudnnTensorDescriptor_t,
                                               cudnnTensorDescriptor_t,
                                               cudnnConvolutionDescriptor_t,
                                               cudnnFilterDescriptor_t,
                                               cudnnConvolutionBwdFilterAlgo_t algo,
                                               size_t* bytes) {
    *bytes = WorkspaceOf(algo);
    return CUDNN_STATUS_SUCCESS;
  }

  // Records the call and runs it in stream order.
  static cudnnStatus_t Run(FakeCudnnCall call, const void* alpha, const void* beta) {
    FakeCudnn& fake = Active();
    {
      std::lock_guard<std::mutex> lock(fake.mu_);
      if (fake.next_status_ != CUDNN_STATUS_SUCCESS) {
        const cudnnStatus_t status = fake.next_status_;
        fake.next_status_ = CUDNN_STATUS_SUCCESS;
        return status;
      }
      call.alpha = *static_cast<const float*>(alpha);
      call.beta = *static_cast<const float*>(beta);
      call.stream = fake.bound_stream_;
      fake.recorded_.push_back(call);
    }
    if (call.workspace_bytes < WorkspaceOf(call.algorithm) ||
        (call.workspace_bytes > 0 && call.workspace == nullptr)) {
      return CUDNN_STATUS_BAD_PARAM;
    }
    if (call.fused && FusedRefusal(call) != CUDNN_STATUS_SUCCESS) return FusedRefusal(call);
    auto* pending = new FakeCudnnCall(std::move(call));
    const CUresult result = fake.driver_.cuLaunchHostFunc(
        reinterpret_cast<CUstream>(pending->stream),
        [](void* data) {
          auto* c = static_cast<FakeCudnnCall*>(data);
          if (c->algorithm == 1) std::memset(c->workspace, 0xff, WorkspaceOf(1));
          Compute(*c);
        },
        pending);
    if (result != CUDA_SUCCESS) {
      delete pending;
      return CUDNN_STATUS_EXECUTION_FAILED;
    }
    std::lock_guard<std::mutex> lock(fake.mu_);
    fake.enqueued_.emplace_back(pending);
    return CUDNN_STATUS_SUCCESS;
  }
  static FakeCudnnCall Describe(DnnConvolutionKind kind, cudnnTensorDescriptor_t x,
                                cudnnFilterDescriptor_t w, cudnnConvolutionDescriptor_t conv,
                                cudnnTensorDescriptor_t y, int algo, void* workspace,
                                size_t workspace_bytes) {
    FakeCudnnCall call;
    call.kind = kind;
    call.x = *Get<FakeCudnnTensor>(x);
    call.y = *Get<FakeCudnnTensor>(y);
    call.w = *Get<FakeCudnnFilter>(w);
    call.conv = *Get<FakeCudnnConvolution>(conv);
    call.algorithm = algo;
    call.workspace = workspace;
    call.workspace_bytes = workspace_bytes;
    return call;
  }
  static cudnnStatus_t Forward(cudnnHandle_t, const void* alpha, cudnnTensorDescriptor_t xd,
                               const void* x, cudnnFilterDescriptor_t wd, const void* w,
                               cudnnConvolutionDescriptor_t conv, cudnnConvolutionFwdAlgo_t algo,
                               void* workspace, size_t workspace_bytes, const void* beta,
                               cudnnTensorDescriptor_t yd, void* y) {
    FakeCudnnCall call = Describe(DnnConvolutionKind::kForward, xd, wd, conv, yd, algo, workspace,
                                  workspace_bytes);
    call.x_data = x;
    call.w_data = w;
    call.y_data = y;
    return Run(std::move(call), alpha, beta);
  }
  static cudnnStatus_t BiasActivationForward(
      cudnnHandle_t, const void* alpha1, cudnnTensorDescriptor_t xd, const void* x,
      cudnnFilterDescriptor_t wd, const void* w, cudnnConvolutionDescriptor_t conv,
      cudnnConvolutionFwdAlgo_t algo, void* workspace, size_t workspace_bytes, const void* alpha2,
      cudnnTensorDescriptor_t zd, const void* z, cudnnTensorDescriptor_t biasd, const void* bias,
      cudnnActivationDescriptor_t activation, cudnnTensorDescriptor_t yd, void* y) {
    FakeCudnnCall call = Describe(DnnConvolutionKind::kForward, xd, wd, conv, yd, algo, workspace,
                                  workspace_bytes);
    call.x_data = x;
    call.w_data = w;
    call.y_data = y;
    call.fused = true;
    call.z = *Get<FakeCudnnTensor>(zd);
    call.bias = *Get<FakeCudnnTensor>(biasd);
    call.activation = *Get<FakeCudnnActivation>(activation);
    call.z_data = z;
    call.bias_data = bias;
    call.alpha2 = *static_cast<const float*>(alpha2);
    const float zero = 0;
    return Run(std::move(call), alpha1, &zero);
  }
  static cudnnStatus_t BackwardData(cudnnHandle_t, const void* alpha, cudnnFilterDescriptor_t wd,
                                    const void* w, cudnnTensorDescriptor_t yd, const void* dy,
                                    cudnnConvolutionDescriptor_t conv,
                                    cudnnConvolutionBwdDataAlgo_t algo, void* workspace,
                                    size_t workspace_bytes, const void* beta,
                                    cudnnTensorDescriptor_t xd, void* dx) {
    FakeCudnnCall call = Describe(DnnConvolutionKind::kBackwardData, xd, wd, conv, yd, algo,
                                  workspace, workspace_bytes);
    call.x_data = dx;
    call.w_data = w;
    call.y_data = dy;
    return Run(std::move(call), alpha, beta);
  }
  static cudnnStatus_t BackwardFilter(cudnnHandle_t, const void* alpha, cudnnTensorDescriptor_t xd,
                                      const void* x, cudnnTensorDescriptor_t yd, const void* dy,
                                      cudnnConvolutionDescriptor_t conv,
                                      cudnnConvolutionBwdFilterAlgo_t algo, void* workspace,
                                      size_t workspace_bytes, const void* beta,
                                      cudnnFilterDescriptor_t wd, void* dw) {
    FakeCudnnCall call = Describe(DnnConvolutionKind::kBackwardFilter, xd, wd, conv, yd, algo,
                                  workspace, workspace_bytes);
    call.x_data = x;
    call.w_data = dw;
    call.y_data = dy;
    return Run(std::move(call), alpha, beta);
  }
};

FakeCudnn::FakeCudnn(const CudaDriverApi& driver) : driver_(driver) {
  FakeCudnn* expected = nullptr;
  XLA_CHECK(active.compare_exchange_strong(expected, this))
      << "only one FakeCudnn may exist at a time";
  using E = FakeCudnnEntryPoints;
  api_.cudnnGetVersion = &E::GetVersion;
  api_.cudnnGetErrorString = &E::ErrorString;
  api_.cudnnCreate = &E::Create;
  api_.cudnnDestroy = &E::Destroy;
  api_.cudnnSetStream = &E::SetStream;
  api_.cudnnCreateTensorDescriptor = &E::CreateDesc<FakeCudnnTensor, cudnnTensorDescriptor_t>;
  api_.cudnnSetTensorNdDescriptor = &E::SetTensor;
  api_.cudnnDestroyTensorDescriptor = &E::DestroyDesc<FakeCudnnTensor, cudnnTensorDescriptor_t>;
  api_.cudnnCreateFilterDescriptor = &E::CreateDesc<FakeCudnnFilter, cudnnFilterDescriptor_t>;
  api_.cudnnSetFilterNdDescriptor = &E::SetFilter;
  api_.cudnnDestroyFilterDescriptor = &E::DestroyDesc<FakeCudnnFilter, cudnnFilterDescriptor_t>;
  api_.cudnnCreateConvolutionDescriptor =
      &E::CreateDesc<FakeCudnnConvolution, cudnnConvolutionDescriptor_t>;
  api_.cudnnSetConvolutionNdDescriptor = &E::SetConvolution;
  api_.cudnnSetConvolutionGroupCount = &E::SetGroups;
  api_.cudnnSetConvolutionMathType = &E::SetMath;
  api_.cudnnDestroyConvolutionDescriptor =
      &E::DestroyDesc<FakeCudnnConvolution, cudnnConvolutionDescriptor_t>;
  api_.cudnnGetConvolutionForwardAlgorithm_v7 = &E::ForwardHeuristics;
  api_.cudnnGetConvolutionBackwardDataAlgorithm_v7 = &E::BackwardDataHeuristics;
  api_.cudnnGetConvolutionBackwardFilterAlgorithm_v7 = &E::BackwardFilterHeuristics;
  api_.cudnnGetConvolutionForwardWorkspaceSize = &E::ForwardWorkspace;
  api_.cudnnGetConvolutionBackwardDataWorkspaceSize = &E::BackwardDataWorkspace;
  api_.cudnnGetConvolutionBackwardFilterWorkspaceSize = &E::BackwardFilterWorkspace;
  api_.cudnnConvolutionForward = &E::Forward;
  api_.cudnnConvolutionBackwardData = &E::BackwardData;
  api_.cudnnConvolutionBackwardFilter = &E::BackwardFilter;
  api_.cudnnCreateActivationDescriptor =
      &E::CreateDesc<FakeCudnnActivation, cudnnActivationDescriptor_t>;
  api_.cudnnSetActivationDescriptor = &E::SetActivation;
  api_.cudnnDestroyActivationDescriptor =
      &E::DestroyDesc<FakeCudnnActivation, cudnnActivationDescriptor_t>;
  api_.cudnnConvolutionBiasActivationForward = &E::BiasActivationForward;
}

FakeCudnn::~FakeCudnn() { active.store(nullptr); }

std::vector<FakeCudnnCall> FakeCudnn::recorded() const {
  std::lock_guard<std::mutex> lock(mu_);
  return recorded_;
}

int FakeCudnn::live_handles() const {
  std::lock_guard<std::mutex> lock(mu_);
  return live_handles_;
}

int FakeCudnn::live_descriptors() const {
  std::lock_guard<std::mutex> lock(mu_);
  return live_descriptors_;
}

int FakeCudnn::heuristics_calls() const {
  std::lock_guard<std::mutex> lock(mu_);
  return heuristics_calls_;
}

void FakeCudnn::FailNextConvolution(cudnnStatus_t status) {
  std::lock_guard<std::mutex> lock(mu_);
  next_status_ = status;
}

}  // namespace stream_executor::cuda
