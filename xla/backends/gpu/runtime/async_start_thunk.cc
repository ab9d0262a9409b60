#include "xla/backends/gpu/runtime/async_start_thunk.h"

#include "absl/strings/str_cat.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {

absl::StatusOr<std::unique_ptr<AsyncStartThunk>> AsyncStartThunk::FromProto(
    ThunkInfo info, const AsyncStartThunkProto& proto, const ThunkContext& ctx) {
  if (proto.async_id() < 0) {
    return ctx.Field("async_id").Error(absl::StrCat(proto.async_id(), " is negative"));
  }
  if (!ctx.tables().async_ids->insert(proto.async_id()).second) {
    return ctx.Field("async_id").Error(absl::StrCat("async id ", proto.async_id(),
                                                    " is started more than once in the artifact"));
  }
  RETURN_IF_ERROR(ctx.CheckStreamId(proto.stream_id(), "stream_id"));
  if (proto.stream_id() == info.execution_stream_id) {
    return ctx.Field("stream_id").Error(absl::StrCat("stream ", proto.stream_id(),
                                                     " is the start's own stream"));
  }
  ThunkInfo nested{proto.stream_id(), info.profile_annotation};
  ASSIGN_OR_RETURN(auto thunks, SequentialThunk::FromProto(
                                    nested, proto.thunks(),
                                    ctx.Field("thunks").WithStream(proto.stream_id())));
  return std::make_unique<AsyncStartThunk>(std::move(info), proto.async_id(), proto.stream_id(),
                                           std::move(thunks));
}

absl::Status AsyncStartThunk::Prepare(ResourceRequests& requests) const {
  requests.async_ids.insert(async_id_);
  return thunks_->Prepare(requests);
}

absl::Status AsyncStartThunk::Initialize(const InitializeParams& params) {
  return thunks_->Initialize(params);
}

absl::Status AsyncStartThunk::ExecuteOnStream(const ExecuteParams& params) const {
  AsyncEvents& events = params.async_events->at(async_id_);
  stream_executor::Stream* parent = stream(params);
  stream_executor::Stream* child = params.streams[stream_id_];
  RETURN_IF_ERROR(AnnotateError(*this, parent->RecordEvent(events.started.get())));
  RETURN_IF_ERROR(AnnotateError(*this, child->WaitFor(events.started.get())));
  RETURN_IF_ERROR(thunks_->ExecuteOnStream(params));
  return AnnotateError(*this, child->RecordEvent(events.done.get()));
}

absl::StatusOr<ThunkProto> AsyncStartThunk::ToProto() const {
  ThunkProto proto = InfoProto();
  AsyncStartThunkProto* a = proto.mutable_async_start();
  a->set_async_id(async_id_);
  a->set_stream_id(stream_id_);
  ASSIGN_OR_RETURN(*a->mutable_thunks(), thunks_->ToSequenceProto());
  return proto;
}

}  // namespace xla::gpu
