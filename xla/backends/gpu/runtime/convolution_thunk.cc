#include "xla/backends/gpu/runtime/convolution_thunk.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "xla/types/xla_data_convert.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

namespace se = ::stream_executor;

// Largest extent, stride, padding or dilation accepted: keeps every
// product of the span computation far below 2^63.
constexpr int64_t kMaxConvValue = int64_t{1} << 31;

struct KindMapping {
  ConvolutionKindProto proto;
  se::DnnConvolutionKind kind;
};
constexpr KindMapping kKinds[] = {
    {CONVOLUTION_KIND_FORWARD, se::DnnConvolutionKind::kForward},
    {CONVOLUTION_KIND_BACKWARD_DATA, se::DnnConvolutionKind::kBackwardData},
    {CONVOLUTION_KIND_BACKWARD_FILTER, se::DnnConvolutionKind::kBackwardFilter},
};

struct TypeMapping {
  PrimitiveType type;
  se::DnnElementType dnn;
};
constexpr TypeMapping kTypes[] = {
    {PrimitiveType::F16, se::DnnElementType::kF16},
    {PrimitiveType::BF16, se::DnnElementType::kBF16},
    {PrimitiveType::F32, se::DnnElementType::kF32},
};

struct LayoutMapping {
  ConvolutionFilterLayoutProto proto;
  se::DnnFilterLayout layout;
};
constexpr LayoutMapping kLayouts[] = {
    {CONVOLUTION_FILTER_LAYOUT_OIHW, se::DnnFilterLayout::kOIHW},
    {CONVOLUTION_FILTER_LAYOUT_OHWI, se::DnnFilterLayout::kOHWI},
};

struct ActivationMapping {
  ConvolutionActivationProto proto;
  se::DnnEpilogue epilogue;
};
constexpr ActivationMapping kActivations[] = {
    {CONVOLUTION_ACTIVATION_IDENTITY, se::DnnEpilogue::kBias},
    {CONVOLUTION_ACTIVATION_RELU, se::DnnEpilogue::kBiasRelu},
};

// The epilogue `p` asks for: kNone without a bias (an activation alone is
// refused), else the activation's.
absl::StatusOr<se::DnnEpilogue> EpilogueFromProto(const ConvolutionThunkProto& p,
                                                  const ThunkContext& ctx) {
  if (!p.has_bias()) {
    if (p.activation() == CONVOLUTION_ACTIVATION_IDENTITY) return se::DnnEpilogue::kNone;
    return ctx.Field("activation").Error(absl::StrCat(
        "activation ", static_cast<int>(p.activation()), " without a bias; an epilogue needs both"));
  }
  for (const ActivationMapping& m : kActivations) {
    if (m.proto == p.activation()) return m.epilogue;
  }
  return ctx.Field("activation").Error(absl::StrCat(
      "unknown epilogue activation ", static_cast<int>(p.activation()),
      "; identity and relu are known (the artifact may be newer than this runtime)"));
}

absl::StatusOr<std::vector<int64_t>> Ints(const google::protobuf::RepeatedField<int64_t>& values,
                                          absl::string_view field, const ThunkContext& ctx) {
  if (values.size() > 5) {
    return ctx.Field(field).Error(absl::StrCat(values.size(), " entries; at most 5"));
  }
  for (int64_t v : values) {
    if (v < 0 || v > kMaxConvValue) {
      return ctx.Field(field).Error(absl::StrCat(v, " is outside [0, ", kMaxConvValue, "]"));
    }
  }
  return std::vector<int64_t>(values.begin(), values.end());
}

absl::StatusOr<se::DnnConvolutionConfig> ConfigFromProto(const ConvolutionThunkProto& p,
                                                         const ThunkContext& ctx) {
  se::DnnConvolutionConfig c;
  const KindMapping* kind = nullptr;
  for (const KindMapping& m : kKinds) {
    if (m.proto == p.kind()) kind = &m;
  }
  if (kind == nullptr) {
    return ctx.Field("kind").Error(absl::StrCat(
        "unknown convolution kind ", static_cast<int>(p.kind()),
        "; forward, backward_data and backward_filter are known (the artifact may be newer than "
        "this runtime)"));
  }
  c.kind = kind->kind;
  ASSIGN_OR_RETURN(const PrimitiveType type,
                   PrimitiveTypeFromProto(p.element_type(), ctx.Field("element_type").path()));
  const TypeMapping* dnn_type = nullptr;
  for (const TypeMapping& m : kTypes) {
    if (m.type == type) dnn_type = &m;
  }
  if (dnn_type == nullptr) {
    return ctx.Field("element_type").Error(absl::StrCat(
        "convolutions run in f16, bf16 or f32, not ", PrimitiveTypeName(type)));
  }
  c.element_type = dnn_type->dnn;
  const LayoutMapping* layout = nullptr;
  for (const LayoutMapping& m : kLayouts) {
    if (m.proto == p.filter_layout()) layout = &m;
  }
  if (layout == nullptr) {
    return ctx.Field("filter_layout").Error(absl::StrCat(
        "unknown filter layout ", static_cast<int>(p.filter_layout()), "; OIHW and OHWI are known"));
  }
  c.filter_layout = layout->layout;
  ASSIGN_OR_RETURN(c.input.dims, Ints(p.input_dims(), "input_dims", ctx));
  ASSIGN_OR_RETURN(c.input.strides, Ints(p.input_strides(), "input_strides", ctx));
  ASSIGN_OR_RETURN(c.output.dims, Ints(p.output_dims(), "output_dims", ctx));
  ASSIGN_OR_RETURN(c.output.strides, Ints(p.output_strides(), "output_strides", ctx));
  ASSIGN_OR_RETURN(c.filter_dims, Ints(p.filter_dims(), "filter_dims", ctx));
  ASSIGN_OR_RETURN(c.padding, Ints(p.padding(), "padding", ctx));
  ASSIGN_OR_RETURN(c.strides, Ints(p.strides(), "strides", ctx));
  ASSIGN_OR_RETURN(c.dilations, Ints(p.dilations(), "dilations", ctx));
  c.feature_groups = p.feature_groups() == 0 ? 1 : p.feature_groups();
  c.allow_tf32 = p.allow_tf32();
  ASSIGN_OR_RETURN(c.epilogue, EpilogueFromProto(p, ctx));
  const absl::Status valid = se::CheckDnnConvolution(c);
  if (!valid.ok()) return ctx.Error(valid.message());
  return c;
}

// `slice` must hold `elements` elements of `width` bytes.
absl::Status CheckHolds(const BufferSlice& slice, int64_t elements, int64_t width,
                        absl::string_view field, const ThunkContext& ctx) {
  if (static_cast<__int128>(elements) * width <= slice.size) return absl::OkStatus();
  return ctx.Field(field).Error(absl::StrCat("the tensor spans ", elements, " elements (",
                                             elements * width, " bytes) but the slice has ",
                                             slice.size, " bytes"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<ConvolutionThunk>> ConvolutionThunk::FromProto(
    ThunkInfo info, const ConvolutionThunkProto& proto, const ThunkContext& ctx) {
  ASSIGN_OR_RETURN(se::DnnConvolutionConfig c, ConfigFromProto(proto, ctx));
  ASSIGN_OR_RETURN(BufferSlice x, ctx.Slice(proto.input(), "input"));
  ASSIGN_OR_RETURN(BufferSlice w, ctx.Slice(proto.filter(), "filter"));
  ASSIGN_OR_RETURN(BufferSlice y, ctx.Slice(proto.output(), "output"));
  ASSIGN_OR_RETURN(BufferSlice workspace, ctx.Slice(proto.workspace(), "workspace"));
  BufferSlice bias;
  if (c.epilogue != se::DnnEpilogue::kNone) {
    ASSIGN_OR_RETURN(bias, ctx.Slice(proto.bias(), "bias"));
  }
  const int64_t width = se::DnnElementBytes(c.element_type);
  if (c.epilogue != se::DnnEpilogue::kNone) {
    RETURN_IF_ERROR(CheckHolds(bias, c.output.dims[1], width, "bias", ctx));
  }
  RETURN_IF_ERROR(CheckHolds(x, se::DnnTensorSpan(c.input.dims, c.input.strides), width, "input", ctx));
  RETURN_IF_ERROR(CheckHolds(w, se::DnnTensorSpan(c.filter_dims, se::DnnFilterStrides(c)), width,
                             "filter", ctx));
  RETURN_IF_ERROR(
      CheckHolds(y, se::DnnTensorSpan(c.output.dims, c.output.strides), width, "output", ctx));
  if (workspace.size > 0 && !ctx.tables().allocations[workspace.allocation].is_temp) {
    return ctx.Field("workspace").Error(absl::StrCat("allocation ", workspace.allocation,
                                                     " is not a temp allocation"));
  }
  const BufferSlice* written = c.kind == se::DnnConvolutionKind::kForward        ? &y
                               : c.kind == se::DnnConvolutionKind::kBackwardData ? &x
                                                                                 : &w;
  for (const BufferSlice* other : {&x, &w, &y, &workspace, &bias}) {
    if (other == &bias && c.epilogue == se::DnnEpilogue::kNone) continue;
    if (other != written && SlicesOverlap(*written, *other)) {
      return ctx.Error(absl::StrCat("the ", se::DnnConvolutionKindName(c.kind),
                                    " result ", written->ToString(), " overlaps ",
                                    other->ToString()));
    }
  }
  return std::make_unique<ConvolutionThunk>(std::move(info), std::move(c), x, w, y, workspace,
                                            bias);
}

absl::Status ConvolutionThunk::Initialize(const InitializeParams& params) {
  std::lock_guard<std::mutex> lock(mu_);
  if (plans_.contains(params.executor)) return absl::OkStatus();
  absl::StatusOr<std::unique_ptr<se::DnnConvolutionPlan>> plan =
      params.executor->PrepareConvolution(config_, workspace_.size);
  if (!plan.ok()) return AnnotateError(*this, plan.status());
  plans_.emplace(params.executor, *std::move(plan));
  return absl::OkStatus();
}

const se::DnnConvolutionPlan* ConvolutionThunk::plan(se::StreamExecutor* executor) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = plans_.find(executor);
  return it == plans_.end() ? nullptr : it->second.get();
}

absl::Status ConvolutionThunk::ToCommand(const ExecuteParams& params,
                                         se::DeviceCommand* command) const {
  const se::DnnConvolutionPlan* prepared = plan(params.executor);
  if (prepared == nullptr) {
    return AnnotateError(*this, absl::FailedPreconditionError(
                                    "the convolution was not initialized for this device"));
  }
  const BufferAllocations& buffers = *params.buffers;
  *command = se::DeviceCommand::Convolution(
      *prepared, buffers.GetDeviceAddress(input_), buffers.GetDeviceAddress(filter_),
      buffers.GetDeviceAddress(output_), buffers.GetDeviceAddress(workspace_),
      config_.epilogue == se::DnnEpilogue::kNone ? se::DeviceMemoryBase()
                                                 : buffers.GetDeviceAddress(bias_));
  return absl::OkStatus();
}

absl::Status ConvolutionThunk::ExecuteOnStream(const ExecuteParams& params) const {
  se::DeviceCommand command;
  RETURN_IF_ERROR(ToCommand(params, &command));
  const auto& a = command.args;
  return AnnotateError(*this,
                       stream(params)->Convolution(*command.convolution, a[0], a[1], a[2], a[3], a[4]));
}

absl::StatusOr<ThunkProto> ConvolutionThunk::ToProto() const {
  ThunkProto proto = InfoProto();
  ConvolutionThunkProto* c = proto.mutable_convolution();
  for (const KindMapping& m : kKinds) {
    if (m.kind == config_.kind) c->set_kind(m.proto);
  }
  for (const TypeMapping& m : kTypes) {
    if (m.dnn == config_.element_type) c->set_element_type(PrimitiveTypeToProto(m.type));
  }
  for (const LayoutMapping& m : kLayouts) {
    if (m.layout == config_.filter_layout) c->set_filter_layout(m.proto);
  }
  *c->mutable_input() = SliceToProto(input_);
  *c->mutable_filter() = SliceToProto(filter_);
  *c->mutable_output() = SliceToProto(output_);
  *c->mutable_workspace() = SliceToProto(workspace_);
  c->mutable_input_dims()->Add(config_.input.dims.begin(), config_.input.dims.end());
  c->mutable_input_strides()->Add(config_.input.strides.begin(), config_.input.strides.end());
  c->mutable_output_dims()->Add(config_.output.dims.begin(), config_.output.dims.end());
  c->mutable_output_strides()->Add(config_.output.strides.begin(), config_.output.strides.end());
  c->mutable_filter_dims()->Add(config_.filter_dims.begin(), config_.filter_dims.end());
  c->mutable_padding()->Add(config_.padding.begin(), config_.padding.end());
  c->mutable_strides()->Add(config_.strides.begin(), config_.strides.end());
  c->mutable_dilations()->Add(config_.dilations.begin(), config_.dilations.end());
  c->set_feature_groups(config_.feature_groups);
  if (config_.allow_tf32) c->set_allow_tf32(true);
  for (const ActivationMapping& m : kActivations) {
    if (m.epilogue != config_.epilogue) continue;
    *c->mutable_bias() = SliceToProto(bias_);
    c->set_activation(m.proto);
  }
  return proto;
}

}  // namespace xla::gpu
