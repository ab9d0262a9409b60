#include "xla/stream_executor/cuda/fake_cublaslt.h"

#include <atomic>
#include <cstring>

#include "xla/types/float_format.h"
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
  const void* a_scale = nullptr;
  const void* b_scale = nullptr;
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
// With CUBLAS_COMPUTE_32F_FAST_TF32 every operand element is first rounded
// to TF32 (xla::RoundToTf32), as tensor cores read it.
void ColumnMajorMatmul(const FakeCublasLtMatmul& call) {
  const CublasLtGemmPlan& p = call.plan;
  const bool tf32 = p.compute_type == CUBLAS_COMPUTE_32F_FAST_TF32;
  auto Operand = [tf32](float v) { return tf32 ? xla::RoundToTf32(v) : v; };
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
          const float av = Operand(ta ? a[l + i * p.a.ld] : a[i + l * p.a.ld]);
          const float bv = Operand(tb ? b[j + l * p.b.ld] : b[l + j * p.b.ld]);
          sum += static_cast<double>(av) * bv;
        }
        const double old = call.beta == 0 ? 0.0 : call.beta * c[i + j * p.c.ld];
        d[i + j * p.c.ld] = static_cast<float>(call.alpha * sum + old);
      }
    }
  }
}

bool IsFp8(cudaDataType t) { return t == CUDA_R_8F_E4M3 || t == CUDA_R_8F_E5M2; }

// The float format of the types the fp8 path reads and writes.
xla::FloatFormatId FormatOf(cudaDataType t) {
  switch (t) {
    case CUDA_R_8F_E4M3:
      return xla::FloatFormatId::kF8E4M3FN;
    case CUDA_R_8F_E5M2:
      return xla::FloatFormatId::kF8E5M2;
    case CUDA_R_16F:
      return xla::FloatFormatId::kF16;
    case CUDA_R_16BF:
      return xla::FloatFormatId::kBF16;
    default:
      return xla::FloatFormatId::kF32;
  }
}

double Load(cudaDataType t, const void* base, int64_t index) {
  switch (t) {
    case CUDA_R_8F_E4M3:
    case CUDA_R_8F_E5M2:
      return xla::DecodeFloat(FormatOf(t), static_cast<const uint8_t*>(base)[index]);
    case CUDA_R_16F:
    case CUDA_R_16BF:
      return xla::DecodeFloat(FormatOf(t), static_cast<const uint16_t*>(base)[index]);
    default:
      return static_cast<const float*>(base)[index];
  }
}

void Store(cudaDataType t, void* base, int64_t index, float value) {
  if (t == CUDA_R_16F || t == CUDA_R_16BF) {
    static_cast<uint16_t*>(base)[index] =
        static_cast<uint16_t>(xla::EncodeFloat(FormatOf(t), value));
    return;
  }
  static_cast<float*>(base)[index] = value;
}

int64_t Bytes(cudaDataType t) {
  if (IsFp8(t)) return 1;
  return t == CUDA_R_16F || t == CUDA_R_16BF ? 2 : 4;
}

// An FP8 matmul as cuBLASLt defines it: decode A and B, accumulate their
// products in f32, then D = alpha * scale_a * scale_b * acc + beta * C,
// rounded to D's type.
void Fp8Matmul(const FakeCublasLtMatmul& call) {
  const CublasLtGemmPlan& p = call.plan;
  const uint64_t m = p.c.rows, n = p.c.cols, k = p.a.rows;  // A is k x m (TN)
  const float a_scale = call.a_scale ? *static_cast<const float*>(call.a_scale) : 1.0f;
  const float b_scale = call.b_scale ? *static_cast<const float*>(call.b_scale) : 1.0f;
  for (int32_t batch = 0; batch < p.c.batch_count; ++batch) {
    const int64_t a0 = batch * p.a.batch_stride, b0 = batch * p.b.batch_stride;
    const int64_t c0 = batch * p.c.batch_stride;
    for (uint64_t i = 0; i < m; ++i) {
      for (uint64_t j = 0; j < n; ++j) {
        float sum = 0;
        for (uint64_t l = 0; l < k; ++l) {
          const float av = static_cast<float>(Load(p.a.type, call.a, a0 + l + i * p.a.ld));
          const float bv = static_cast<float>(Load(p.b.type, call.b, b0 + l + j * p.b.ld));
          sum += av * bv;
        }
        const int64_t at = c0 + i + j * p.c.ld;
        const float old = call.beta == 0 ? 0.0f : call.beta * Load(p.c.type, call.c, at);
        Store(p.c.type, call.d, at, call.alpha * a_scale * b_scale * sum + old);
      }
    }
  }
}

// For a plan with an fp8 operand: SUCCESS when the real cuBLASLt runs it
// (both fp8, not both e5m2, A transposed and B not -- "TN" --, f32 compute
// and scale types, C/D f16, bf16 or f32, m, n, k and every ld a multiple
// of 16, and `alignment` (A, B, C, D bytes) at least 16); NOT_SUPPORTED
// otherwise, as the library answers.
cublasStatus_t Fp8Supported(const CublasLtGemmPlan& p, const uint32_t* alignment) {
  const bool both = IsFp8(p.a.type) && IsFp8(p.b.type);
  const bool e5m2_pair = p.a.type == CUDA_R_8F_E5M2 && p.b.type == CUDA_R_8F_E5M2;
  const bool tn = p.transa == CUBLAS_OP_T && p.transb == CUBLAS_OP_N;
  const bool types = p.compute_type == CUBLAS_COMPUTE_32F && p.scale_type == CUDA_R_32F &&
                     (p.c.type == CUDA_R_16F || p.c.type == CUDA_R_16BF ||
                      p.c.type == CUDA_R_32F);
  const bool sizes = p.c.rows % 16 == 0 && p.c.cols % 16 == 0 && p.a.rows % 16 == 0 &&
                     p.a.ld % 16 == 0 && p.b.ld % 16 == 0 && p.c.ld % 16 == 0;
  bool aligned = true;
  for (int i = 0; i < 4; ++i) aligned = aligned && alignment[i] >= 16;
  return both && !e5m2_pair && tn && types && sizes && aligned ? CUBLAS_STATUS_SUCCESS
                                                             : CUBLAS_STATUS_NOT_SUPPORTED;
}

uint32_t PointerAlignment(const void* p) {
  const uintptr_t bits = reinterpret_cast<uintptr_t>(p) | uintptr_t{256};
  return static_cast<uint32_t>(bits & (~bits + 1));
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
  const bool types = (p.a.type == p.c.type && p.b.type == p.c.type) ||
                     IsFp8(p.a.type) || IsFp8(p.b.type);
  return k == kb && m == p.c.rows && n == p.c.cols && batches && lds && types;
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
    if (attribute == CUBLASLT_MATMUL_DESC_A_SCALE_POINTER) return Read(buf, size, d->a_scale);
    if (attribute == CUBLASLT_MATMUL_DESC_B_SCALE_POINTER) return Read(buf, size, d->b_scale);
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
    const CublasLtGemmPlan plan = Plan(desc, a, b, c);
    if (requested < 1 || c != d || !ShapesAgree(plan)) {
      return CUBLAS_STATUS_INVALID_VALUE;
    }
    // TF32 reads f32 operands only (as the library answers for others).
    if (plan.compute_type == CUBLAS_COMPUTE_32F_FAST_TF32 &&
        (plan.a.type != CUDA_R_32F || plan.b.type != CUDA_R_32F || plan.c.type != CUDA_R_32F)) {
      return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    if (IsFp8(plan.a.type) || IsFp8(plan.b.type)) {
      const cublasStatus_t fp8 = Fp8Supported(
          plan, reinterpret_cast<const FakePreference*>(pref)->preference.min_alignment);
      if (fp8 != CUBLAS_STATUS_SUCCESS) return fp8;
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
      const bool fp8 = IsFp8(call->plan.a.type) || IsFp8(call->plan.b.type);
      const uint32_t pointers[4] = {PointerAlignment(a), PointerAlignment(b),
                                    PointerAlignment(c), PointerAlignment(d)};
      if (fp8 && Fp8Supported(call->plan, pointers) != CUBLAS_STATUS_SUCCESS) {
        delete call;
        return CUBLAS_STATUS_NOT_SUPPORTED;
      }
      call->a = a;
      call->b = b;
      call->c = c;
      call->d = d;
      call->a_scale = reinterpret_cast<const FakeMatmulDesc*>(desc)->a_scale;
      call->b_scale = reinterpret_cast<const FakeMatmulDesc*>(desc)->b_scale;
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
    const bool fp8 = IsFp8(call->plan.a.type) || IsFp8(call->plan.b.type);
    if (call->plan.c.type != CUDA_R_32F && !fp8) {
      delete call;
      return CUBLAS_STATUS_SUCCESS;
    }
    // Runs in stream order on the fake device, like the real kernel.
    const CUresult result = fake.driver_.cuLaunchHostFunc(
        reinterpret_cast<CUstream>(stream),
        fp8 ? +[](void* data) {
          auto* matmul = static_cast<FakeCublasLtMatmul*>(data);
          Fp8Matmul(*matmul);
        }
            : +[](void* data) {
                auto* matmul = static_cast<FakeCublasLtMatmul*>(data);
                ColumnMajorMatmul(*matmul);
              },
        call);
    if (result != CUDA_SUCCESS) {
      delete call;
      return CUBLAS_STATUS_EXECUTION_FAILED;
    }
    std::lock_guard<std::mutex> lock(fake.mu_);
    fake.enqueued_.emplace_back(call);
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
