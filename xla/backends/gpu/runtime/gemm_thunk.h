// GemmThunk: a (batched) matrix multiply, out = alpha * op(lhs) x op(rhs) +
// beta * out (see host_gemm.h for the exact semantics).
//
// FromProto checks the element type (F16, BF16, F32, F64), m, n, k >= 1,
// batch sizes and strides >= 0, that every batch of every operand lies
// inside its slice (overflow-safe), that output batches do not overlap each
// other, and that the output does not overlap lhs or rhs.
//
// On the host platform it runs HostGemm (Eigen) as a host callback. On any
// other platform Initialize calls StreamExecutor::InitializeBlas (cuda:
// loads cuBLAS; its error, annotated with the thunk, when that fails) and
// ExecuteOnStream enqueues Stream::Gemm with TF32 off.
//
// Thread-safety: see thunk.h.
#ifndef XLA_BACKENDS_GPU_RUNTIME_GEMM_THUNK_H_
#define XLA_BACKENDS_GPU_RUNTIME_GEMM_THUNK_H_

#include <memory>
#include <optional>

#include "xla/backends/gpu/runtime/host_gemm.h"
#include "xla/stream_executor/blas.h"
#include "xla/backends/gpu/runtime/thunk.h"

namespace xla::gpu {

class GemmThunk : public Thunk {
 public:
  GemmThunk(ThunkInfo info, GemmConfig config, BufferSlice lhs, BufferSlice rhs, BufferSlice output)
      : Thunk(Kind::kGemm, std::move(info)),
        config_(config),
        blas_config_(ToBlasConfig(config)),
        lhs_(std::move(lhs)),
        rhs_(std::move(rhs)),
        output_(std::move(output)) {}

  static absl::StatusOr<std::unique_ptr<GemmThunk>> FromProto(ThunkInfo info,
                                                              const GemmThunkProto& proto,
                                                              const ThunkContext& ctx);

  absl::Status Initialize(const InitializeParams& params) override;
  absl::Status ExecuteOnStream(const ExecuteParams& params) const override;
  absl::StatusOr<ThunkProto> ToProto() const override;

  const GemmConfig& config() const { return config_; }

 private:
  // The platform-neutral form of `c` for Stream::Gemm (TF32 off); nullopt
  // for an element type BLAS lacks (FromProto admits none).
  static std::optional<stream_executor::BlasGemmConfig> ToBlasConfig(const GemmConfig& c);

  GemmConfig config_;
  // Derived once from config_; used on non-host platforms.
  std::optional<stream_executor::BlasGemmConfig> blas_config_;
  BufferSlice lhs_;
  BufferSlice rhs_;
  BufferSlice output_;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_GEMM_THUNK_H_
