// FakeCufft: a test double of the cuFFT table (CufftApi) for the fake CUDA
// driver. Plans record what cufftMakePlanMany64 was given; cufftExec* runs a
// plain DFT in double on the fake device, in stream order (through the
// driver's cuLaunchHostFunc on the stream last bound with cufftSetStream),
// honouring the plan's n, inembed/istride/idist and onembed/ostride/odist,
// with real cuFFT's conventions: the inverse is not scaled, R2C keeps the
// last dimension's first n/2 + 1 coefficients, C2R reads that half
// spectrum (the rest by Hermitian symmetry, the real part of the result)
// and then overwrites its input with garbage, as cuFFT may. Without
// auto-allocation an exec needs a work area (CUFFT_NO_WORKSPACE otherwise)
// and scribbles over the plan's reported work size of it.
//
// Constructing it also registers on the fake driver the host versions of
// CudaFft's scale kernels (kFftScaleF32Kernel, kFftScaleF64Kernel).
//
// Only one FakeCufft may exist at a time (its C entry points reach it
// through a global); constructing a second one aborts.
//
// Thread-safety: the entry points and accessors may be called from any
// thread.
#ifndef XLA_STREAM_EXECUTOR_CUDA_FAKE_CUFFT_H_
#define XLA_STREAM_EXECUTOR_CUDA_FAKE_CUFFT_H_

#include <cufft.h>

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "xla/stream_executor/cuda/cufft_api.h"
#include "xla/stream_executor/cuda/fake_cuda_driver.h"

namespace stream_executor::cuda {

// A plan as cufftMakePlanMany64 saw it (rank 0 before that call).
struct FakeCufftPlan {
  int rank = 0;
  std::vector<long long> n, inembed, onembed;
  long long istride = 1, idist = 0, ostride = 1, odist = 0, batch = 0;
  cufftType type = CUFFT_C2C;
  bool auto_allocate = true;
  void* work_area = nullptr;
  size_t work_size = 0;
  cudaStream_t stream = nullptr;
};

// One cufftExec* call.
struct FakeCufftExec {
  FakeCufftPlan plan;
  int direction = 0;  // CUFFT_FORWARD / CUFFT_INVERSE; R2C -1, C2R +1
  void* input = nullptr;
  void* output = nullptr;
};

class FakeCufft {
 public:
  // `driver` must outlive this object.
  explicit FakeCufft(FakeCudaDriver& driver);
  ~FakeCufft();
  FakeCufft(const FakeCufft&) = delete;
  FakeCufft& operator=(const FakeCufft&) = delete;

  // The table; valid while this object lives.
  const CufftApi& api() const { return api_; }

  // Every exec so far, in call order.
  std::vector<FakeCufftExec> executions() const;
  // Plans created and not yet destroyed.
  int live_plans() const;
  // The next cufftMakePlanMany64 returns `result` and does nothing.
  void FailNextPlan(cufftResult result);

 private:
  friend struct FakeCufftEntryPoints;

  FakeCudaDriver& driver_;
  CufftApi api_;
  mutable std::mutex mu_;
  std::map<cufftHandle, FakeCufftPlan> plans_;       // guarded by mu_
  cufftHandle next_handle_ = 1;                      // guarded by mu_
  std::vector<FakeCufftExec> executions_;            // guarded by mu_
  cufftResult next_plan_result_ = CUFFT_SUCCESS;     // guarded by mu_
  // The calls handed to the device, kept for the fake's lifetime: a call
  // captured into a CUDA graph runs at every launch of the graph.
  std::vector<std::unique_ptr<FakeCufftExec>> enqueued_;  // guarded by mu_
};

}  // namespace stream_executor::cuda

#endif  // XLA_STREAM_EXECUTOR_CUDA_FAKE_CUFFT_H_
