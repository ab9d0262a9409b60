// CudaFft: XLA's FFT (fft.h) on a CUDA device through cuFFT (cufft_api.h).
//
// Prepare makes one cuFFT plan per FftConfig (cufftMakePlanMany64 over the
// dense row-major layout, explicit inembed/onembed, unit stride, the
// transform's element count as distance, auto-allocation off); the plan
// gets a scratch of its work size per stream that runs it (cuMemAlloc on
// that stream's first run, freed with the plan).
// Fft enqueues, in stream order:
//   IRFFT: a device copy of the input into the workspace, because cuFFT's
//          complex-to-real transform overwrites its input, and the
//          transform then reads the copy (the program's input is never
//          written);
//   the cufftExec* call (cufftSetStream, cufftSetWorkArea first);
//   IFFT, IRFFT: a scale of the output by 1/prod(lengths). cuFFT's inverse
//          is unnormalized, XLA's is normalized (as host_fft). The scale is
//          a small PTX kernel (kFftScaleKernelPtx) that the driver JITs
//          once per CudaFft: multiplies `count` reals by the f32 (f64)
//          rounding of 1/n, in a grid-stride loop.
//
// Thread-safety: Prepare and Fft may be called from any thread. The
// SetStream, SetWorkArea and exec calls of one plan are serialized on the
// host (cuFFT binds a plan to one stream at a time); runs on different
// streams use different scratch, so they may overlap on the device.
#ifndef XLA_STREAM_EXECUTOR_CUDA_CUDA_FFT_H_
#define XLA_STREAM_EXECUTOR_CUDA_CUDA_FFT_H_

#include <cuda.h>

#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "xla/stream_executor/cuda/cuda_driver_api.h"
#include "xla/stream_executor/cuda/cuda_kernel_module.h"
#include "xla/stream_executor/cuda/cuda_stream.h"
#include "xla/stream_executor/cuda/cufft_api.h"
#include "xla/stream_executor/device_memory.h"
#include "xla/stream_executor/fft.h"

namespace stream_executor::cuda {

// The scale kernels' entry points: (u64 data, u64 count, u64 n), data[i] *=
// 1/n for i < count, f32 or f64 elements.
inline constexpr char kFftScaleF32Kernel[] = "xla_fft_scale_f32";
inline constexpr char kFftScaleF64Kernel[] = "xla_fft_scale_f64";
// The PTX module holding both (sm_70 and newer).
extern const char kFftScaleKernelPtx[];

class CudaFft {
 public:
  // Loads the scale kernels into `context`; `cufft`, `driver` and `context`
  // must outlive the object. The JIT's error when the PTX is refused.
  static absl::StatusOr<std::unique_ptr<CudaFft>> Create(const CufftApi& cufft,
                                                         const CudaDriverApi& driver,
                                                         CUcontext context);

  // Checks `config` (CheckFftConfig) and makes its cuFFT plan. The config
  // error, or cuFFT's ("cannot plan cuFFT <config>: cufftMakePlanMany64:
  // CUFFT_...").
  absl::StatusOr<std::unique_ptr<FftPlan>> Prepare(const FftConfig& config);

  // Enqueues `plan` (made by this object) on `stream`, with the error rules
  // of Stream::Fft: buffer errors and foreign plans are refused at enqueue
  // as the stream's sticky error; cuFFT's and the driver's errors (the
  // scratch allocation included) become the sticky error when the work runs.
  absl::Status Fft(CudaStream& stream, const FftPlan& plan, const DeviceMemoryBase& input,
                   const DeviceMemoryBase& output, const DeviceMemoryBase& workspace);

 private:
  CudaFft(const CufftApi& cufft, const CudaDriverApi& driver, CUcontext context,
          std::unique_ptr<CudaKernelModule> module, CUfunction scale_f32, CUfunction scale_f64)
      : cufft_(cufft),
        driver_(driver),
        context_(context),
        module_(std::move(module)),
        scale_f32_(scale_f32),
        scale_f64_(scale_f64) {}

  const CufftApi& cufft_;
  const CudaDriverApi& driver_;
  const CUcontext context_;
  const std::unique_ptr<CudaKernelModule> module_;
  const CUfunction scale_f32_;
  const CUfunction scale_f64_;
};

}  // namespace stream_executor::cuda

#endif  // XLA_STREAM_EXECUTOR_CUDA_CUDA_FFT_H_
