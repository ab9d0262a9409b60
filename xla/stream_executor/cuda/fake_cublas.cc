#include "xla/stream_executor/cuda/fake_cublas.h"

#include <algorithm>
#include <atomic>

#include "xla/types/float_format.h"
#include "xla/util/logging.h"

namespace stream_executor::cuda {
namespace {

std::atomic<FakeCublas*> active{nullptr};
int handle_storage;

// Column-major BLAS: C[i + j*ldc] = alpha * sum_l opA(i,l) opB(l,j) + beta C,
// with op(X)(r,c) = X[r + c*ld] (N) or X[c + r*ld] (T). f32 only.
// With CUBLAS_COMPUTE_32F_FAST_TF32 every operand element is first rounded
// to TF32 (xla::RoundToTf32), as tensor cores read it; products still
// accumulate in (at least) f32.
void ColumnMajorGemm(const FakeCublasGemm& g) {
  const CublasGemmArgs& p = g.args;
  const bool tf32 = p.compute_type == CUBLAS_COMPUTE_32F_FAST_TF32;
  auto Operand = [tf32](float v) { return tf32 ? xla::RoundToTf32(v) : v; };
  for (int batch = 0; batch < p.batch_count; ++batch) {
    const float* a = static_cast<const float*>(g.a) + batch * p.stride_a;
    const float* b = static_cast<const float*>(g.b) + batch * p.stride_b;
    float* c = static_cast<float*>(g.c) + batch * p.stride_c;
    for (int i = 0; i < p.m; ++i) {
      for (int j = 0; j < p.n; ++j) {
        double sum = 0;
        for (int l = 0; l < p.k; ++l) {
          const float av = Operand(p.transa == CUBLAS_OP_N ? a[i + l * p.lda] : a[l + i * p.lda]);
          const float bv = Operand(p.transb == CUBLAS_OP_N ? b[l + j * p.ldb] : b[j + l * p.ldb]);
          sum += static_cast<double>(av) * bv;
        }
        float& out = c[i + j * p.ldc];
        out = static_cast<float>(g.alpha * sum + (g.beta == 0 ? 0.0 : g.beta * out));
      }
    }
  }
}

FakeCublas& Active() {
  FakeCublas* fake = active.load();
  XLA_CHECK(fake != nullptr) << "a fake cuBLAS entry point ran with no FakeCublas alive";
  return *fake;
}

}  // namespace

// The C entry points; a friend so they reach the fake's state.
struct FakeCublasEntryPoints {
  static cublasStatus_t Create(cublasHandle_t* handle) {
    FakeCublas& fake = Active();
    std::lock_guard<std::mutex> lock(fake.mu_);
    ++fake.live_handles_;
    *handle = reinterpret_cast<cublasHandle_t>(&handle_storage);
    return CUBLAS_STATUS_SUCCESS;
  }
  static cublasStatus_t Destroy(cublasHandle_t) {
    FakeCublas& fake = Active();
    std::lock_guard<std::mutex> lock(fake.mu_);
    --fake.live_handles_;
    return CUBLAS_STATUS_SUCCESS;
  }
  static cublasStatus_t SetStream(cublasHandle_t, cudaStream_t stream) {
    FakeCublas& fake = Active();
    std::lock_guard<std::mutex> lock(fake.mu_);
    fake.bound_stream_ = stream;
    return CUBLAS_STATUS_SUCCESS;
  }
  static cublasStatus_t SetMathMode(cublasHandle_t, cublasMath_t mode) {
    FakeCublas& fake = Active();
    std::lock_guard<std::mutex> lock(fake.mu_);
    fake.math_mode_ = mode;
    return CUBLAS_STATUS_SUCCESS;
  }
  static cublasStatus_t GetVersion(cublasHandle_t, int* version) {
    *version = 120400;
    return CUBLAS_STATUS_SUCCESS;
  }
  static const char* StatusName(cublasStatus_t status) {
    return status == CUBLAS_STATUS_EXECUTION_FAILED ? "CUBLAS_STATUS_EXECUTION_FAILED"
                                                    : "CUBLAS_STATUS_OTHER";
  }
  static const char* StatusString(cublasStatus_t) { return "the fake says no"; }

  static cublasStatus_t Gemm(cublasHandle_t, cublasOperation_t transa,
                             cublasOperation_t transb, int m, int n, int k,
                             const void* alpha, const void* a, cudaDataType a_type,
                             int lda, long long stride_a, const void* b,
                             cudaDataType b_type, int ldb, long long stride_b,
                             const void* beta, void* c, cudaDataType c_type, int ldc,
                             long long stride_c, int batch, cublasComputeType_t compute,
                             cublasGemmAlgo_t algo) {
    FakeCublas& fake = Active();
    auto* g = new FakeCublasGemm();
    {
      std::lock_guard<std::mutex> lock(fake.mu_);
      if (fake.next_gemm_status_ != CUBLAS_STATUS_SUCCESS) {
        const cublasStatus_t status = fake.next_gemm_status_;
        fake.next_gemm_status_ = CUBLAS_STATUS_SUCCESS;
        delete g;
        return status;
      }
      if (a_type != b_type || a_type != c_type) {
        delete g;
        return CUBLAS_STATUS_INVALID_VALUE;
      }
      g->args = {transa, transb, m, n, k, lda, ldb, ldc, stride_a, stride_b,
                 stride_c, batch, a_type, compute};
      g->a = a;
      g->b = b;
      g->c = c;
      g->algo = algo;
      if (compute != CUBLAS_COMPUTE_64F) {
        g->alpha = *static_cast<const float*>(alpha);
        g->beta = *static_cast<const float*>(beta);
      }
      g->stream = fake.bound_stream_;
      fake.recorded_.push_back(*g);
    }
    if (a_type != CUDA_R_32F) {
      delete g;
      return CUBLAS_STATUS_SUCCESS;
    }
    // Runs in stream order on the fake device, like the real kernel.
    const CUresult result = fake.driver_.cuLaunchHostFunc(
        reinterpret_cast<CUstream>(g->stream),
        [](void* data) {
          auto* gemm = static_cast<FakeCublasGemm*>(data);
          ColumnMajorGemm(*gemm);
        },
        g);
    if (result != CUDA_SUCCESS) {
      delete g;
      return CUBLAS_STATUS_EXECUTION_FAILED;
    }
    std::lock_guard<std::mutex> lock(fake.mu_);
    fake.enqueued_.emplace_back(g);
    return CUBLAS_STATUS_SUCCESS;
  }
};

FakeCublas::FakeCublas(const CudaDriverApi& driver) : driver_(driver) {
  FakeCublas* expected = nullptr;
  XLA_CHECK(active.compare_exchange_strong(expected, this))
      << "only one FakeCublas may exist at a time";
  api_.cublasCreate_v2 = &FakeCublasEntryPoints::Create;
  api_.cublasDestroy_v2 = &FakeCublasEntryPoints::Destroy;
  api_.cublasSetStream_v2 = &FakeCublasEntryPoints::SetStream;
  api_.cublasSetMathMode = &FakeCublasEntryPoints::SetMathMode;
  api_.cublasGetVersion_v2 = &FakeCublasEntryPoints::GetVersion;
  api_.cublasGetStatusName = &FakeCublasEntryPoints::StatusName;
  api_.cublasGetStatusString = &FakeCublasEntryPoints::StatusString;
  api_.cublasGemmStridedBatchedEx = &FakeCublasEntryPoints::Gemm;
}

FakeCublas::~FakeCublas() { active.store(nullptr); }

std::vector<FakeCublasGemm> FakeCublas::recorded() const {
  std::lock_guard<std::mutex> lock(mu_);
  return recorded_;
}

void FakeCublas::ClearRecorded() {
  std::lock_guard<std::mutex> lock(mu_);
  recorded_.clear();
}

cublasMath_t FakeCublas::math_mode() const {
  std::lock_guard<std::mutex> lock(mu_);
  return math_mode_;
}

int FakeCublas::live_handles() const {
  std::lock_guard<std::mutex> lock(mu_);
  return live_handles_;
}

void FakeCublas::FailNextGemm(cublasStatus_t status) {
  std::lock_guard<std::mutex> lock(mu_);
  next_gemm_status_ = status;
}

std::vector<float> RowMajorGemmReference(const CudaGemmConfig& c, const std::vector<float>& lhs,
                                         const std::vector<float>& rhs, std::vector<float> out) {
  for (int64_t b = 0; b < std::max<int64_t>(c.batch_size, 1); ++b) {
    for (int64_t i = 0; i < c.m; ++i) {
      for (int64_t j = 0; j < c.n; ++j) {
        double sum = 0;
        for (int64_t l = 0; l < c.k; ++l) {
          const float x = c.transpose_lhs ? lhs[b * c.lhs_batch_stride + l * c.m + i]
                                          : lhs[b * c.lhs_batch_stride + i * c.k + l];
          const float y = c.transpose_rhs ? rhs[b * c.rhs_batch_stride + j * c.k + l]
                                          : rhs[b * c.rhs_batch_stride + l * c.n + j];
          sum += static_cast<double>(x) * y;
        }
        float& o = out[b * c.output_batch_stride + i * c.n + j];
        o = static_cast<float>(c.alpha * sum + c.beta * o);
      }
    }
  }
  return out;
}

}  // namespace stream_executor::cuda
