#include "xla/backends/gpu/runtime/fft_thunk.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/types/xla_data_convert.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

namespace se = ::stream_executor;

// Most input dimensions accepted (batch dimensions included).
constexpr int kMaxFftRank = 16;
// Largest input dimension accepted.
constexpr int64_t kMaxFftDim = int64_t{1} << 31;

struct TypeMapping {
  FftTypeProto proto;
  se::FftType type;
};
constexpr TypeMapping kTypes[] = {
    {FFT_TYPE_FFT, se::FftType::kFft},
    {FFT_TYPE_IFFT, se::FftType::kIfft},
    {FFT_TYPE_RFFT, se::FftType::kRfft},
    {FFT_TYPE_IRFFT, se::FftType::kIrfft},
};

struct PrecisionMapping {
  PrimitiveType type;
  se::FftPrecision precision;
};
constexpr PrecisionMapping kPrecisions[] = {
    {PrimitiveType::F32, se::FftPrecision::kF32},
    {PrimitiveType::F64, se::FftPrecision::kF64},
};

absl::StatusOr<se::FftType> TypeFromProto(FftTypeProto proto, const ThunkContext& ctx) {
  for (const TypeMapping& m : kTypes) {
    if (m.proto == proto) return m.type;
  }
  return ctx.Field("fft_type").Error(absl::StrCat(
      "unknown fft type ", static_cast<int>(proto),
      "; FFT, IFFT, RFFT and IRFFT are known (the artifact may be newer than this runtime)"));
}

absl::StatusOr<se::FftPrecision> PrecisionFromProto(const FftThunkProto& p,
                                                    const ThunkContext& ctx) {
  ASSIGN_OR_RETURN(const PrimitiveType type,
                   PrimitiveTypeFromProto(p.precision(), ctx.Field("precision").path()));
  for (const PrecisionMapping& m : kPrecisions) {
    if (m.type == type) return m.precision;
  }
  return ctx.Field("precision").Error(
      absl::StrCat("FFTs run in f32 or f64, not ", PrimitiveTypeName(type)));
}

// The config the proto states, with input_dims checked against it.
absl::StatusOr<se::FftConfig> ConfigFromProto(const FftThunkProto& p, const ThunkContext& ctx) {
  se::FftConfig c;
  ASSIGN_OR_RETURN(c.type, TypeFromProto(p.fft_type(), ctx));
  ASSIGN_OR_RETURN(c.precision, PrecisionFromProto(p, ctx));
  if (p.fft_length_size() < 1 || p.fft_length_size() > 3) {
    return ctx.Field("fft_length").Error(
        absl::StrCat(p.fft_length_size(), " entries; an FFT has 1 to 3 dimensions"));
  }
  for (int64_t n : p.fft_length()) {
    if (n < 1 || n > se::kMaxFftLength) {
      return ctx.Field("fft_length")
          .Error(absl::StrCat(n, " is outside [1, ", se::kMaxFftLength, "]"));
    }
  }
  c.lengths.assign(p.fft_length().begin(), p.fft_length().end());
  const int rank = p.input_dims_size();
  if (rank < p.fft_length_size() || rank > kMaxFftRank) {
    return ctx.Field("input_dims").Error(absl::StrCat(
        rank, " entries; needs ", p.fft_length_size(), " to ", kMaxFftRank));
  }
  const int batch_rank = rank - p.fft_length_size();
  __int128 batch = 1;
  for (int i = 0; i < rank; ++i) {
    const int64_t d = p.input_dims(i);
    if (d < 0 || d > kMaxFftDim) {
      return ctx.Field("input_dims").Error(absl::StrCat(d, " is outside [0, ", kMaxFftDim, "]"));
    }
    if (i < batch_rank) batch = std::min<__int128>(batch * d, se::kMaxFftBatch + 1);
  }
  c.batch = static_cast<int64_t>(batch);
  const std::vector<int64_t> want = se::FftInputDims(c);
  const std::vector<int64_t> have(p.input_dims().begin() + batch_rank, p.input_dims().end());
  if (have != want) {
    return ctx.Field("input_dims").Error(absl::StrCat(
        "the trailing dims [", absl::StrJoin(have, ","), "] are not [", absl::StrJoin(want, ","),
        "], which a ", se::FftTypeName(c.type), " of fft_length [",
        absl::StrJoin(c.lengths, ","), "] reads"));
  }
  const absl::Status valid = se::CheckFftConfig(c);
  if (!valid.ok()) return ctx.Error(valid.message());
  return c;
}

absl::Status CheckHolds(const BufferSlice& slice, int64_t bytes, absl::string_view field,
                        const ThunkContext& ctx) {
  if (bytes <= slice.size) return absl::OkStatus();
  return ctx.Field(field).Error(
      absl::StrCat("the array needs ", bytes, " bytes but the slice has ", slice.size));
}

}  // namespace

absl::StatusOr<std::unique_ptr<FftThunk>> FftThunk::FromProto(ThunkInfo info,
                                                              const FftThunkProto& proto,
                                                              const ThunkContext& ctx) {
  ASSIGN_OR_RETURN(se::FftConfig c, ConfigFromProto(proto, ctx));
  ASSIGN_OR_RETURN(BufferSlice input, ctx.Slice(proto.input(), "input"));
  ASSIGN_OR_RETURN(BufferSlice output, ctx.Slice(proto.output(), "output"));
  ASSIGN_OR_RETURN(BufferSlice workspace, ctx.Slice(proto.workspace(), "workspace"));
  RETURN_IF_ERROR(
      CheckHolds(input, se::FftInputElements(c) * se::FftInputElementBytes(c), "input", ctx));
  RETURN_IF_ERROR(
      CheckHolds(output, se::FftOutputElements(c) * se::FftOutputElementBytes(c), "output", ctx));
  RETURN_IF_ERROR(CheckHolds(workspace, se::FftWorkspaceBytes(c), "workspace", ctx));
  if (workspace.size > 0 && !ctx.tables().allocations[workspace.allocation].is_temp) {
    return ctx.Field("workspace").Error(
        absl::StrCat("allocation ", workspace.allocation, " is not a temp allocation"));
  }
  const std::pair<const BufferSlice*, const BufferSlice*> pairs[] = {
      {&output, &input}, {&output, &workspace}, {&input, &workspace}};
  for (const auto& [a, b] : pairs) {
    if (SlicesOverlap(*a, *b)) {
      return ctx.Error(absl::StrCat("the fft's ", a->ToString(), " overlaps ", b->ToString()));
    }
  }
  std::vector<int64_t> dims(proto.input_dims().begin(), proto.input_dims().end());
  return std::make_unique<FftThunk>(std::move(info), std::move(c), std::move(dims), input, output,
                                    workspace);
}

absl::Status FftThunk::Initialize(const InitializeParams& params) {
  std::lock_guard<std::mutex> lock(mu_);
  if (plans_.contains(params.executor)) return absl::OkStatus();
  absl::StatusOr<std::unique_ptr<se::FftPlan>> plan = params.executor->PrepareFft(config_);
  if (!plan.ok()) return AnnotateError(*this, plan.status());
  plans_.emplace(params.executor, *std::move(plan));
  return absl::OkStatus();
}

const se::FftPlan* FftThunk::plan(se::StreamExecutor* executor) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = plans_.find(executor);
  return it == plans_.end() ? nullptr : it->second.get();
}

absl::Status FftThunk::ExecuteOnStream(const ExecuteParams& params) const {
  const se::FftPlan* prepared = plan(params.executor);
  if (prepared == nullptr) {
    return AnnotateError(
        *this, absl::FailedPreconditionError("the fft was not initialized for this device"));
  }
  const BufferAllocations& buffers = *params.buffers;
  return AnnotateError(*this, stream(params)->Fft(*prepared, buffers.GetDeviceAddress(input_),
                                                  buffers.GetDeviceAddress(output_),
                                                  buffers.GetDeviceAddress(workspace_)));
}

absl::StatusOr<ThunkProto> FftThunk::ToProto() const {
  ThunkProto proto = InfoProto();
  FftThunkProto* f = proto.mutable_fft();
  for (const TypeMapping& m : kTypes) {
    if (m.type == config_.type) f->set_fft_type(m.proto);
  }
  for (const PrecisionMapping& m : kPrecisions) {
    if (m.precision == config_.precision) f->set_precision(PrimitiveTypeToProto(m.type));
  }
  f->mutable_fft_length()->Add(config_.lengths.begin(), config_.lengths.end());
  f->mutable_input_dims()->Add(input_dims_.begin(), input_dims_.end());
  *f->mutable_input() = SliceToProto(input_);
  *f->mutable_output() = SliceToProto(output_);
  *f->mutable_workspace() = SliceToProto(workspace_);
  return proto;
}

}  // namespace xla::gpu
