#include "xla/backends/gpu/runtime/thunk.h"

#include "absl/strings/str_cat.h"

namespace xla::gpu {
namespace {

std::string Join(absl::string_view path, absl::string_view field) {
  if (path.empty()) return std::string(field);
  return absl::StrCat(path, ".", field);
}

}  // namespace

ThunkContext ThunkContext::Field(absl::string_view name) const {
  return ThunkContext(tables_, Join(path_, name), depth_, stream_id_, loop_);
}

absl::StatusOr<std::unique_ptr<Thunk>> ThunkContext::DeserializeNested(
    const ThunkProto& proto, absl::string_view field) const {
  ThunkContext child(tables_, Join(path_, field), depth_ + 1, stream_id_, loop_);
  if (child.depth_ > kMaxThunkNestingDepth) {
    return child.Error(absl::StrCat("thunks nested ", child.depth_, " deep exceed the limit ",
                                    kMaxThunkNestingDepth));
  }
  return tables_->deserializer(proto, child);
}

absl::Status ThunkContext::Error(absl::string_view what) const {
  return absl::InvalidArgumentError(absl::StrCat(path_, ": ", what));
}

absl::StatusOr<BufferSlice> ThunkContext::Slice(const BufferSliceProto& proto,
                                                absl::string_view field) const {
  return SliceFromProto(proto, tables_->allocations, Join(path_, field));
}

absl::Status ThunkContext::CheckCount(int64_t count, absl::string_view field) const {
  if (count <= kMaxThunkRepeatedField) return absl::OkStatus();
  return Field(field).Error(absl::StrCat(count, " entries exceed the limit ", kMaxThunkRepeatedField));
}

absl::Status ThunkContext::CheckStreamId(int64_t id, absl::string_view field) const {
  if (id >= 0 && id < tables_->num_streams) return absl::OkStatus();
  return Field(field).Error(absl::StrCat("stream id ", id, " is outside [0, ", tables_->num_streams,
                                         ") (num_streams)"));
}

absl::StatusOr<int64_t> LoopIterationAt(const LoopIteration* innermost, int64_t depth) {
  const LoopIteration* loop = innermost;
  for (int64_t d = 0; loop != nullptr && d < depth; ++d) loop = loop->outer;
  if (depth >= 0 && loop != nullptr) return loop->iteration;
  return absl::FailedPreconditionError(
      absl::StrCat("no while loop runs ", depth, " level(s) out from this thunk"));
}

ThunkProto Thunk::InfoProto() const {
  ThunkProto proto;
  proto.set_execution_stream_id(info_.execution_stream_id);
  proto.set_profile_annotation(info_.profile_annotation);
  return proto;
}

absl::string_view ThunkKindName(Thunk::Kind kind) {
  switch (kind) {
#define XLA_THUNK_KIND_NAME_(e, name, oneof) \
  case Thunk::Kind::e:                       \
    return name;
    XLA_THUNK_KINDS(XLA_THUNK_KIND_NAME_)
#undef XLA_THUNK_KIND_NAME_
  }
  return "?";
}

absl::Status AnnotateError(const Thunk& thunk, absl::Status status) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat(ThunkKindName(thunk.kind()), " thunk '",
                                                  thunk.info().profile_annotation, "': ",
                                                  status.message()));
}

absl::Status Thunk::ToCommand(const ExecuteParams& /*params*/,
                             stream_executor::DeviceCommand* /*command*/) const {
  return absl::UnimplementedError(
      absl::StrCat("a ", ThunkKindName(kind_), " thunk is not a command-buffer command"));
}

}  // namespace xla::gpu
