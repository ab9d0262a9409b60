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

bool IsOutputType(PrimitiveType t) {
  return t == PrimitiveType::F16 || t == PrimitiveType::BF16 || t == PrimitiveType::F32 ||
         t == PrimitiveType::F64;
}

// Reads lhs_type / rhs_type ("gemm.fp8"): each, when set, must be an fp8
// type cuBLASLt takes.
absl::Status OperandTypesFromProto(const GemmThunkProto& p, const ThunkContext& ctx,
                                   GemmConfig& c) {
  struct Field {
    bool present;
    xla::PrimitiveTypeProto value;
    const char* name;
    std::optional<PrimitiveType>* out;
  };
  const Field fields[] = {{p.has_lhs_type(), p.lhs_type(), "lhs_type", &c.lhs_type},
                          {p.has_rhs_type(), p.rhs_type(), "rhs_type", &c.rhs_type}};
  for (const Field& f : fields) {
    if (!f.present) continue;
    ASSIGN_OR_RETURN(PrimitiveType t, PrimitiveTypeFromProto(f.value, ctx.Field(f.name).path()));
    if (t != PrimitiveType::F8E4M3FN && t != PrimitiveType::F8E5M2) {
      return ctx.Field(f.name).Error(absl::StrCat(
          "an operand type of its own must be f8e4m3fn or f8e5m2 (runtime feature gemm.fp8), "
          "not ", PrimitiveTypeName(t)));
    }
    *f.out = t;
  }
  return absl::OkStatus();
}

absl::StatusOr<GemmConfig> ConfigFromProto(const GemmThunkProto& p, const ThunkContext& ctx) {
  GemmConfig c;
  ASSIGN_OR_RETURN(c.element_type, PrimitiveTypeFromProto(p.element_type(),
                                                          ctx.Field("element_type").path()));
  if (!IsOutputType(c.element_type)) {
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
  RETURN_IF_ERROR(OperandTypesFromProto(p, ctx, c));
  c.allow_tf32 = p.allow_tf32();
  if (c.allow_tf32 && (c.element_type != PrimitiveType::F32 || c.lhs_type.has_value() ||
                       c.rhs_type.has_value())) {
    return ctx.Field("allow_tf32").Error(absl::StrCat(
        "TF32 is only for F32 GEMMs with F32 operands, not ",
        PrimitiveTypeName(c.lhs_type.value_or(c.element_type)), " x ",
        PrimitiveTypeName(c.rhs_type.value_or(c.element_type)), " -> ",
        PrimitiveTypeName(c.element_type)));
  }
  if (c.lhs_type.has_value() || c.rhs_type.has_value()) {
    std::optional<stream_executor::BlasGemmConfig> blas = ToBlasConfig(c);
    const absl::Status fp8 = blas.has_value()
                                 ? stream_executor::CheckBlasFp8Gemm(*blas)
                                 : absl::InvalidArgumentError("no BLAS element type");
    if (!fp8.ok()) return ctx.Error(fp8.message());
  }
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
    {PrimitiveType::F8E4M3FN, stream_executor::BlasElementType::kF8E4M3FN},
    {PrimitiveType::F8E5M2, stream_executor::BlasElementType::kF8E5M2},
};

const BlasTypeMapping* FindBlasType(PrimitiveType t) {
  for (const BlasTypeMapping& m : kBlasTypes) {
    if (m.type == t) return &m;
  }
  return nullptr;
}

// A scale slice: one f32 (4 bytes), only for an fp8 GEMM.
absl::StatusOr<std::optional<BufferSlice>> ScaleFromProto(bool present,
                                                          const BufferSliceProto& proto,
                                                          const GemmConfig& c,
                                                          absl::string_view field,
                                                          const ThunkContext& ctx) {
  if (!present) return std::optional<BufferSlice>();
  if (!c.lhs_type.has_value() || !c.rhs_type.has_value()) {
    return ctx.Field(field).Error(
        "a scale needs fp8 operands (lhs_type and rhs_type; runtime feature gemm.fp8)");
  }
  ASSIGN_OR_RETURN(BufferSlice slice, ctx.Slice(proto, field));
  if (slice.size != 4) {
    return ctx.Field(field).Error(
        absl::StrCat("a scale is one f32 (4 bytes), but the slice has ", slice.size, " bytes"));
  }
  return std::optional<BufferSlice>(slice);
}

}  // namespace

std::optional<stream_executor::BlasGemmConfig> ToBlasConfig(const GemmConfig& c) {
  const BlasTypeMapping* mapping = IsOutputType(c.element_type) ? FindBlasType(c.element_type)
                                                                : nullptr;
  if (mapping == nullptr) return std::nullopt;
  stream_executor::BlasGemmConfig blas;
  blas.element_type = mapping->blas;
  const std::optional<PrimitiveType>* operand_types[] = {&c.lhs_type, &c.rhs_type};
  std::optional<stream_executor::BlasElementType>* blas_types[] = {&blas.lhs_type,
                                                                   &blas.rhs_type};
  for (int i = 0; i < 2; ++i) {
    if (!operand_types[i]->has_value()) continue;
    const BlasTypeMapping* operand = FindBlasType(**operand_types[i]);
    if (operand == nullptr) return std::nullopt;
    *blas_types[i] = operand->blas;
  }
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
  blas.allow_tf32 = c.allow_tf32;
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
  const int64_t lhs_width = ByteWidth(c.lhs_type.value_or(c.element_type));
  const int64_t rhs_width = ByteWidth(c.rhs_type.value_or(c.element_type));
  RETURN_IF_ERROR(
      CheckExtent(lhs, c.m, c.k, c.lhs_batch_stride, c.batch_size, lhs_width, "lhs", ctx));
  RETURN_IF_ERROR(
      CheckExtent(rhs, c.k, c.n, c.rhs_batch_stride, c.batch_size, rhs_width, "rhs", ctx));
  RETURN_IF_ERROR(
      CheckExtent(out, c.m, c.n, c.output_batch_stride, c.batch_size, width, "output", ctx));
  if (SlicesOverlap(out, lhs) || SlicesOverlap(out, rhs)) {
    return ctx.Field("output").Error(absl::StrCat("output ", out.ToString(),
                                                  " overlaps an operand (lhs ", lhs.ToString(),
                                                  ", rhs ", rhs.ToString(), ")"));
  }
  ASSIGN_OR_RETURN(std::optional<BufferSlice> lhs_scale,
                   ScaleFromProto(proto.has_lhs_scale(), proto.lhs_scale(), c, "lhs_scale", ctx));
  ASSIGN_OR_RETURN(std::optional<BufferSlice> rhs_scale,
                   ScaleFromProto(proto.has_rhs_scale(), proto.rhs_scale(), c, "rhs_scale", ctx));
  for (const std::optional<BufferSlice>* scale : {&lhs_scale, &rhs_scale}) {
    if (scale->has_value() && SlicesOverlap(out, **scale)) {
      return ctx.Field("output").Error(absl::StrCat("output ", out.ToString(),
                                                    " overlaps a scale ", (*scale)->ToString()));
    }
  }
  return std::make_unique<GemmThunk>(std::move(info), c, std::move(lhs), std::move(rhs),
                                     std::move(out), std::move(lhs_scale), std::move(rhs_scale));
}

absl::Status GemmThunk::Initialize(const InitializeParams& params) {
  return AnnotateError(*this, params.executor->InitializeBlas());
}

absl::Status GemmThunk::ToCommand(const ExecuteParams& params,
                                  stream_executor::DeviceCommand* command) const {
  if (!blas_config_.has_value()) {
    return AnnotateError(*this, absl::InvalidArgumentError(absl::StrCat(
                                    "GEMM has no BLAS element type for ",
                                    PrimitiveTypeName(config_.element_type))));
  }
  stream_executor::BlasGemmConfig blas = *blas_config_;
  if (lhs_scale_.has_value()) blas.lhs_scale = params.buffers->GetDeviceAddress(*lhs_scale_);
  if (rhs_scale_.has_value()) blas.rhs_scale = params.buffers->GetDeviceAddress(*rhs_scale_);
  *command = stream_executor::DeviceCommand::Gemm(blas, params.buffers->GetDeviceAddress(lhs_),
                                                  params.buffers->GetDeviceAddress(rhs_),
                                                  params.buffers->GetDeviceAddress(output_));
  return absl::OkStatus();
}

absl::Status GemmThunk::ExecuteOnStream(const ExecuteParams& params) const {
  stream_executor::DeviceCommand command;
  RETURN_IF_ERROR(ToCommand(params, &command));
  return AnnotateError(*this, stream(params)->Gemm(command.gemm, command.args[0], command.args[1],
                                                   command.args[2]));
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
  if (config_.lhs_type.has_value()) g->set_lhs_type(PrimitiveTypeToProto(*config_.lhs_type));
  if (config_.rhs_type.has_value()) g->set_rhs_type(PrimitiveTypeToProto(*config_.rhs_type));
  if (config_.allow_tf32) g->set_allow_tf32(true);
  if (lhs_scale_.has_value()) *g->mutable_lhs_scale() = SliceToProto(*lhs_scale_);
  if (rhs_scale_.has_value()) *g->mutable_rhs_scale() = SliceToProto(*rhs_scale_);
  return proto;
}

}  // namespace xla::gpu
