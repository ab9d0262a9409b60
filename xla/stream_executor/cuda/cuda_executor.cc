#include "xla/stream_executor/cuda/cuda_executor.h"

#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "xla/stream_executor/cuda/cublas_api.h"
#include "xla/stream_executor/cuda/cublaslt_api.h"
#include "xla/stream_executor/cuda/cudnn_api.h"
#include "xla/stream_executor/cuda/cuda_command_buffer.h"
#include "xla/stream_executor/cuda/cuda_event.h"
#include "xla/stream_executor/cuda/cuda_kernel_module.h"
#include "xla/stream_executor/cuda/cuda_stream.h"
#include "xla/util/status_macros.h"

namespace stream_executor::cuda {
namespace {

// Where each integer limit comes from.
struct AttributeField {
  CUdevice_attribute attribute;
  int64_t DeviceLimits::*field;
};

absl::StatusOr<int> ReadAttribute(const CudaDriverApi& api, CUdevice device,
                                  CUdevice_attribute attribute) {
  int value = 0;
  CU_RETURN_IF_ERROR(api, cuDeviceGetAttribute, &value, attribute, device);
  return value;
}


absl::Status WithOrdinal(int ordinal, const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat("cannot open CUDA device ", ordinal, ": ",
                                   status.message()));
}

}  // namespace

absl::StatusOr<DeviceLimits> ReadCudaDeviceLimits(const CudaDriverApi& api,
                                                  CUdevice device) {
  static constexpr AttributeField kScalars[] = {
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
       &DeviceLimits::max_threads_per_block},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
       &DeviceLimits::shared_memory_per_block},
      {CU_DEVICE_ATTRIBUTE_WARP_SIZE, &DeviceLimits::warp_size},
  };
  struct DimField {
    CUdevice_attribute attribute;
    Dim3Limit DeviceLimits::*dims;
    int64_t Dim3Limit::*extent;
  };
  static constexpr DimField kDims[] = {
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, &DeviceLimits::max_block_dims, &Dim3Limit::x},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, &DeviceLimits::max_block_dims, &Dim3Limit::y},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, &DeviceLimits::max_block_dims, &Dim3Limit::z},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, &DeviceLimits::max_grid_dims, &Dim3Limit::x},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, &DeviceLimits::max_grid_dims, &Dim3Limit::y},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, &DeviceLimits::max_grid_dims, &Dim3Limit::z},
  };
  DeviceLimits limits;
  for (const AttributeField& scalar : kScalars) {
    ASSIGN_OR_RETURN(int value, ReadAttribute(api, device, scalar.attribute));
    limits.*scalar.field = value;
  }
  for (const DimField& dim : kDims) {
    ASSIGN_OR_RETURN(int value, ReadAttribute(api, device, dim.attribute));
    (limits.*dim.dims).*dim.extent = value;
  }
  ASSIGN_OR_RETURN(int major,
                   ReadAttribute(api, device,
                                 CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR));
  ASSIGN_OR_RETURN(int minor,
                   ReadAttribute(api, device,
                                 CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
  limits.compute_capability = absl::StrCat(major, ".", minor);
  size_t total = 0;
  CU_RETURN_IF_ERROR(api, cuDeviceTotalMem_v2, &total, device);
  limits.memory_size = total;
  return limits;
}

absl::StatusOr<std::unique_ptr<CudaExecutor>> CudaExecutor::Create(
    const CudaDriverApi& api, int ordinal) {
  CUdevice device = 0;
  absl::Status status = CU_STATUS(api, cuDeviceGet, &device, ordinal);
  if (!status.ok()) return WithOrdinal(ordinal, status);
  absl::StatusOr<DeviceLimits> limits = ReadCudaDeviceLimits(api, device);
  if (!limits.ok()) return WithOrdinal(ordinal, limits.status());
  CudaComputeCapability cc;
  // The limits hold "<major>.<minor>", parsed back to keep one query path.
  absl::StatusOr<CudaComputeCapability> parsed =
      ParseCudaComputeCapability(limits->compute_capability);
  if (!parsed.ok()) return WithOrdinal(ordinal, parsed.status());
  cc = *parsed;
  int driver_version = 0;
  status = CU_STATUS(api, cuDriverGetVersion, &driver_version);
  if (!status.ok()) return WithOrdinal(ordinal, status);
  char name[256] = {};
  status = CU_STATUS(api, cuDeviceGetName, name, sizeof(name) - 1, device);
  if (!status.ok()) return WithOrdinal(ordinal, status);
  CUcontext context = nullptr;
  status = CU_STATUS(api, cuDevicePrimaryCtxRetain, &context, device);
  if (!status.ok()) return WithOrdinal(ordinal, status);
  status = CU_STATUS(api, cuCtxSetCurrent, context);
  if (!status.ok()) {
    (void)CU_STATUS(api, cuDevicePrimaryCtxRelease_v2, device);
    return WithOrdinal(ordinal, status);
  }
  return std::unique_ptr<CudaExecutor>(
      new CudaExecutor(api, ordinal, device, context, *std::move(limits), cc,
                       driver_version, name));
}

CudaExecutor::~CudaExecutor() {
  (void)CU_STATUS(api_, cuCtxSetCurrent, context_);
  {
    std::lock_guard<std::mutex> lock(capture_mu_);
    capture_streams_.clear();  // before the libraries its captures called
  }
  {
    std::lock_guard<std::mutex> lock(blas_mu_);
    cublas_lt_.reset();  // while the context is still retained
    cublas_.reset();
  }
  {
    std::lock_guard<std::mutex> lock(dnn_mu_);
    cudnn_.reset();
  }
  {
    std::lock_guard<std::mutex> lock(fft_mu_);
    fft_.reset();
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [pointer, size] : allocations_) {
      (void)CU_STATUS(api_, cuMemFree_v2, pointer);
    }
    for (const FreeBlock& block : cache_.Drain()) {
      (void)CU_STATUS(api_, cuMemFree_v2, reinterpret_cast<uintptr_t>(block.pointer));
    }
  }
  (void)CU_STATUS(api_, cuDevicePrimaryCtxRelease_v2, device_);
}

absl::StatusOr<DeviceMemoryBase> CudaExecutor::Allocate(uint64_t size) {
  if (size == 0) return DeviceMemoryBase();
  const std::string what =
      absl::StrCat("cannot allocate ", size, " bytes on CUDA device ", ordinal_);
  if (size > limits_.memory_size) {
    return absl::ResourceExhaustedError(absl::StrCat(
        what, ": the device has ", limits_.memory_size, " bytes of memory"));
  }
  std::unique_lock<std::mutex> lock(mu_);
  CUdeviceptr pointer = reinterpret_cast<uintptr_t>(cache_.Take(size));
  if (pointer == 0) {
    lock.unlock();
    absl::Status status = CU_STATUS(api_, cuCtxSetCurrent, context_);
    if (status.ok()) status = CU_STATUS(api_, cuMemAlloc_v2, &pointer, size);
    if (status.code() == absl::StatusCode::kResourceExhausted) {
      // Give the cached blocks back to the driver and try once more.
      lock.lock();
      std::vector<FreeBlock> cached = cache_.Drain();
      lock.unlock();
      if (!cached.empty()) {
        for (const FreeBlock& block : cached) {
          (void)CU_STATUS(api_, cuMemFree_v2, reinterpret_cast<uintptr_t>(block.pointer));
        }
        status = CU_STATUS(api_, cuMemAlloc_v2, &pointer, size);
      }
    }
    if (!status.ok()) {
      return absl::Status(status.code(), absl::StrCat(what, ": ", status.message()));
    }
    lock.lock();
  }
  allocations_.emplace(pointer, size);
  allocated_bytes_ += size;
  return DeviceMemoryBase(reinterpret_cast<void*>(pointer), size);
}

absl::StatusOr<void*> CudaExecutor::AllocateHost(uint64_t size) {
  if (size == 0) return nullptr;
  RETURN_IF_ERROR(CU_STATUS(api_, cuCtxSetCurrent, context_));
  void* memory = nullptr;
  absl::Status status = CU_STATUS(api_, cuMemHostAlloc, &memory, size, 0u);
  if (!status.ok()) {
    return absl::Status(status.code(), absl::StrCat("cannot allocate ", size,
                                                    " bytes of pinned host memory for CUDA "
                                                    "device ", ordinal_, ": ", status.message()));
  }
  return memory;
}

absl::Status CudaExecutor::DeallocateHost(void* memory) {
  if (memory == nullptr) return absl::OkStatus();
  RETURN_IF_ERROR(CU_STATUS(api_, cuCtxSetCurrent, context_));
  return CU_STATUS(api_, cuMemFreeHost, memory);
}

absl::Status CudaExecutor::Deallocate(DeviceMemoryBase memory) {
  if (memory.is_null()) return absl::OkStatus();
  const CUdeviceptr pointer = reinterpret_cast<uintptr_t>(memory.opaque);
  FreeBlock to_free[FreeBlockCache::kMaxEvicted];
  size_t n = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = allocations_.find(pointer);
    if (it == allocations_.end() || it->second != memory.size) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot deallocate ", memory.size, " bytes at 0x",
          absl::Hex(pointer), " on CUDA device ", ordinal_,
          ": not a live allocation of this device (freed twice, never "
          "allocated, or a slice)"));
    }
    allocated_bytes_ -= it->second;
    allocations_.erase(it);
    n = cache_.Put(FreeBlock{memory.opaque, memory.size}, to_free);
  }
  if (n == 0) return absl::OkStatus();
  RETURN_IF_ERROR(CU_STATUS(api_, cuCtxSetCurrent, context_));
  absl::Status status;
  for (size_t i = 0; i < n; ++i) {
    status.Update(CU_STATUS(api_, cuMemFree_v2, reinterpret_cast<uintptr_t>(to_free[i].pointer)));
  }
  return status;
}

uint64_t CudaExecutor::allocated_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return allocated_bytes_;
}

uint64_t CudaExecutor::cached_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cache_.cached_bytes();
}

absl::StatusOr<std::unique_ptr<Stream>> CudaExecutor::CreateStream() {
  ASSIGN_OR_RETURN(std::unique_ptr<CudaStream> stream,
                   CudaStream::Create(api_, context_, limits_, this));
  return std::unique_ptr<Stream>(std::move(stream));
}

absl::StatusOr<std::unique_ptr<Event>> CudaExecutor::CreateEvent() {
  ASSIGN_OR_RETURN(std::unique_ptr<CudaEvent> event,
                   CudaEvent::Create(api_, context_));
  return std::unique_ptr<Event>(std::move(event));
}

absl::StatusOr<std::unique_ptr<CommandBuffer>> CudaExecutor::CreateCommandBuffer(
    Stream* submit_stream) {
  absl::StatusOr<std::unique_ptr<CudaCommandBuffer>> buffer =
      CudaCommandBuffer::Create(api_, context_, this, submit_stream);
  if (!buffer.ok()) {
    return absl::Status(buffer.status().code(),
                        absl::StrCat("CUDA device ", ordinal_, " (", device_name_, ", driver ",
                                     driver_version_, "): ", buffer.status().message()));
  }
  return std::unique_ptr<CommandBuffer>(*std::move(buffer));
}

absl::StatusOr<CUgraph> CudaExecutor::CaptureCall(const DeviceCommand& command,
                                                  const Stream* submit_stream) {
  const bool gemm = command.kind == DeviceCommand::Kind::kGemm && command.args.size() == 3;
  const bool convolution = command.kind == DeviceCommand::Kind::kConvolution &&
                           command.convolution != nullptr && command.args.size() == 5;
  if (!gemm && !convolution) {
    return absl::InvalidArgumentError(absl::StrCat(
        DescribeCommand(command), ": only GEMMs and convolutions are captured as library calls"));
  }
  std::lock_guard<std::mutex> lock(capture_mu_);
  std::unique_ptr<CudaStream>& capture_stream = capture_streams_[submit_stream];
  if (capture_stream == nullptr) {
    ASSIGN_OR_RETURN(capture_stream, CudaStream::Create(api_, context_, limits_, this));
  }
  CudaStream& stream = *capture_stream;
  const CudaDriverApi* api = &api_;
  CUgraph graph = nullptr;  // written by the worker before the wait returns
  // Relaxed mode: other threads' calls are not constrained, and the
  // library may allocate its workspace for this stream during the capture
  // (cuBLASLt does at the stream's first GEMM).
  absl::Status status = stream.EnqueueDriverWork("begin capture", [api](CUstream s) {
    return CU_STATUS(*api, cuStreamBeginCapture_v2, s, CU_STREAM_CAPTURE_MODE_RELAXED);
  });
  if (status.ok()) {
    const auto& a = command.args;
    status = gemm ? Gemm(stream, command.gemm, a[0], a[1], a[2])
                  : Convolution(stream, *command.convolution, a[0], a[1], a[2], a[3], a[4]);
  }
  if (status.ok()) {
    status = stream.EnqueueDriverWork("end capture", [api, out = &graph](CUstream s) {
      return CU_STATUS(*api, cuStreamEndCapture, s, out);
    });
  }
  if (status.ok()) status = stream.BlockHostUntilDone();
  if (!status.ok()) {
    capture_streams_.erase(submit_stream);  // waits for its queued work
    if (graph != nullptr) (void)CU_STATUS(api_, cuGraphDestroy, graph);
    return absl::Status(status.code(), absl::StrCat("capturing ", DescribeCommand(command),
                                                    " on CUDA device ", ordinal_, ": ",
                                                    status.message()));
  }
  return graph;
}

absl::StatusOr<std::unique_ptr<KernelModule>> CudaExecutor::LoadKernelModule(
    absl::string_view name, absl::string_view bytes) {
  ASSIGN_OR_RETURN(std::unique_ptr<CudaKernelModule> module,
                   CudaKernelModule::Load(api_, context_, name, bytes));
  return std::unique_ptr<KernelModule>(std::move(module));
}

absl::Status CudaExecutor::InitializeBlas() {
  std::lock_guard<std::mutex> lock(blas_mu_);
  if (blas_initialized_) return blas_status_;
  blas_initialized_ = true;
  absl::StatusOr<const CublasLtApi*> lt = absl::FailedPreconditionError(
      "a test injected a classic cuBLAS table and no cuBLASLt one");
  if (CublasLtApiForTesting() != nullptr || CublasApiForTesting() == nullptr) {
    lt = LoadCublasLtApi();
  }
  if (lt.ok()) {
    absl::StatusOr<std::unique_ptr<CublasLtHandle>> handle =
        CublasLtHandle::Create(**lt, api_, context_);
    if (handle.ok()) {
      cublas_lt_ = *std::move(handle);
      return blas_status_;
    }
    lt_unavailable_ = absl::Status(
        handle.status().code(),
        absl::StrCat("cuBLASLt loaded but cannot create a handle: ",
                     handle.status().message()));
  } else {
    lt_unavailable_ = lt.status();
  }
  absl::StatusOr<const CublasApi*> api = LoadCublasApi();
  if (!api.ok()) {
    blas_status_ = absl::Status(
        api.status().code(),
        absl::StrCat("cannot initialize cuBLAS for CUDA device ", ordinal_,
                     " (GEMMs need it; install cuBLAS or point ",
                     kCublasLibraryEnv, " at libcublas.so): ",
                     api.status().message(), " [cuBLASLt was not used either: ",
                     lt_unavailable_.message(), "]"));
    return blas_status_;
  }
  absl::StatusOr<std::unique_ptr<CublasHandle>> handle =
      CublasHandle::Create(**api, api_, context_);
  if (!handle.ok()) {
    blas_status_ = absl::Status(
        handle.status().code(),
        absl::StrCat("cannot create a cuBLAS handle on CUDA device ", ordinal_,
                     ": ", handle.status().message()));
    return blas_status_;
  }
  cublas_ = *std::move(handle);
  return blas_status_;
}

std::string CudaExecutor::blas_backend() const {
  std::lock_guard<std::mutex> lock(blas_mu_);
  if (cublas_lt_ != nullptr) return "cuBLASLt";
  if (cublas_ != nullptr) return "cuBLAS";
  return "";
}

absl::Status CudaExecutor::cublaslt_unavailable_reason() const {
  std::lock_guard<std::mutex> lock(blas_mu_);
  return lt_unavailable_;
}

absl::Status CudaExecutor::Gemm(CudaStream& stream, const BlasGemmConfig& config,
                                const DeviceMemoryBase& lhs,
                                const DeviceMemoryBase& rhs,
                                const DeviceMemoryBase& out) {
  CublasLtHandle* lt = nullptr;
  CublasHandle* handle = nullptr;
  {
    std::lock_guard<std::mutex> lock(blas_mu_);
    lt = cublas_lt_.get();
    handle = cublas_.get();
  }
  if (lt != nullptr) return lt->Gemm(stream, config, lhs, rhs, out);
  if (handle == nullptr) {
    return stream.RejectAtEnqueue(
        "gemm", absl::FailedPreconditionError(absl::StrCat(
                    "cuBLAS is not initialized on CUDA device ", ordinal_,
                    ": call StreamExecutor::InitializeBlas first")));
  }
  return handle->Gemm(stream, config, lhs, rhs, out);
}

absl::StatusOr<CudnnHandle*> CudaExecutor::Cudnn() {
  std::lock_guard<std::mutex> lock(dnn_mu_);
  if (dnn_initialized_) {
    if (!dnn_status_.ok()) return dnn_status_;
    return cudnn_.get();
  }
  dnn_initialized_ = true;
  absl::StatusOr<const CudnnApi*> api = LoadCudnnApi();
  absl::StatusOr<std::unique_ptr<CudnnHandle>> handle =
      api.ok() ? CudnnHandle::Create(**api, api_, context_)
               : absl::StatusOr<std::unique_ptr<CudnnHandle>>(api.status());
  if (!handle.ok()) {
    dnn_status_ = absl::Status(
        handle.status().code(),
        absl::StrCat("cannot initialize cuDNN for CUDA device ", ordinal_,
                     " (this artifact's convolution thunks need it): ", handle.status().message()));
    return dnn_status_;
  }
  cudnn_ = *std::move(handle);
  return cudnn_.get();
}

absl::StatusOr<std::unique_ptr<DnnConvolutionPlan>> CudaExecutor::PrepareConvolution(
    const DnnConvolutionConfig& config, uint64_t workspace_limit) {
  ASSIGN_OR_RETURN(CudnnHandle* const cudnn, Cudnn());
  return cudnn->Prepare(config, workspace_limit);
}

absl::Status CudaExecutor::Convolution(CudaStream& stream, const DnnConvolutionPlan& plan,
                                       const DeviceMemoryBase& x, const DeviceMemoryBase& w,
                                       const DeviceMemoryBase& y,
                                       const DeviceMemoryBase& workspace,
                                       const DeviceMemoryBase& bias) {
  CudnnHandle* cudnn = nullptr;
  {
    std::lock_guard<std::mutex> lock(dnn_mu_);
    cudnn = cudnn_.get();
  }
  if (cudnn == nullptr) {
    return stream.RejectAtEnqueue(
        "convolution", absl::FailedPreconditionError(absl::StrCat(
                           "cuDNN is not initialized on CUDA device ", ordinal_,
                           ": call StreamExecutor::PrepareConvolution first")));
  }
  return cudnn->Convolution(stream, plan, x, w, y, workspace, bias);
}

absl::StatusOr<std::unique_ptr<FftPlan>> CudaExecutor::PrepareFft(const FftConfig& config) {
  CudaFft* fft = nullptr;
  {
    std::lock_guard<std::mutex> lock(fft_mu_);
    if (!fft_initialized_) {
      fft_initialized_ = true;
      absl::StatusOr<const CufftApi*> api = LoadCufftApi();
      absl::StatusOr<std::unique_ptr<CudaFft>> made =
          api.ok() ? CudaFft::Create(**api, api_, context_)
                   : absl::StatusOr<std::unique_ptr<CudaFft>>(api.status());
      if (made.ok()) {
        fft_ = *std::move(made);
      } else {
        fft_status_ = absl::Status(
            made.status().code(),
            absl::StrCat("cannot initialize cuFFT for CUDA device ", ordinal_,
                         " (this artifact's fft thunks need it): ", made.status().message()));
      }
    }
    if (!fft_status_.ok()) return fft_status_;
    fft = fft_.get();
  }
  return fft->Prepare(config);
}

absl::Status CudaExecutor::Fft(CudaStream& stream, const FftPlan& plan,
                               const DeviceMemoryBase& input, const DeviceMemoryBase& output,
                               const DeviceMemoryBase& workspace) {
  CudaFft* fft = nullptr;
  {
    std::lock_guard<std::mutex> lock(fft_mu_);
    fft = fft_.get();
  }
  if (fft == nullptr) {
    return stream.RejectAtEnqueue(
        "fft", absl::FailedPreconditionError(absl::StrCat(
                   "cuFFT is not initialized on CUDA device ", ordinal_,
                   ": call StreamExecutor::PrepareFft first")));
  }
  return fft->Fft(stream, plan, input, output, workspace);
}

absl::Status CudaExecutor::CheckDeviceCompatibility(
    absl::string_view required_cc, int required_driver_version,
    bool has_ptx) const {
  return CheckCudaCompatibility(cc_, driver_version_, required_cc,
                                required_driver_version, has_ptx);
}

std::map<std::string, std::string> CudaExecutor::toolchain_versions() const {
  return {{"cuda_driver",
           absl::StrCat(driver_version_ / 1000, ".", (driver_version_ % 1000) / 10)}};
}

}  // namespace stream_executor::cuda
