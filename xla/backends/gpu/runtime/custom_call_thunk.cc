#include "xla/backends/gpu/runtime/custom_call_thunk.h"

#include "absl/strings/str_cat.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

absl::StatusOr<ffi::Attributes> AttributesFromProto(
    const google::protobuf::RepeatedPtrField<FfiAttributeProto>& protos, const ThunkContext& ctx) {
  ffi::Attributes attributes;
  for (int i = 0; i < protos.size(); ++i) {
    const FfiAttributeProto& a = protos[i];
    const ThunkContext at = ctx.Field(absl::StrCat("attributes[", i, "]"));
    ffi::AttributeValue value;
    switch (a.value_case()) {
      case FfiAttributeProto::kI64:
        value = a.i64();
        break;
      case FfiAttributeProto::kF64:
        value = a.f64();
        break;
      case FfiAttributeProto::kStr:
        value = a.str();
        break;
      case FfiAttributeProto::VALUE_NOT_SET:
        return at.Error(absl::StrCat("attribute '", a.name(),
                                     "' has no value of a known type (artifact newer than runtime?)"));
    }
    if (a.name().empty()) return at.Error("attribute name is empty");
    if (!attributes.emplace(a.name(), std::move(value)).second) {
      return at.Error(absl::StrCat("attribute '", a.name(), "' appears twice"));
    }
  }
  return attributes;
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
  absl::StatusOr<const ffi::HandlerEntry*> handler =
      ctx.tables().ffi->Lookup(proto.target_name(), ctx.tables().target->platform);
  if (!handler.ok()) return ctx.Field("target_name").Error(handler.status().message());
  ASSIGN_OR_RETURN(std::vector<BufferSlice> operands, Slices(proto.operands(), "operands", ctx));
  ASSIGN_OR_RETURN(std::vector<BufferSlice> results, Slices(proto.results(), "results", ctx));
  ASSIGN_OR_RETURN(ffi::Attributes attributes, AttributesFromProto(proto.attributes(), ctx));
  RETURN_IF_ERROR(ffi::CheckSignature(**handler, proto.operands_size(), proto.results_size(),
                                      attributes, ctx.path()));
  return std::make_unique<CustomCallThunk>(std::move(info), proto.target_name(), *handler,
                                           std::move(operands), std::move(results), proto.opaque(),
                                           std::move(attributes));
}

absl::Status CustomCallThunk::ExecuteOnStream(const ExecuteParams& params) const {
  const std::vector<stream_executor::DeviceMemoryBase> operands = Resolve(operands_, *params.buffers);
  const std::vector<stream_executor::DeviceMemoryBase> results = Resolve(results_, *params.buffers);
  ffi::CallFrame frame;
  frame.executor = params.executor;
  frame.stream = stream(params);
  frame.operands = operands;
  frame.results = results;
  frame.opaque = opaque_;
  frame.attributes = &attributes_;
  return AnnotateError(*this, handler_->handler(frame));
}

absl::StatusOr<ThunkProto> CustomCallThunk::ToProto() const {
  ThunkProto proto = InfoProto();
  CustomCallThunkProto* c = proto.mutable_custom_call();
  c->set_target_name(target_name_);
  for (const BufferSlice& s : operands_) *c->add_operands() = SliceToProto(s);
  for (const BufferSlice& s : results_) *c->add_results() = SliceToProto(s);
  c->set_opaque(opaque_);
  for (const auto& [name, value] : attributes_) {
    FfiAttributeProto* a = c->add_attributes();
    a->set_name(name);
    if (const int64_t* i = std::get_if<int64_t>(&value)) a->set_i64(*i);
    if (const double* d = std::get_if<double>(&value)) a->set_f64(*d);
    if (const std::string* s = std::get_if<std::string>(&value)) a->set_str(*s);
  }
  return proto;
}

}  // namespace xla::gpu
