#include "xla/backends/gpu/runtime/custom_call_thunk.h"

#include "absl/strings/str_cat.h"
#include "xla/backends/gpu/runtime/ffi_attribute_proto.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

absl::StatusOr<std::vector<BufferSlice>> Slices(
    const google::protobuf::RepeatedPtrField<BufferSliceProto>& protos, absl::string_view field,
    const ThunkContext& ctx) {
  RETURN_IF_ERROR(ctx.CheckCount(protos.size(), field));
  std::vector<BufferSlice> out;
  for (int i = 0; i < protos.size(); ++i) {
    ASSIGN_OR_RETURN(BufferSlice s, ctx.Slice(protos[i], absl::StrCat(field, "[", i, "]")));
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<const Shape*> ShapesOf(const std::vector<BufferSlice>& slices) {
  std::vector<const Shape*> out;
  out.reserve(slices.size());
  for (const BufferSlice& s : slices) out.push_back(s.shape.get());
  return out;
}

std::vector<stream_executor::DeviceMemoryBase> Resolve(const std::vector<BufferSlice>& slices,
                                                       const BufferAllocations& buffers) {
  std::vector<stream_executor::DeviceMemoryBase> out;
  out.reserve(slices.size());
  for (const BufferSlice& s : slices) out.push_back(buffers.GetDeviceAddress(s));
  return out;
}

}  // namespace

CustomCallThunk::CustomCallThunk(ThunkInfo info, Call call, const ffi::FfiRegistry* registry,
                                 std::string platform, std::string path,
                                 const ffi::HandlerEntry* handler)
    : Thunk(Kind::kCustomCall, std::move(info)),
      call_(std::move(call)),
      registry_(registry),
      platform_(std::move(platform)),
      path_(std::move(path)),
      handler_(handler),
      operand_shapes_(ShapesOf(call_.operands)),
      result_shapes_(ShapesOf(call_.results)) {}

absl::StatusOr<std::unique_ptr<CustomCallThunk>> CustomCallThunk::FromProto(
    ThunkInfo info, const CustomCallThunkProto& proto, const ThunkContext& ctx) {
  if (proto.target_name().empty()) return ctx.Field("target_name").Error("target name is empty");
  Call call;
  call.target_name = proto.target_name();
  // Informational only: a value this runtime does not know is kept as is.
  call.api_version = proto.api_version();
  ASSIGN_OR_RETURN(call.operands, Slices(proto.operands(), "operands", ctx));
  ASSIGN_OR_RETURN(call.results, Slices(proto.results(), "results", ctx));
  RETURN_IF_ERROR(ctx.CheckCount(proto.attributes_size(), "attributes"));
  ASSIGN_OR_RETURN(call.attributes, AttributesFromProto(proto.attributes(), ctx.path()));
  call.opaque = proto.opaque();
  const ffi::FfiRegistry* registry = ctx.tables().ffi;
  const std::string& platform = ctx.tables().target->platform;
  // A handler this process has already is checked now; one it lacks is
  // looked up again at Initialize.
  const ffi::HandlerEntry* handler = nullptr;
  if (absl::StatusOr<const ffi::HandlerEntry*> found = registry->Lookup(call.target_name, platform);
      found.ok()) {
    handler = *found;
    RETURN_IF_ERROR(ffi::CheckSignature(*handler, proto.operands_size(), proto.results_size(),
                                        call.attributes, ctx.path()));
  }
  return std::make_unique<CustomCallThunk>(std::move(info), std::move(call), registry, platform,
                                           ctx.path(), handler);
}

absl::Status CustomCallThunk::Initialize(const InitializeParams& params) {
  absl::StatusOr<const ffi::HandlerEntry*> found = registry_->Lookup(call_.target_name, platform_);
  if (!found.ok()) {
    return absl::Status(found.status().code(),
                        absl::StrCat(path_, ".target_name: custom call not resolved at Initialize: ",
                                     found.status().message()));
  }
  RETURN_IF_ERROR(ffi::CheckSignature(**found, static_cast<int64_t>(call_.operands.size()),
                                      static_cast<int64_t>(call_.results.size()), call_.attributes,
                                      path_));
  handler_.store(*found, std::memory_order_release);
  return absl::OkStatus();
}

absl::Status CustomCallThunk::ExecuteOnStream(const ExecuteParams& params) const {
  const ffi::HandlerEntry* handler = handler_.load(std::memory_order_acquire);
  if (handler == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        path_, ": custom call '", call_.target_name, "' has no handler: call Initialize first"));
  }
  const std::vector<stream_executor::DeviceMemoryBase> operands =
      Resolve(call_.operands, *params.buffers);
  const std::vector<stream_executor::DeviceMemoryBase> results =
      Resolve(call_.results, *params.buffers);
  ffi::CallFrame frame;
  frame.executor = params.executor;
  frame.operand_shapes = operand_shapes_;
  frame.result_shapes = result_shapes_;
  frame.stream = stream(params);
  frame.operands = operands;
  frame.results = results;
  frame.opaque = call_.opaque;
  frame.attributes = &call_.attributes;
  return AnnotateError(*this, handler->handler(frame));
}

absl::StatusOr<ThunkProto> CustomCallThunk::ToProto() const {
  ThunkProto proto = InfoProto();
  CustomCallThunkProto* c = proto.mutable_custom_call();
  c->set_target_name(call_.target_name);
  for (const BufferSlice& s : call_.operands) *c->add_operands() = SliceToProto(s);
  for (const BufferSlice& s : call_.results) *c->add_results() = SliceToProto(s);
  c->set_opaque(call_.opaque);
  AttributesToProto(call_.attributes, c->mutable_attributes());
  c->set_api_version(call_.api_version);
  return proto;
}

}  // namespace xla::gpu
