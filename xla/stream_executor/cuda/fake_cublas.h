// FakeCublas: a test double of the cuBLAS table (CublasApi) for the fake
// CUDA driver. It records every cublasGemmStridedBatchedEx call and, for
// f32, computes the numbers with the column-major BLAS definition on the
// fake device, in stream order (through the driver's cuLaunchHostFunc);
// other types are recorded only. Handles, streams and math modes are
// tracked so tests can check how the real code drives cuBLAS.
//
// Only one FakeCublas may exist at a time (its C entry points reach it
// through a global); constructing a second one aborts.
//
// Thread-safety: the fake's entry points and accessors may be called from
// any thread.
#ifndef XLA_STREAM_EXECUTOR_CUDA_FAKE_CUBLAS_H_
#define XLA_STREAM_EXECUTOR_CUDA_FAKE_CUBLAS_H_

#include <cublas_v2.h>

#include <memory>
#include <mutex>
#include <vector>

#include "xla/stream_executor/cuda/cublas_api.h"
#include "xla/stream_executor/cuda/cuda_driver_api.h"
#include "xla/stream_executor/cuda/cuda_gemm.h"

namespace stream_executor::cuda {

// What the fake cublasGemmStridedBatchedEx saw.
struct FakeCublasGemm {
  CublasGemmArgs args;
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  float alpha = 0, beta = 0;  // f32/f16/bf16 calls (f32 scalars)
  cublasGemmAlgo_t algo = CUBLAS_GEMM_DEFAULT;
  cudaStream_t stream = nullptr;  // bound with cublasSetStream_v2
};

class FakeCublas {
 public:
  // A fake running its f32 GEMMs on `driver` (the fake driver's table),
  // which must outlive this object.
  explicit FakeCublas(const CudaDriverApi& driver);
  ~FakeCublas();
  FakeCublas(const FakeCublas&) = delete;
  FakeCublas& operator=(const FakeCublas&) = delete;

  // The table; valid while this object lives.
  const CublasApi& api() const { return api_; }

  // Every GEMM call so far, in call order.
  std::vector<FakeCublasGemm> recorded() const;
  void ClearRecorded();
  // The math mode last set on any handle (CUBLAS_PEDANTIC_MATH before).
  cublasMath_t math_mode() const;
  // Handles created and not yet destroyed.
  int live_handles() const;
  // The next GEMM call returns `status` and does nothing.
  void FailNextGemm(cublasStatus_t status);

 private:
  friend struct FakeCublasEntryPoints;

  const CudaDriverApi& driver_;
  CublasApi api_;
  mutable std::mutex mu_;
  std::vector<FakeCublasGemm> recorded_;          // guarded by mu_
  cudaStream_t bound_stream_ = nullptr;           // guarded by mu_
  cublasMath_t math_mode_ = CUBLAS_PEDANTIC_MATH;  // guarded by mu_
  int live_handles_ = 0;                          // guarded by mu_
  cublasStatus_t next_gemm_status_ = CUBLAS_STATUS_SUCCESS;  // guarded by mu_
  // The GEMMs handed to the device, kept for the fake's lifetime: a call
  // captured into a CUDA graph runs at every launch of the graph.
  std::vector<std::unique_ptr<FakeCublasGemm>> enqueued_;  // guarded by mu_
};

// Row-major f32 reference of CudaGemmConfig's semantics, accumulating in
// double: out[b] = alpha * op(lhs[b]) op(rhs[b]) + beta * out[b] (at least
// one batch). For tests of the GEMM paths. Pure.
std::vector<float> RowMajorGemmReference(const CudaGemmConfig& c, const std::vector<float>& lhs,
                                         const std::vector<float>& rhs, std::vector<float> out);

}  // namespace stream_executor::cuda

#endif  // XLA_STREAM_EXECUTOR_CUDA_FAKE_CUBLAS_H_
