#include "xla/backends/gpu/runtime/custom_call_thunk.h"

#include "absl/strings/str_cat.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

template <typename T>
absl::StatusOr<std::vector<T>> ArrayFromProto(const google::protobuf::RepeatedField<T>& values,
                                              absl::string_view name, const ThunkContext& at) {
  if (values.size() > ffi::kMaxAttributeArrayElements) {
    return at.Error(absl::StrCat("array attribute '", name, "' has ", values.size(),
                                 " elements, more than the limit ",
                                 ffi::kMaxAttributeArrayElements));
  }
  return std::vector<T>(values.begin(), values.end());
}

absl::StatusOr<ffi::AttributeValue> ValueFromProto(const FfiAttributeProto& a,
                                                   const ThunkContext& at) {
  switch (a.value_case()) {
    case FfiAttributeProto::kI64:
      return ffi::AttributeValue(a.i64());
    case FfiAttributeProto::kF64:
      return ffi::AttributeValue(a.f64());
    case FfiAttributeProto::kStr:
      return ffi::AttributeValue(a.str());
    case FfiAttributeProto::kB:
      return ffi::AttributeValue(a.b());
    case FfiAttributeProto::kI64Array: {
      ASSIGN_OR_RETURN(std::vector<int64_t> v, ArrayFromProto(a.i64_array().values(), a.name(), at));
      return ffi::AttributeValue(std::move(v));
    }
    case FfiAttributeProto::kF64Array: {
      ASSIGN_OR_RETURN(std::vector<double> v, ArrayFromProto(a.f64_array().values(), a.name(), at));
      return ffi::AttributeValue(std::move(v));
    }
    case FfiAttributeProto::VALUE_NOT_SET:
      break;
  }
  return at.Error(absl::StrCat("attribute '", a.name(),
                               "' has no value of a known type (artifact newer than runtime?)"));
}

absl::StatusOr<ffi::Attributes> AttributesFromProto(
    const google::protobuf::RepeatedPtrField<FfiAttributeProto>& protos, const ThunkContext& ctx) {
  RETURN_IF_ERROR(ctx.CheckCount(protos.size(), "attributes"));
  ffi::Attributes attributes;
  for (int i = 0; i < protos.size(); ++i) {
    const FfiAttributeProto& a = protos[i];
    const ThunkContext at = ctx.Field(absl::StrCat("attributes[", i, "]"));
    ASSIGN_OR_RETURN(ffi::AttributeValue value, ValueFromProto(a, at));
    if (a.name().empty()) return at.Error("attribute name is empty");
    if (!attributes.emplace(a.name(), std::move(value)).second) {
      return at.Error(absl::StrCat("attribute '", a.name(), "' appears twice"));
    }
  }
  return attributes;
}

void ValueToProto(const ffi::AttributeValue& value, FfiAttributeProto* a) {
  switch (ffi::KindOf(value)) {
    case ffi::AttributeKind::kI64:
      a->set_i64(std::get<int64_t>(value));
      return;
    case ffi::AttributeKind::kF64:
      a->set_f64(std::get<double>(value));
      return;
    case ffi::AttributeKind::kStr:
      a->set_str(std::get<std::string>(value));
      return;
    case ffi::AttributeKind::kBool:
      a->set_b(std::get<bool>(value));
      return;
    case ffi::AttributeKind::kI64Array:
      for (int64_t v : std::get<std::vector<int64_t>>(value)) a->mutable_i64_array()->add_values(v);
      a->mutable_i64_array();  // an empty array is still an array
      return;
    case ffi::AttributeKind::kF64Array:
      for (double v : std::get<std::vector<double>>(value)) a->mutable_f64_array()->add_values(v);
      a->mutable_f64_array();
      return;
  }
}

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

std::vector<stream_executor::DeviceMemoryBase> Resolve(const std::vector<BufferSlice>& slices,
                                                       const BufferAllocations& buffers) {
  std::vector<stream_executor::DeviceMemoryBase> out;
  out.reserve(slices.size());
  for (const BufferSlice& s : slices) out.push_back(buffers.GetDeviceAddress(s));
  return out;
}

}  // namespace

absl::StatusOr<std::unique_ptr<CustomCallThunk>> CustomCallThunk::FromProto(
    ThunkInfo info, const CustomCallThunkProto& proto, const ThunkContext& ctx) {
  if (proto.target_name().empty()) return ctx.Field("target_name").Error("target name is empty");
  Call call;
  call.target_name = proto.target_name();
  // Informational only: a value this runtime does not know is kept as is.
  call.api_version = proto.api_version();
  ASSIGN_OR_RETURN(call.operands, Slices(proto.operands(), "operands", ctx));
  ASSIGN_OR_RETURN(call.results, Slices(proto.results(), "results", ctx));
  ASSIGN_OR_RETURN(call.attributes, AttributesFromProto(proto.attributes(), ctx));
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
  for (const auto& [name, value] : call_.attributes) {
    FfiAttributeProto* a = c->add_attributes();
    a->set_name(name);
    ValueToProto(value, a);
  }
  c->set_api_version(call_.api_version);
  return proto;
}

}  // namespace xla::gpu
