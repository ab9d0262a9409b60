// CudaExecutor: one CUDA device (see stream_executor.h), on the device's
// primary context.
//
// Memory comes from cuMemAlloc (256-byte aligned by the driver); the
// executor tracks live allocations so Deallocate can reject slices and
// double frees. Deallocated blocks go to a FreeBlockCache
// (free_block_cache.h, DefaultFreeBlockCacheBytes of the device's memory)
// and serve the next request of the same size without cuMemAlloc or
// cuMemFree (which synchronizes); when cuMemAlloc fails, the cache is freed
// and the request tried once more. Limits come from the device attributes (ReadCudaDeviceLimits).
// InitializeBlas picks the device's GEMM library once: cuBLASLt
// (LoadCublasLtApi, one CublasLtHandle) when it works, classic cuBLAS
// (LoadCublasApi, one CublasHandle) otherwise; blas_backend() says which.
// The executor's streams run Stream::Gemm on it. PrepareConvolution loads
// cuDNN (LoadCudnnApi, one CudnnHandle) on first use; the streams run
// Stream::Convolution on it. PrepareFft loads cuFFT (LoadCufftApi, one
// CudaFft) on first use; the streams run Stream::Fft on it.
//
// Thread-safety: every method may be called from any thread.
#ifndef XLA_STREAM_EXECUTOR_CUDA_CUDA_EXECUTOR_H_
#define XLA_STREAM_EXECUTOR_CUDA_CUDA_EXECUTOR_H_

#include <cuda.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "xla/stream_executor/cuda/cuda_blaslt_gemm.h"
#include "xla/stream_executor/cuda/cuda_command_buffer.h"
#include "xla/stream_executor/cuda/cuda_compatibility.h"
#include "xla/stream_executor/cuda/cuda_dnn.h"
#include "xla/stream_executor/cuda/cuda_driver_api.h"
#include "xla/stream_executor/cuda/cuda_fft.h"
#include "xla/stream_executor/cuda/cuda_gemm.h"
#include "xla/stream_executor/cuda/cuda_stream.h"
#include "xla/stream_executor/free_block_cache.h"
#include "xla/stream_executor/stream_executor.h"

namespace stream_executor::cuda {

// The limits of `device` from its attributes (threads and dims per block,
// grid dims, shared memory per block, warp size, compute capability) and
// cuDeviceTotalMem. The driver's error when a query fails.
absl::StatusOr<DeviceLimits> ReadCudaDeviceLimits(const CudaDriverApi& api,
                                                  CUdevice device);

class CudaExecutor : public StreamExecutor, private CudaBlas, private CudaCallCapturer {
 public:
  static constexpr char kPlatformName[] = "cuda";

  // Opens device `ordinal`: retains its primary context and reads its
  // limits, compute capability and the driver version. cuInit must have
  // succeeded. The driver's error, naming the ordinal, when a call fails.
  static absl::StatusOr<std::unique_ptr<CudaExecutor>> Create(
      const CudaDriverApi& api, int ordinal);
  // Frees what is still allocated and releases the primary context.
  ~CudaExecutor() override;

  absl::string_view platform_name() const override { return kPlatformName; }
  int device_ordinal() const override { return ordinal_; }
  const DeviceLimits& limits() const override { return limits_; }

  absl::StatusOr<DeviceMemoryBase> Allocate(uint64_t size) override;
  absl::Status Deallocate(DeviceMemoryBase memory) override;
  uint64_t allocated_bytes() const override;
  // Bytes of freed blocks held for reuse (not counted in allocated_bytes).
  uint64_t cached_bytes() const;
  // Pinned host memory from cuMemHostAlloc (flags 0: with unified
  // addressing its address is also a device address) on this device's
  // context, and cuMemFreeHost. ResourceExhausted naming the size and the
  // device when the driver has none; the driver's error otherwise.
  absl::StatusOr<void*> AllocateHost(uint64_t size) override;
  absl::Status DeallocateHost(void* memory) override;

  absl::StatusOr<std::unique_ptr<Stream>> CreateStream() override;
  absl::StatusOr<std::unique_ptr<Event>> CreateEvent() override;
  absl::StatusOr<std::unique_ptr<KernelModule>> LoadKernelModule(
      absl::string_view name, absl::string_view bytes) override;
  // A CudaCommandBuffer (a CUDA graph) on this device's context.
  // FailedPrecondition naming the missing entry point and this device when
  // the driver has no graph API (CUDA graphs are then off); the driver's
  // error otherwise.
  absl::StatusOr<std::unique_ptr<CommandBuffer>> CreateCommandBuffer(
      Stream* submit_stream = nullptr) override;
  // Whether the driver has the stream-capture API (HasCudaGraphCaptureApi):
  // then this device's command buffers take GEMMs and convolutions, each
  // captured as a child graph on a capture stream of this executor, one
  // per submit stream (CaptureCall: a captured cuBLASLt call keeps the
  // workspace of the stream it was captured on, so graphs that may run
  // concurrently never share one; captures take turns on a device).
  bool CommandBuffersCaptureLibraryCalls() const override { return HasCudaGraphCaptureApi(api_); }

  // Picks and opens the device's GEMM library, once (later calls return
  // the first result): cuBLASLt when LoadCublasLtApi succeeds and
  // cublasLtCreate works, else classic cuBLAS. A test that injected only a
  // classic table (SetCublasApiForTesting, no SetCublasLtApiForTesting)
  // gets classic cuBLAS. FailedPrecondition naming cuBLAS, the device, what
  // to do and why cuBLASLt was not used when neither works; cuBLAS's error
  // when its handle cannot be created. Thread-safe.
  absl::Status InitializeBlas() override;

  // Opens cuDNN for this device on the first call (later calls reuse the
  // handle, or return the first failure), then CudnnHandle::Prepare.
  // FailedPrecondition naming cuDNN, the device and what to do when the
  // library cannot be loaded; see stream_executor.h for the rest.
  absl::StatusOr<std::unique_ptr<DnnConvolutionPlan>> PrepareConvolution(
      const DnnConvolutionConfig& config, uint64_t workspace_limit) override;

  // Opens cuFFT for this device on the first call (later calls reuse it, or
  // return the first failure), then CudaFft::Prepare. FailedPrecondition
  // naming cuFFT, the device and what to do when the library cannot be
  // loaded; see stream_executor.h for the rest.
  absl::StatusOr<std::unique_ptr<FftPlan>> PrepareFft(const FftConfig& config) override;

  // "cuBLASLt" or "cuBLAS" once InitializeBlas succeeded, "" before (or
  // after it failed). Thread-safe.
  std::string blas_backend() const;
  // Why cuBLASLt is not the backend (its loader's error, or the testing
  // override); OK while it is or before InitializeBlas. Thread-safe.
  absl::Status cublaslt_unavailable_reason() const;

  // The device's compute capability (cuDeviceGetAttribute).
  const CudaComputeCapability& compute_capability() const { return cc_; }
  // The driver's CUDA version (cuDriverGetVersion), e.g. 12040 for 12.4.
  int driver_version() const { return driver_version_; }
  // {"cuda_driver": "<major>.<minor>"} from driver_version() (12040 -> "12.4").
  std::map<std::string, std::string> toolchain_versions() const override;
  // The device name (cuDeviceGetName), for messages.
  const std::string& device_name() const { return device_name_; }

  // CheckCudaCompatibility against this device and driver (see
  // cuda_compatibility.h): FailedPrecondition naming both values when the
  // device's compute capability does not match `required_cc` (e.g. "sm_90")
  // or the driver is older than `required_driver_version` (e.g. 12040).
  absl::Status CheckDeviceCompatibility(absl::string_view required_cc,
                                        int required_driver_version,
                                        bool has_ptx = true) const;

  const CudaDriverApi& api() const { return api_; }
  CUcontext context() const { return context_; }

 private:
  CudaExecutor(const CudaDriverApi& api, int ordinal, CUdevice device,
               CUcontext context, DeviceLimits limits, CudaComputeCapability cc,
               int driver_version, std::string device_name)
      : api_(api),
        ordinal_(ordinal),
        device_(device),
        context_(context),
        limits_(std::move(limits)),
        cc_(cc),
        driver_version_(driver_version),
        device_name_(std::move(device_name)),
        cache_(DefaultFreeBlockCacheBytes(limits_.memory_size)) {}

  const CudaDriverApi& api_;
  const int ordinal_;
  const CUdevice device_;
  const CUcontext context_;
  const DeviceLimits limits_;
  const CudaComputeCapability cc_;
  const int driver_version_;
  const std::string device_name_;

  // CudaBlas: the GEMM of this executor's streams, on cublas_lt_ or cublas_.
  // FailedPrecondition when InitializeBlas has not succeeded.
  absl::Status Gemm(CudaStream& stream, const BlasGemmConfig& config,
                    const DeviceMemoryBase& lhs, const DeviceMemoryBase& rhs,
                    const DeviceMemoryBase& out) override;

  // CudaBlas: the convolutions of this executor's streams, on cudnn_.
  absl::Status Convolution(CudaStream& stream, const DnnConvolutionPlan& plan,
                           const DeviceMemoryBase& x, const DeviceMemoryBase& w,
                           const DeviceMemoryBase& y, const DeviceMemoryBase& workspace,
                           const DeviceMemoryBase& bias) override;
  // The cuDNN handle, opened once; its error when that failed.
  absl::StatusOr<CudnnHandle*> Cudnn();

  // CudaBlas: the FFTs of this executor's streams, on fft_.
  absl::Status Fft(CudaStream& stream, const FftPlan& plan, const DeviceMemoryBase& input,
                   const DeviceMemoryBase& output, const DeviceMemoryBase& workspace) override;

  // CudaCallCapturer: `command` (a kGemm or kConvolution) captured on the
  // capture stream of `submit_stream` (created at its first capture). A
  // failed capture drops that stream (its sticky error would fail every
  // later capture).
  absl::StatusOr<CUgraph> CaptureCall(const DeviceCommand& command,
                                      const Stream* submit_stream) override;

  std::mutex capture_mu_;
  // By submit stream (null: buffers made without one).
  absl::flat_hash_map<const Stream*, std::unique_ptr<CudaStream>>
      capture_streams_;  // guarded by capture_mu_

  std::mutex fft_mu_;
  bool fft_initialized_ = false;     // guarded by fft_mu_
  absl::Status fft_status_;          // guarded by fft_mu_
  std::unique_ptr<CudaFft> fft_;     // guarded by fft_mu_; set once

  std::mutex dnn_mu_;
  bool dnn_initialized_ = false;         // guarded by dnn_mu_
  absl::Status dnn_status_;              // guarded by dnn_mu_
  std::unique_ptr<CudnnHandle> cudnn_;   // guarded by dnn_mu_; set once

  mutable std::mutex blas_mu_;
  bool blas_initialized_ = false;          // guarded by blas_mu_
  absl::Status blas_status_;               // guarded by blas_mu_
  absl::Status lt_unavailable_;            // guarded by blas_mu_
  std::unique_ptr<CublasLtHandle> cublas_lt_;  // guarded by blas_mu_; set once
  std::unique_ptr<CublasHandle> cublas_;   // guarded by blas_mu_; set once

  mutable std::mutex mu_;
  absl::flat_hash_map<CUdeviceptr, uint64_t> allocations_;  // guarded by mu_
  uint64_t allocated_bytes_ = 0;                            // guarded by mu_
  FreeBlockCache cache_;                                    // guarded by mu_
};

}  // namespace stream_executor::cuda

#endif  // XLA_STREAM_EXECUTOR_CUDA_CUDA_EXECUTOR_H_
