#include "xla/stream_executor/cuda/fake_cublaslt.h"

#include <atomic>
#include <cstring>

#include "xla/util/logging.h"

namespace stream_executor::cuda {
namespace {

std::atomic<FakeCublasLt*> active{nullptr};
int handle_storage;

FakeCublasLt& Active() {
  FakeCublasLt* fake = active.load();
  XLA_CHECK(fake != nullptr)
      << "a fake cuBLASLt entry point ran with no FakeCublasLt alive";
  return *fake;
}

// The host objects behind the opaque descriptor pointers.
struct FakeMatmulDesc {
  cublasComputeType_t compute_type;
  cudaDataType scale_type;
  int32_t transa = CUBLAS_OP_N;
  int32_t transb = CUBLAS_OP_N;
};
struct FakeLayout {
  CublasLtLayout layout;
};
struct FakePreference {
  FakeCublasLtPreference preference;
};

// Copies an attribute value of exactly sizeof(T) bytes.
template <typename T>
cublasStatus_t Read(const void* buf, size_t size, T& out) {
  if (buf == nullptr || size != sizeof(T)) return CUBLAS_STATUS_INVALID_VALUE;
  std::memcpy(&out, buf, sizeof(T));
  return CUBLAS_STATUS_SUCCESS;
}

// Column-major BLAS on the stored layouts: D = alpha op(A) op(B) + beta C,
// op(X)(r, c) = X[r + c*ld] (N) or X[c + r*ld] (T). f32 only.
void ColumnMajorMatmul(const FakeCublasLtMatmul& call) {
  const CublasLtGemmPlan& p = call.plan;
  const bool ta = p.transa != CUBLAS_OP_N;
  const bool tb = p.transb != CUBLAS_OP_N;
  const uint64_t m = p.c.rows, n = p.c.cols;
  const uint64_t k = ta ? p.a.rows : p.a.cols;
  for (int32_t batch = 0; batch < p.c.batch_count; ++batch) {
    const float* a = static_cast<const float*>(call.a) + batch * p.a.batch_stride;
    const float* b = static_cast<const float*>(call.b) + batch * p.b.batch_stride;
    const float* c = static_cast<const float*>(call.c) + batch * p.c.batch_stride;
    float* d = static_cast<float*>(call.d) + batch * p.c.batch_stride;
    for (uint64_t i = 0; i < m; ++i) {
      for (uint64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (uint64_t l = 0; l < k; ++l) {
          const float av = ta ? a[l + i * p.a.ld] : a[i + l * p.a.ld];
          const float bv = tb ? b[j + l * p.b.ld] : b[l + j * p.b.ld];
          sum += static_cast<double>(av) * bv;
        }
        const double old = call.beta == 0 ? 0.0 : call.beta * c[i + j * p.c.ld];
        d[i + j * p.c.ld] = static_cast<float>(call.alpha * sum + old);
      }
    }
  }
}

// True when op(A) (m x k), op(B) (k x n) and C (m x n) agree.
bool ShapesAgree(const CublasLtGemmPlan& p) {
  const bool ta = p.transa != CUBLAS_OP_N;
  const bool tb = p.transb != CUBLAS_OP_N;
  const uint64_t m = ta ? p.a.cols : p.a.rows, k = ta ? p.a.rows : p.a.cols;
  const uint64_t kb = tb ? p.b.cols : p.b.rows, n = tb ? p.b.rows : p.b.cols;
  const bool batches = p.a.batch_count == p.c.batch_count &&
                       p.b.batch_count == p.c.batch_count;
  const bool lds = p.a.ld >= static_cast<int64_t>(p.a.rows) &&
                   p.b.ld >= static_cast<int64_t>(p.b.rows) &&
                   p.c.ld >= static_cast<int64_t>(p.c.rows);
  return k == kb && m == p.c.rows && n == p.c.cols && batches && lds &&
         p.a.type == p.c.type && p.b.type == p.c.type;
}

}  // namespace

// The C entry points; a friend so they reach the fake's state.
struct FakeCublasLtEntryPoints {
  static void Count(int FakeCublasLt::*counter, int delta) {
    FakeCublasLt& fake = Active();
    std::lock_guard<std::mutex> lock(fake.mu_);
    fake.*counter += delta;
  }
  static cublasStatus_t Create(cublasLtHandle_t* handle) {
    {
      FakeCublasLt& fake = Active();
      std::lock_guard<std::mutex> lock(fake.mu_);
      if (fake.create_status_ != CUBLAS_STATUS_SUCCESS) return fake.create_status_;
    }
    Count(&FakeCublasLt::live_handles_, 1);
    *handle = reinterpret_cast<cublasLtHandle_t>(&handle_storage);
    return CUBLAS_STATUS_SUCCESS;
  }
  static cublasStatus_t Destroy(cublasLtHandle_t) {
    Count(&FakeCublasLt::live_handles_, -1);
    return CUBLAS_STATUS_SUCCESS;
  }
  static size_t GetVersion() { return 130100; }
  static const char* StatusName(cublasStatus_t status) {
    return status == CUBLAS_STATUS_EXECUTION_FAILED
               ? "CUBLAS_STATUS_EXECUTION_FAILED"
               : "CUBLAS_STATUS_OTHER";
  }
  static const char* StatusString(cublasStatus_t) { return "the fake says no"; }

  static cublasStatus_t DescCreate(cublasLtMatmulDesc_t* desc,
                                   cublasComputeType_t compute,
                                   cudaDataType_t scale) {
    Count(&FakeCublasLt::live_descriptors_, 1);
    *desc = reinterpret_cast<cublasLtMatmulDesc_t>(
        new FakeMatmulDesc{compute, scale});
    return CUBLAS_STATUS_SUCCESS;
  }
  static cublasStatus_t DescDestroy(cublasLtMatmulDesc_t desc) {
    Count(&FakeCublasLt::live_descriptors_, -1);
    delete reinterpret_cast<FakeMatmulDesc*>(desc);
    return CUBLAS_STATUS_SUCCESS;
  }
  static cublasStatus_t DescSet(cublasLtMatmulDesc_t desc,
                                cublasLtMatmulDescAttributes_t attribute,
                                const void* buf, size_t size) {
    auto* d = reinterpret_cast<FakeMatmulDesc*>(desc);
    if (attribute == CUBLASLT_MATMUL_DESC_TRANSA) return Read(buf, size, d->transa);
    if (attribute == CUBLASLT_MATMUL_DESC_TRANSB) return Read(buf, size, d->transb);
    return CUBLAS_STATUS_NOT_SUPPORTED;  // the fake knows no other
  }

  static cublasStatus_t LayoutCreate(cublasLtMatrixLayout_t* layout,
                                     cudaDataType type, uint64_t rows,
                                     uint64_t cols, int64_t ld) {
    Count(&FakeCublasLt::live_descriptors_, 1);
    auto* l = new FakeLayout();
    l->layout.type = type;
    l->layout.rows = rows;
    l->layout.cols = cols;
    l->layout.ld = ld;
    *layout = reinterpret_cast<cublasLtMatrixLayout_t>(l);
    return CUBLAS_STATUS_SUCCESS;
  }
  static cublasStatus_t LayoutDestroy(cublasLtMatrixLayout_t layout) {
    Count(&FakeCublasLt::live_descriptors_, -1);
    delete reinterpret_cast<FakeLayout*>(layout);
    return CUBLAS_STATUS_SUCCESS;
  }
  static cublasStatus_t LayoutSet(cublasLtMatrixLayout_t layout,
                                  cublasLtMatrixLayoutAttribute_t attribute,
                                  const void* buf, size_t size) {
    CublasLtLayout& l = reinterpret_cast<FakeLayout*>(layout)->layout;
    if (attribute == CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT) {
      return Read(buf, size, l.batch_count);
    }
    if (attribute == CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET) {
      return Read(buf, size, l.batch_stride);
    }
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }

  static cublasStatus_t PrefCreate(cublasLtMatmulPreference_t* pref) {
    Count(&FakeCublasLt::live_descriptors_, 1);
    *pref = reinterpret_cast<cublasLtMatmulPreference_t>(new FakePreference());
    return CUBLAS_STATUS_SUCCESS;
  }
  static cublasStatus_t PrefDestroy(cublasLtMatmulPreference_t pref) {
    Count(&FakeCublasLt::live_descriptors_, -1);
    delete reinterpret_cast<FakePreference*>(pref);
    return CUBLAS_STATUS_SUCCESS;
  }
  static cublasStatus_t PrefSet(cublasLtMatmulPreference_t pref,
                                cublasLtMatmulPreferenceAttributes_t attribute,
                                const void* buf, size_t size) {
    FakeCublasLtPreference& p = reinterpret_cast<FakePreference*>(pref)->preference;
    if (attribute == CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES) {
      return Read(buf, size, p.max_workspace_bytes);
    }
    const int index = attribute - CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES;
    if (index >= 0 && index < 4) return Read(buf, size, p.min_alignment[index]);
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }

  static CublasLtGemmPlan Plan(cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a,
                               cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c) {
    const auto* d = reinterpret_cast<const FakeMatmulDesc*>(desc);
    CublasLtGemmPlan plan;
    plan.compute_type = d->compute_type;
    plan.scale_type = d->scale_type;
    plan.transa = static_cast<cublasOperation_t>(d->transa);
    plan.transb = static_cast<cublasOperation_t>(d->transb);
    plan.a = reinterpret_cast<const FakeLayout*>(a)->layout;
    plan.b = reinterpret_cast<const FakeLayout*>(b)->layout;
    plan.c = reinterpret_cast<const FakeLayout*>(c)->layout;
    return plan;
  }

  static cublasStatus_t Heuristic(cublasLtHandle_t, cublasLtMatmulDesc_t desc,
                                  cublasLtMatrixLayout_t a,
                                  cublasLtMatrixLayout_t b,
                                  cublasLtMatrixLayout_t c,
                                  cublasLtMatrixLayout_t d,
                                  cublasLtMatmulPreference_t pref, int requested,
                                  cublasLtMatmulHeuristicResult_t* results,
                                  int* returned) {
    FakeCublasLt& fake = Active();
    std::lock_guard<std::mutex> lock(fake.mu_);
    fake.queries_.push_back(
        reinterpret_cast<const FakePreference*>(pref)->preference);
    if (requested < 1 || c != d || !ShapesAgree(Plan(desc, a, b, c))) {
      return CUBLAS_STATUS_INVALID_VALUE;
    }
    *returned = 0;
    if (fake.no_algorithm_) return CUBLAS_STATUS_SUCCESS;
    results[0] = {};
    results[0].algo.data[0] = FakeCublasLt::kAlgoId;
    results[0].state = CUBLAS_STATUS_SUCCESS;
    *returned = 1;
    return CUBLAS_STATUS_SUCCESS;
  }

  static cublasStatus_t Matmul(cublasLtHandle_t, cublasLtMatmulDesc_t desc,
                               const void* alpha, const void* a,
                               cublasLtMatrixLayout_t a_desc, const void* b,
                               cublasLtMatrixLayout_t b_desc, const void* beta,
                               const void* c, cublasLtMatrixLayout_t c_desc,
                               void* d, cublasLtMatrixLayout_t d_desc,
                               const cublasLtMatmulAlgo_t* algo, void* workspace,
                               size_t workspace_bytes, cudaStream_t stream) {
    FakeCublasLt& fake = Active();
    auto* call = new FakeCublasLtMatmul();
    {
      std::lock_guard<std::mutex> lock(fake.mu_);
      if (fake.next_matmul_status_ != CUBLAS_STATUS_SUCCESS) {
        const cublasStatus_t status = fake.next_matmul_status_;
        fake.next_matmul_status_ = CUBLAS_STATUS_SUCCESS;
        delete call;
        return status;
      }
      call->plan = Plan(desc, a_desc, b_desc, c_desc);
      if (c_desc != d_desc || algo == nullptr || !ShapesAgree(call->plan)) {
        delete call;
        return CUBLAS_STATUS_INVALID_VALUE;
      }
      call->a = a;
      call->b = b;
      call->c = c;
      call->d = d;
      if (call->plan.scale_type == CUDA_R_64F) {
        call->alpha64 = *static_cast<const double*>(alpha);
        call->beta64 = *static_cast<const double*>(beta);
      } else {
        call->alpha = *static_cast<const float*>(alpha);
        call->beta = *static_cast<const float*>(beta);
      }
      call->algo_id = algo->data[0];
      call->workspace = workspace;
      call->workspace_bytes = workspace_bytes;
      call->stream = stream;
      fake.matmuls_.push_back(*call);
    }
    if (call->plan.c.type != CUDA_R_32F) {
      delete call;
      return CUBLAS_STATUS_SUCCESS;
    }
    // Runs in stream order on the fake device, like the real kernel.
    const CUresult result = fake.driver_.cuLaunchHostFunc(
        reinterpret_cast<CUstream>(stream),
        [](void* data) {
          auto* matmul = static_cast<FakeCublasLtMatmul*>(data);
          ColumnMajorMatmul(*matmul);
          delete matmul;
        },
        call);
    if (result != CUDA_SUCCESS) {
      delete call;
      return CUBLAS_STATUS_EXECUTION_FAILED;
    }
    return CUBLAS_STATUS_SUCCESS;
  }
};

FakeCublasLt::FakeCublasLt(const CudaDriverApi& driver) : driver_(driver) {
  FakeCublasLt* expected = nullptr;
  XLA_CHECK(active.compare_exchange_strong(expected, this))
      << "only one FakeCublasLt may exist at a time";
  using E = FakeCublasLtEntryPoints;
  api_.cublasLtCreate = &E::Create;
  api_.cublasLtDestroy = &E::Destroy;
  api_.cublasLtGetVersion = &E::GetVersion;
  api_.cublasLtGetStatusName = &E::StatusName;
  api_.cublasLtGetStatusString = &E::StatusString;
  api_.cublasLtMatmulDescCreate = &E::DescCreate;
  api_.cublasLtMatmulDescDestroy = &E::DescDestroy;
  api_.cublasLtMatmulDescSetAttribute = &E::DescSet;
  api_.cublasLtMatrixLayoutCreate = &E::LayoutCreate;
  api_.cublasLtMatrixLayoutDestroy = &E::LayoutDestroy;
  api_.cublasLtMatrixLayoutSetAttribute = &E::LayoutSet;
  api_.cublasLtMatmulPreferenceCreate = &E::PrefCreate;
  api_.cublasLtMatmulPreferenceDestroy = &E::PrefDestroy;
  api_.cublasLtMatmulPreferenceSetAttribute = &E::PrefSet;
  api_.cublasLtMatmulAlgoGetHeuristic = &E::Heuristic;
  api_.cublasLtMatmul = &E::Matmul;
}

FakeCublasLt::~FakeCublasLt() { active.store(nullptr); }

std::vector<FakeCublasLtMatmul> FakeCublasLt::matmuls() const {
  std::lock_guard<std::mutex> lock(mu_);
  return matmuls_;
}

std::vector<FakeCublasLtPreference> FakeCublasLt::heuristic_queries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queries_;
}

int FakeCublasLt::live_handles() const {
  std::lock_guard<std::mutex> lock(mu_);
  return live_handles_;
}

int FakeCublasLt::live_descriptors() const {
  std::lock_guard<std::mutex> lock(mu_);
  return live_descriptors_;
}

void FakeCublasLt::FailNextMatmul(cublasStatus_t status) {
  std::lock_guard<std::mutex> lock(mu_);
  next_matmul_status_ = status;
}

void FakeCublasLt::FailCreate(cublasStatus_t status) {
  std::lock_guard<std::mutex> lock(mu_);
  create_status_ = status;
}

void FakeCublasLt::AnswerNoAlgorithm() {
  std::lock_guard<std::mutex> lock(mu_);
  no_algorithm_ = true;
}

}  // namespace stream_executor::cuda
