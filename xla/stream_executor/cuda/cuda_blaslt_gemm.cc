#include "xla/stream_executor/cuda/cuda_blaslt_gemm.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "xla/util/status_macros.h"

namespace stream_executor::cuda {
namespace {

// A cuBLASLt descriptor destroyed when it goes out of scope.
template <typename T>
class Owned {
 public:
  explicit Owned(cublasStatus_t (*destroy)(T)) : destroy_(destroy) {}
  ~Owned() {
    if (value_ != nullptr) (void)destroy_(value_);
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  T* out() { return &value_; }
  T get() const { return value_; }

 private:
  cublasStatus_t (*destroy_)(T);
  T value_ = nullptr;
};

// The stored column-major shape of an operand that enters the product as
// `rows` x `cols` after `op`.
CublasLtLayout Layout(cudaDataType type, cublasOperation_t op, int rows,
                      int cols, int ld, int batch, long long stride) {
  CublasLtLayout layout;
  layout.type = type;
  layout.rows = static_cast<uint64_t>(op == CUBLAS_OP_N ? rows : cols);
  layout.cols = static_cast<uint64_t>(op == CUBLAS_OP_N ? cols : rows);
  layout.ld = ld;
  layout.batch_count = batch;
  layout.batch_stride = stride;
  return layout;
}

absl::Status SetAttribute(const CublasLtApi& lt, cublasLtMatrixLayout_t layout,
                          cublasLtMatrixLayoutAttribute_t attribute,
                          const void* value, size_t size) {
  return CUBLASLT_STATUS(lt, cublasLtMatrixLayoutSetAttribute, layout,
                         attribute, value, size);
}

absl::Status MakeLayout(const CublasLtApi& lt, const CublasLtLayout& layout,
                        Owned<cublasLtMatrixLayout_t>& out) {
  CUBLASLT_RETURN_IF_ERROR(lt, cublasLtMatrixLayoutCreate, out.out(),
                           layout.type, layout.rows, layout.cols, layout.ld);
  RETURN_IF_ERROR(SetAttribute(lt, out.get(),
                               CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                               &layout.batch_count, sizeof(layout.batch_count)));
  return SetAttribute(lt, out.get(), CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                      &layout.batch_stride, sizeof(layout.batch_stride));
}

absl::Status MakeMatmulDesc(const CublasLtApi& lt, const CublasLtGemmPlan& plan,
                            const void* a_scale, const void* b_scale,
                            Owned<cublasLtMatmulDesc_t>& out) {
  CUBLASLT_RETURN_IF_ERROR(lt, cublasLtMatmulDescCreate, out.out(),
                           plan.compute_type, plan.scale_type);
  const int32_t transa = plan.transa;
  const int32_t transb = plan.transb;
  CUBLASLT_RETURN_IF_ERROR(lt, cublasLtMatmulDescSetAttribute, out.get(),
                           CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof(transa));
  CUBLASLT_RETURN_IF_ERROR(lt, cublasLtMatmulDescSetAttribute, out.get(),
                           CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof(transb));
  // FP8 per-tensor scales: device pointers to one f32 each (A is rhs).
  struct ScaleAttribute {
    cublasLtMatmulDescAttributes_t attribute;
    const void* pointer;
  };
  const ScaleAttribute scales[] = {{CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, a_scale},
                                   {CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, b_scale}};
  for (const ScaleAttribute& scale : scales) {
    if (scale.pointer == nullptr) continue;
    CUBLASLT_RETURN_IF_ERROR(lt, cublasLtMatmulDescSetAttribute, out.get(),
                             scale.attribute, &scale.pointer, sizeof(scale.pointer));
  }
  return absl::OkStatus();
}

std::string LayoutKey(const CublasLtLayout& l) {
  return absl::StrCat(static_cast<int>(l.type), ":", l.rows, "x", l.cols, ":",
                      l.ld, ":", l.batch_count, ":", l.batch_stride);
}

std::string ChoiceKey(const CublasLtGemmPlan& plan, const uint32_t* alignment) {
  return absl::StrCat(static_cast<int>(plan.compute_type), ",",
                      static_cast<int>(plan.scale_type), ",",
                      static_cast<int>(plan.transa), ",",
                      static_cast<int>(plan.transb), ",", LayoutKey(plan.a),
                      ",", LayoutKey(plan.b), ",", LayoutKey(plan.c), ",",
                      alignment[0], ",", alignment[1], ",", alignment[2]);
}

}  // namespace

absl::StatusOr<CublasLtGemmPlan> MapRowMajorGemmToCublasLt(
    const CudaGemmConfig& config) {
  ASSIGN_OR_RETURN(const CublasGemmArgs args, MapRowMajorGemmToCublas(config));
  CublasLtGemmPlan plan;
  plan.compute_type = args.compute_type;
  plan.scale_type =
      args.compute_type == CUBLAS_COMPUTE_64F ? CUDA_R_64F : CUDA_R_32F;
  plan.transa = args.transa;
  plan.transb = args.transb;
  // op(A) is m x k, op(B) is k x n, C is m x n (cuBLAS's m, n: swapped).
  // A is rhs, B is lhs; each keeps its own type (fp8 GEMMs).
  plan.a = Layout(CudaGemmDataType(BlasRhsType(config)), args.transa, args.m,
                  args.k, args.lda, args.batch_count, args.stride_a);
  plan.b = Layout(CudaGemmDataType(BlasLhsType(config)), args.transb, args.k,
                  args.n, args.ldb, args.batch_count, args.stride_b);
  plan.c = Layout(args.data_type, CUBLAS_OP_N, args.m, args.n, args.ldc,
                  args.batch_count, args.stride_c);
  return plan;
}

uint32_t CublasLtOperandAlignment(const void* base, int64_t batch_count,
                                  int64_t batch_stride_bytes) {
  uint64_t bits = reinterpret_cast<uintptr_t>(base) | uint64_t{256};
  if (batch_count > 1 && batch_stride_bytes != 0) {
    bits |= static_cast<uint64_t>(batch_stride_bytes);
  }
  return static_cast<uint32_t>(bits & (~bits + 1));  // lowest set bit
}

absl::StatusOr<std::unique_ptr<CublasLtHandle>> CublasLtHandle::Create(
    const CublasLtApi& lt, const CudaDriverApi& driver, CUcontext context) {
  CU_RETURN_IF_ERROR(driver, cuCtxSetCurrent, context);
  cublasLtHandle_t handle = nullptr;
  CUBLASLT_RETURN_IF_ERROR(lt, cublasLtCreate, &handle);
  return std::unique_ptr<CublasLtHandle>(
      new CublasLtHandle(lt, driver, context, handle));
}

CublasLtHandle::~CublasLtHandle() {
  (void)CU_STATUS(driver_, cuCtxSetCurrent, context_);
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [stream, workspace] : workspaces_) {
    (void)CU_STATUS(driver_, cuMemFree_v2, workspace);
  }
  (void)lt_.cublasLtDestroy(handle_);
}

int CublasLtHandle::heuristic_queries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return heuristic_queries_;
}

absl::Status CublasLtHandle::Gemm(CudaStream& stream,
                                  const CudaGemmConfig& config,
                                  const DeviceMemoryBase& lhs,
                                  const DeviceMemoryBase& rhs,
                                  const DeviceMemoryBase& output) {
  const absl::Status valid = CheckCudaGemmOperands(config, lhs, rhs, output);
  if (!valid.ok()) return stream.RejectAtEnqueue("gemm", valid);
  absl::StatusOr<CublasLtGemmPlan> plan = MapRowMajorGemmToCublasLt(config);
  if (!plan.ok()) return stream.RejectAtEnqueue("gemm", plan.status());
  const int64_t bytes = CudaGemmElementBytes(config.element_type);
  const int64_t a_bytes = CudaGemmElementBytes(BlasRhsType(config));
  const int64_t b_bytes = CudaGemmElementBytes(BlasLhsType(config));
  const int64_t batch = plan->c.batch_count;
  Operands operands{rhs.opaque, lhs.opaque, output.opaque, {},
                    config.rhs_scale.opaque, config.lhs_scale.opaque};
  operands.alignment[0] =
      CublasLtOperandAlignment(rhs.opaque, batch, plan->a.batch_stride * a_bytes);
  operands.alignment[1] =
      CublasLtOperandAlignment(lhs.opaque, batch, plan->b.batch_stride * b_bytes);
  operands.alignment[2] = CublasLtOperandAlignment(
      output.opaque, batch, plan->c.batch_stride * bytes);
  return stream.EnqueueDriverWork(
      "gemm", [this, plan = *plan, operands, alpha = config.alpha,
               beta = config.beta](CUstream cu_stream) {
        return Run(cu_stream, plan, operands, alpha, beta);
      });
}

absl::Status CublasLtHandle::Run(CUstream stream, const CublasLtGemmPlan& plan,
                                 const Operands& operands, double alpha,
                                 double beta) {
  Owned<cublasLtMatmulDesc_t> desc(lt_.cublasLtMatmulDescDestroy);
  Owned<cublasLtMatrixLayout_t> a(lt_.cublasLtMatrixLayoutDestroy);
  Owned<cublasLtMatrixLayout_t> b(lt_.cublasLtMatrixLayoutDestroy);
  Owned<cublasLtMatrixLayout_t> c(lt_.cublasLtMatrixLayoutDestroy);
  RETURN_IF_ERROR(
      MakeMatmulDesc(lt_, plan, operands.a_scale, operands.b_scale, desc));
  RETURN_IF_ERROR(MakeLayout(lt_, plan.a, a));
  RETURN_IF_ERROR(MakeLayout(lt_, plan.b, b));
  RETURN_IF_ERROR(MakeLayout(lt_, plan.c, c));
  ASSIGN_OR_RETURN(const cublasLtMatmulAlgo_t algo,
                   ChooseAlgorithm(plan, operands, desc.get(), a.get(), b.get(),
                                   c.get()));
  ASSIGN_OR_RETURN(const CUdeviceptr workspace, Workspace(stream));
  // Host pointer mode (the default): the scalars are read during the call.
  const bool f64 = plan.scale_type == CUDA_R_64F;
  const float alpha_f = static_cast<float>(alpha);
  const float beta_f = static_cast<float>(beta);
  const void* alpha_p = f64 ? static_cast<const void*>(&alpha)
                            : static_cast<const void*>(&alpha_f);
  const void* beta_p = f64 ? static_cast<const void*>(&beta)
                           : static_cast<const void*>(&beta_f);
  CUBLASLT_RETURN_IF_ERROR(
      lt_, cublasLtMatmul, handle_, desc.get(), alpha_p, operands.a, a.get(),
      operands.b, b.get(), beta_p, operands.c, c.get(), operands.c, c.get(),
      &algo, reinterpret_cast<void*>(workspace), kCublasLtWorkspaceBytes,
      reinterpret_cast<cudaStream_t>(stream));
  return absl::OkStatus();
}

absl::StatusOr<cublasLtMatmulAlgo_t> CublasLtHandle::ChooseAlgorithm(
    const CublasLtGemmPlan& plan, const Operands& operands,
    cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a,
    cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c) {
  const std::string key = ChoiceKey(plan, operands.alignment);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = choices_.find(key);
    if (it != choices_.end()) return it->second.algo;
    ++heuristic_queries_;
  }
  Owned<cublasLtMatmulPreference_t> preference(
      lt_.cublasLtMatmulPreferenceDestroy);
  CUBLASLT_RETURN_IF_ERROR(lt_, cublasLtMatmulPreferenceCreate,
                           preference.out());
  const uint64_t workspace_bytes = kCublasLtWorkspaceBytes;
  CUBLASLT_RETURN_IF_ERROR(lt_, cublasLtMatmulPreferenceSetAttribute,
                           preference.get(),
                           CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                           &workspace_bytes, sizeof(workspace_bytes));
  struct AlignmentAttribute {
    cublasLtMatmulPreferenceAttributes_t attribute;
    int operand;  // index into operands.alignment
  };
  static constexpr AlignmentAttribute kAlignments[] = {
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, 0},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, 1},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, 2},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, 2},
  };
  for (const AlignmentAttribute& entry : kAlignments) {
    const uint32_t alignment = operands.alignment[entry.operand];
    CUBLASLT_RETURN_IF_ERROR(lt_, cublasLtMatmulPreferenceSetAttribute,
                             preference.get(), entry.attribute, &alignment,
                             sizeof(alignment));
  }
  cublasLtMatmulHeuristicResult_t result = {};
  int returned = 0;
  CUBLASLT_RETURN_IF_ERROR(lt_, cublasLtMatmulAlgoGetHeuristic, handle_, desc,
                           a, b, c, c, preference.get(), 1, &result, &returned);
  if (returned < 1 || result.state != CUBLAS_STATUS_SUCCESS) {
    return absl::UnimplementedError(absl::StrCat(
        "cublasLtMatmulAlgoGetHeuristic: no cuBLASLt algorithm for the gemm "
        "(A ", plan.a.rows, "x", plan.a.cols, ", B ", plan.b.rows, "x",
        plan.b.cols, ", C ", plan.c.rows, "x", plan.c.cols, ", batch ",
        plan.c.batch_count, ", cudaDataType ", static_cast<int>(plan.a.type),
        ", alignments ", operands.alignment[0], "/", operands.alignment[1],
        "/", operands.alignment[2],
        " bytes); set XLA_CUBLASLT_LIBRARY=/nonexistent to use classic "
        "cuBLAS"));
  }
  std::lock_guard<std::mutex> lock(mu_);
  choices_.emplace(key, Choice{result.algo});
  return result.algo;
}

absl::StatusOr<CUdeviceptr> CublasLtHandle::Workspace(CUstream stream) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = workspaces_.find(stream);
    if (it != workspaces_.end()) return it->second;
  }
  // Only this stream's worker allocates its workspace: no race on the key.
  CUdeviceptr workspace = 0;
  CU_RETURN_IF_ERROR(driver_, cuMemAlloc_v2, &workspace,
                     kCublasLtWorkspaceBytes);
  std::lock_guard<std::mutex> lock(mu_);
  workspaces_.emplace(stream, workspace);
  return workspace;
}

}  // namespace stream_executor::cuda
