#include "xla/backends/gpu/runtime/gemm_thunk.h"

#include "absl/strings/str_cat.h"
#include "xla/stream_executor/blas.h"
#include "xla/types/xla_data_convert.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

// Largest m, n, k or batch size accepted: keeps every product below 2^63.
constexpr int64_t kMaxGemmDim = int64_t{1} << 31;

absl::Status CheckDim(int64_t value, int64_t min, absl::string_view field, const ThunkContext& ctx) {
  if (value >= min && value <= kMaxGemmDim) return absl::OkStatus();
  return ctx.Field(field).Error(absl::StrCat(value, " is outside [", min, ", ", kMaxGemmDim, "]"));
}

// Elements one operand needs: (batch - 1) * stride + rows * cols, or an
// error when that does not fit in `slice`.
absl::Status CheckExtent(const BufferSlice& slice, int64_t rows, int64_t cols, int64_t stride,
                         int64_t batch, int64_t width, absl::string_view field,
                         const ThunkContext& ctx) {
  const __int128 needed =
      (static_cast<__int128>(batch) - 1) * stride + static_cast<__int128>(rows) * cols;
  const __int128 bytes = needed * width;
  if (bytes <= slice.size) return absl::OkStatus();
  return ctx.Field(field).Error(absl::StrCat(
      "needs ", static_cast<int64_t>(needed), " elements (", rows, "x", cols, ", ", batch,
      " batches, stride ", stride, ") but the slice holds ", slice.size / width));
}

bool Overlap(const BufferSlice& a, const BufferSlice& b) {
  return a.allocation == b.allocation && a.size > 0 && b.size > 0 && a.offset < b.offset + b.size &&
         b.offset < a.offset + a.size;
}

absl::StatusOr<GemmConfig> ConfigFromProto(const GemmThunkProto& p, const ThunkContext& ctx) {
  GemmConfig c;
  ASSIGN_OR_RETURN(c.element_type, PrimitiveTypeFromProto(p.element_type(),
                                                          ctx.Field("element_type").path()));
  if (!ToBlasConfig(c).has_value()) {
    return ctx.Field("element_type").Error(absl::StrCat(
        "GEMM supports f16, bf16, f32 and f64, not ", PrimitiveTypeName(c.element_type)));
  }
  c.m = p.m();
  c.n = p.n();
  c.k = p.k();
  c.batch_size = p.batch_size() == 0 ? 1 : p.batch_size();
  RETURN_IF_ERROR(CheckDim(c.m, 1, "m", ctx));
  RETURN_IF_ERROR(CheckDim(c.n, 1, "n", ctx));
  RETURN_IF_ERROR(CheckDim(c.k, 1, "k", ctx));
  RETURN_IF_ERROR(CheckDim(c.batch_size, 1, "batch_size", ctx));
  RETURN_IF_ERROR(CheckDim(p.lhs_batch_stride(), 0, "lhs_batch_stride", ctx));
  RETURN_IF_ERROR(CheckDim(p.rhs_batch_stride(), 0, "rhs_batch_stride", ctx));
  RETURN_IF_ERROR(CheckDim(p.output_batch_stride(), 0, "output_batch_stride", ctx));
  c.transpose_lhs = p.transpose_lhs();
  c.transpose_rhs = p.transpose_rhs();
  c.lhs_batch_stride = p.lhs_batch_stride();
  c.rhs_batch_stride = p.rhs_batch_stride();
  c.output_batch_stride = p.output_batch_stride();
  c.alpha = p.alpha();
  c.beta = p.beta();
  if (c.batch_size > 1 && c.output_batch_stride < c.m * c.n) {
    return ctx.Field("output_batch_stride").Error(absl::StrCat(
        "output batches overlap: stride ", c.output_batch_stride, " < m*n = ", c.m * c.n));
  }
  return c;
}

// Element types: the runtime's and the platform-neutral BLAS's.
struct BlasTypeMapping {
  PrimitiveType type;
  stream_executor::BlasElementType blas;
};
constexpr BlasTypeMapping kBlasTypes[] = {
    {PrimitiveType::F16, stream_executor::BlasElementType::kF16},
    {PrimitiveType::BF16, stream_executor::BlasElementType::kBF16},
    {PrimitiveType::F32, stream_executor::BlasElementType::kF32},
    {PrimitiveType::F64, stream_executor::BlasElementType::kF64},
};

}  // namespace

std::optional<stream_executor::BlasGemmConfig> ToBlasConfig(const GemmConfig& c) {
  const BlasTypeMapping* mapping = nullptr;
  for (const BlasTypeMapping& m : kBlasTypes) {
    if (m.type == c.element_type) mapping = &m;
  }
  if (mapping == nullptr) return std::nullopt;
  stream_executor::BlasGemmConfig blas;
  blas.element_type = mapping->blas;
  blas.m = c.m;
  blas.n = c.n;
  blas.k = c.k;
  blas.transpose_lhs = c.transpose_lhs;
  blas.transpose_rhs = c.transpose_rhs;
  blas.batch_size = c.batch_size;
  blas.lhs_batch_stride = c.lhs_batch_stride;
  blas.rhs_batch_stride = c.rhs_batch_stride;
  blas.output_batch_stride = c.output_batch_stride;
  blas.alpha = c.alpha;
  blas.beta = c.beta;
  blas.allow_tf32 = false;  // results match an f32 reference
  return blas;
}

absl::StatusOr<std::unique_ptr<GemmThunk>> GemmThunk::FromProto(ThunkInfo info,
                                                                const GemmThunkProto& proto,
                                                                const ThunkContext& ctx) {
  ASSIGN_OR_RETURN(GemmConfig c, ConfigFromProto(proto, ctx));
  ASSIGN_OR_RETURN(BufferSlice lhs, ctx.Slice(proto.lhs(), "lhs"));
  ASSIGN_OR_RETURN(BufferSlice rhs, ctx.Slice(proto.rhs(), "rhs"));
  ASSIGN_OR_RETURN(BufferSlice out, ctx.Slice(proto.output(), "output"));
  const int64_t width = ByteWidth(c.element_type);
  RETURN_IF_ERROR(CheckExtent(lhs, c.m, c.k, c.lhs_batch_stride, c.batch_size, width, "lhs", ctx));
  RETURN_IF_ERROR(CheckExtent(rhs, c.k, c.n, c.rhs_batch_stride, c.batch_size, width, "rhs", ctx));
  RETURN_IF_ERROR(
      CheckExtent(out, c.m, c.n, c.output_batch_stride, c.batch_size, width, "output", ctx));
  if (Overlap(out, lhs) || Overlap(out, rhs)) {
    return ctx.Field("output").Error(absl::StrCat("output ", out.ToString(),
                                                  " overlaps an operand (lhs ", lhs.ToString(),
                                                  ", rhs ", rhs.ToString(), ")"));
  }
  return std::make_unique<GemmThunk>(std::move(info), c, std::move(lhs), std::move(rhs),
                                     std::move(out));
}

absl::Status GemmThunk::Initialize(const InitializeParams& params) {
  return AnnotateError(*this, params.executor->InitializeBlas());
}

absl::Status GemmThunk::ExecuteOnStream(const ExecuteParams& params) const {
  if (!blas_config_.has_value()) {
    return AnnotateError(*this, absl::InvalidArgumentError(absl::StrCat(
                                    "GEMM has no BLAS element type for ",
                                    PrimitiveTypeName(config_.element_type))));
  }
  return AnnotateError(*this, stream(params)->Gemm(*blas_config_,
                                                   params.buffers->GetDeviceAddress(lhs_),
                                                   params.buffers->GetDeviceAddress(rhs_),
                                                   params.buffers->GetDeviceAddress(output_)));
}

absl::StatusOr<ThunkProto> GemmThunk::ToProto() const {
  ThunkProto proto = InfoProto();
  GemmThunkProto* g = proto.mutable_gemm();
  *g->mutable_lhs() = SliceToProto(lhs_);
  *g->mutable_rhs() = SliceToProto(rhs_);
  *g->mutable_output() = SliceToProto(output_);
  g->set_element_type(PrimitiveTypeToProto(config_.element_type));
  g->set_m(config_.m);
  g->set_n(config_.n);
  g->set_k(config_.k);
  g->set_transpose_lhs(config_.transpose_lhs);
  g->set_transpose_rhs(config_.transpose_rhs);
  g->set_batch_size(config_.batch_size);
  g->set_lhs_batch_stride(config_.lhs_batch_stride);
  g->set_rhs_batch_stride(config_.rhs_batch_stride);
  g->set_output_batch_stride(config_.output_batch_stride);
  g->set_alpha(config_.alpha);
  g->set_beta(config_.beta);
  return proto;
}

}  // namespace xla::gpu
