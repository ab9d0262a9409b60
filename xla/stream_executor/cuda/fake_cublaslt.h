// FakeCublasLt: a test double of the cuBLASLt table (CublasLtApi) for the
// fake CUDA driver. Descriptors are host objects that keep every attribute
// set on them; cublasLtMatmulAlgoGetHeuristic answers one algorithm (or
// none, on request) and records the preference; cublasLtMatmul checks that
// the layouts agree with the transposes, records the call and, for f32,
// computes the numbers with the column-major BLAS definition on the fake
// device in stream order (cuLaunchHostFunc). FP8 GEMMs (A or B of type
// CUDA_R_8F_E4M3 / CUDA_R_8F_E5M2) are checked like the real library does
// -- both fp8, not both e5m2, TN (transa T, transb N), f32 compute and
// scale types, C/D f16, bf16 or f32, m, n, k and lds multiples of 16,
// 16-byte alignment in the preference and of the pointers; anything else
// answers CUBLAS_STATUS_NOT_SUPPORTED -- and computed: elements decoded
// with xla/types/float_format, multiplied by the A/B scale pointers' f32
// values (CUBLASLT_MATMUL_DESC_A/B_SCALE_POINTER; none: 1), accumulated in
// f32, D rounded to its type. Other types are recorded only.
//
// Only one FakeCublasLt may exist at a time (its C entry points reach it
// through a global); constructing a second one aborts.
//
// Thread-safety: the fake's entry points and accessors may be called from
// any thread.
#ifndef XLA_STREAM_EXECUTOR_CUDA_FAKE_CUBLASLT_H_
#define XLA_STREAM_EXECUTOR_CUDA_FAKE_CUBLASLT_H_

#include <cublasLt.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "xla/stream_executor/cuda/cublaslt_api.h"
#include "xla/stream_executor/cuda/cuda_blaslt_gemm.h"
#include "xla/stream_executor/cuda/cuda_driver_api.h"

namespace stream_executor::cuda {

// The heuristic preference the fake saw.
struct FakeCublasLtPreference {
  uint64_t max_workspace_bytes = 0;
  uint32_t min_alignment[4] = {256, 256, 256, 256};  // A, B, C, D
};

// What the fake cublasLtMatmul saw, descriptors decoded into a plan.
struct FakeCublasLtMatmul {
  CublasLtGemmPlan plan;
  const void* a = nullptr;
  const void* b = nullptr;
  const void* c = nullptr;
  void* d = nullptr;
  const void* a_scale = nullptr;  // fp8 scale pointers as set on the desc
  const void* b_scale = nullptr;
  float alpha = 0, beta = 0;  // f32 scale type
  double alpha64 = 0, beta64 = 0;  // f64 scale type
  uint64_t algo_id = 0;  // algo.data[0] as the heuristic answered
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  cudaStream_t stream = nullptr;
};

class FakeCublasLt {
 public:
  // The id the fake heuristic puts in algo.data[0].
  static constexpr uint64_t kAlgoId = 0x5eed;

  // A fake running its f32 GEMMs on `driver` (the fake driver's table),
  // which must outlive this object.
  explicit FakeCublasLt(const CudaDriverApi& driver);
  ~FakeCublasLt();
  FakeCublasLt(const FakeCublasLt&) = delete;
  FakeCublasLt& operator=(const FakeCublasLt&) = delete;

  // The table; valid while this object lives.
  const CublasLtApi& api() const { return api_; }

  // Every cublasLtMatmul call so far, in call order.
  std::vector<FakeCublasLtMatmul> matmuls() const;
  // Every heuristic query's preference, in call order.
  std::vector<FakeCublasLtPreference> heuristic_queries() const;
  // Handles, and descriptors of any kind, created and not yet destroyed.
  int live_handles() const;
  int live_descriptors() const;
  // The next cublasLtMatmul returns `status` and does nothing.
  void FailNextMatmul(cublasStatus_t status);
  // Heuristic queries return no algorithm from now on.
  void AnswerNoAlgorithm();
  // cublasLtCreate returns `status` (no handle) from now on.
  void FailCreate(cublasStatus_t status);

 private:
  friend struct FakeCublasLtEntryPoints;

  const CudaDriverApi& driver_;
  CublasLtApi api_;
  mutable std::mutex mu_;
  std::vector<FakeCublasLtMatmul> matmuls_;              // guarded by mu_
  std::vector<FakeCublasLtPreference> queries_;          // guarded by mu_
  int live_handles_ = 0;                                 // guarded by mu_
  int live_descriptors_ = 0;                             // guarded by mu_
  cublasStatus_t next_matmul_status_ = CUBLAS_STATUS_SUCCESS;  // guarded by mu_
  bool no_algorithm_ = false;                            // guarded by mu_
  cublasStatus_t create_status_ = CUBLAS_STATUS_SUCCESS;  // guarded by mu_
  // The calls handed to the device, kept for the fake's lifetime: a call
  // captured into a CUDA graph runs at every launch of the graph.
  std::vector<std::unique_ptr<FakeCublasLtMatmul>> enqueued_;  // guarded by mu_
};

}  // namespace stream_executor::cuda

#endif  // XLA_STREAM_EXECUTOR_CUDA_FAKE_CUBLASLT_H_
