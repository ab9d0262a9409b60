// GemmThunk: a (batched) matrix multiply, out = alpha * op(lhs) x op(rhs) +
// beta * out (see xla/stream_executor/blas.h for the exact semantics).
//
// FromProto checks the element type (F16, BF16, F32, F64), m, n, k >= 1,
// batch sizes and strides >= 0, that every batch of every operand lies
// inside its slice (overflow-safe), that output batches do not overlap each
// other, and that the output does not overlap lhs or rhs.
//
// FP8 GEMMs (runtime feature "gemm.fp8"): lhs_type / rhs_type, when set,
// must be f8e4m3fn or f8e5m2 (not both f8e5m2), with element_type (the
// output's) f16, bf16 or f32, lhs not transposed and rhs transposed, and
// m, n, k multiples of 16 (stream_executor::CheckBlasFp8Gemm); lhs_scale /
// rhs_scale, when set, need fp8 operands and are 4-byte (one f32) slices
// inside their allocations that the output does not overlap. Extents are
// checked with each operand's own element width. Only cuBLASLt runs them:
// the host platform and classic cuBLAS refuse them at enqueue.
//
// One path on every platform: Initialize calls StreamExecutor::InitializeBlas
// (cuda: loads cuBLAS(Lt); host: nothing to load; its error, annotated with
// the thunk, when that fails) and ExecuteOnStream enqueues Stream::Gemm with
// TF32 off (cuda: cuBLAS(Lt); host: HostGemm, Eigen, on the launch pool).
//
// Thread-safety: see thunk.h.
#ifndef XLA_BACKENDS_GPU_RUNTIME_GEMM_THUNK_H_
#define XLA_BACKENDS_GPU_RUNTIME_GEMM_THUNK_H_

#include <memory>
#include <optional>

#include "xla/backends/gpu/runtime/thunk.h"
#include "xla/stream_executor/blas.h"
#include "xla/types/primitive_type.h"

namespace xla::gpu {

// The GEMM as GemmThunkProto states it: BlasGemmConfig's fields with the
// runtime's element type. A plain value type.
struct GemmConfig {
  // The output's type, and the operands' unless lhs_type / rhs_type say.
  PrimitiveType element_type = PrimitiveType::F32;
  std::optional<PrimitiveType> lhs_type;
  std::optional<PrimitiveType> rhs_type;
  int64_t m = 1, n = 1, k = 1;
  bool transpose_lhs = false;
  bool transpose_rhs = false;
  int64_t batch_size = 1;
  int64_t lhs_batch_stride = 0;
  int64_t rhs_batch_stride = 0;
  int64_t output_batch_stride = 0;
  double alpha = 1.0;
  double beta = 0.0;
  // F32 only: the operands may be rounded to TF32 (GemmThunkProto.allow_tf32).
  bool allow_tf32 = false;
};

// The platform-neutral form of `c` for Stream::Gemm (TF32 as c says, no scales);
// nullopt for an element type BLAS lacks (outputs: f16, bf16, f32 and f64;
// operands also f8e4m3fn and f8e5m2; FromProto admits no other). Pure.
std::optional<stream_executor::BlasGemmConfig> ToBlasConfig(const GemmConfig& c);

class GemmThunk : public Thunk {
 public:
  // `lhs_scale` / `rhs_scale`: the f32 scalars of an FP8 GEMM (none: 1.0).
  GemmThunk(ThunkInfo info, GemmConfig config, BufferSlice lhs, BufferSlice rhs, BufferSlice output,
            std::optional<BufferSlice> lhs_scale = std::nullopt,
            std::optional<BufferSlice> rhs_scale = std::nullopt)
      : Thunk(Kind::kGemm, std::move(info)),
        config_(config),
        blas_config_(ToBlasConfig(config)),
        lhs_(std::move(lhs)),
        rhs_(std::move(rhs)),
        output_(std::move(output)),
        lhs_scale_(std::move(lhs_scale)),
        rhs_scale_(std::move(rhs_scale)) {}

  static absl::StatusOr<std::unique_ptr<GemmThunk>> FromProto(ThunkInfo info,
                                                              const GemmThunkProto& proto,
                                                              const ThunkContext& ctx);

  absl::Status Initialize(const InitializeParams& params) override;
  absl::Status ExecuteOnStream(const ExecuteParams& params) const override;
  absl::StatusOr<ThunkProto> ToProto() const override;
  // A GEMM with a BLAS element type is captured into CUDA graphs where the
  // device allows it; ToCommand gives the kGemm command ExecuteOnStream's
  // Stream::Gemm would enqueue.
  bool IsCapturedCommand() const override { return blas_config_.has_value(); }
  absl::Status ToCommand(const ExecuteParams& params,
                         stream_executor::DeviceCommand* command) const override;

  const GemmConfig& config() const { return config_; }

 private:
  GemmConfig config_;
  // Derived once from config_.
  std::optional<stream_executor::BlasGemmConfig> blas_config_;
  BufferSlice lhs_;
  BufferSlice rhs_;
  BufferSlice output_;
  std::optional<BufferSlice> lhs_scale_;
  std::optional<BufferSlice> rhs_scale_;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_GEMM_THUNK_H_
