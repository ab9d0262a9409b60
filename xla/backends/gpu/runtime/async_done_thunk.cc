#include "xla/backends/gpu/runtime/async_done_thunk.h"

#include "absl/strings/str_cat.h"

namespace xla::gpu {

absl::StatusOr<std::unique_ptr<AsyncDoneThunk>> AsyncDoneThunk::FromProto(
    ThunkInfo info, const AsyncDoneThunkProto& proto, const ThunkContext& ctx) {
  if (proto.async_id() < 0) {
    return ctx.Field("async_id").Error(absl::StrCat(proto.async_id(), " is negative"));
  }
  return std::make_unique<AsyncDoneThunk>(std::move(info), proto.async_id());
}

absl::Status AsyncDoneThunk::ExecuteOnStream(const ExecuteParams& params) const {
  AsyncEvents& events = params.async_events->at(async_id_);
  return AnnotateError(*this, stream(params)->WaitFor(events.done.get()));
}

absl::StatusOr<ThunkProto> AsyncDoneThunk::ToProto() const {
  ThunkProto proto = InfoProto();
  proto.mutable_async_done()->set_async_id(async_id_);
  return proto;
}

}  // namespace xla::gpu
