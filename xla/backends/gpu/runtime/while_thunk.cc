#include "xla/backends/gpu/runtime/while_thunk.h"

#include "absl/strings/str_cat.h"
#include "xla/backends/gpu/runtime/device_value.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {

absl::StatusOr<std::unique_ptr<WhileThunk>> WhileThunk::FromProto(ThunkInfo info,
                                                                  const WhileThunkProto& proto,
                                                                  const ThunkContext& ctx) {
  ASSIGN_OR_RETURN(BufferSlice predicate, ctx.Slice(proto.predicate(), "predicate"));
  if (predicate.size != 1) {
    return ctx.Field("predicate").Error(absl::StrCat("a PRED slice has 1 byte, got ", predicate.size));
  }
  std::optional<int64_t> trip_count;
  if (proto.has_known_trip_count()) {
    if (proto.known_trip_count() < 0) {
      return ctx.Field("known_trip_count").Error(absl::StrCat(proto.known_trip_count(), " is negative"));
    }
    trip_count = proto.known_trip_count();
  }
  ThunkInfo nested{info.execution_stream_id, info.profile_annotation};
  // The condition and the body run inside this loop: copies with a dynamic
  // offset check their loop_depth and windows against it.
  const EnclosingLoop loop{ctx.loop(), trip_count, ctx.path()};
  const ThunkContext inside = ctx.WithLoop(&loop);
  ASSIGN_OR_RETURN(auto condition, SequentialThunk::FromProto(nested, proto.condition(),
                                                              inside.Field("condition")));
  ASSIGN_OR_RETURN(auto body,
                   SequentialThunk::FromProto(nested, proto.body(), inside.Field("body")));
  return std::make_unique<WhileThunk>(std::move(info), std::move(condition), std::move(predicate),
                                      std::move(body), trip_count);
}

absl::Status WhileThunk::Prepare(ResourceRequests& requests) const {
  RETURN_IF_ERROR(condition_->Prepare(requests));
  return body_->Prepare(requests);
}

absl::Status WhileThunk::Initialize(const InitializeParams& params) {
  RETURN_IF_ERROR(condition_->Initialize(params));
  return body_->Initialize(params);
}

absl::Status WhileThunk::ExecuteOnStream(const ExecuteParams& params) const {
  // This loop's iteration counter, published to the thunks it runs; it
  // lives on this frame, so it belongs to this execution alone.
  LoopIteration counter{0, params.loop};
  ExecuteParams inside = params;
  inside.loop = &counter;
  if (known_trip_count_.has_value()) {
    for (int64_t i = 0; i < *known_trip_count_; ++i) {
      counter.iteration = i;
      RETURN_IF_ERROR(body_->ExecuteOnStream(inside));
    }
    return absl::OkStatus();
  }
  const stream_executor::DeviceMemoryBase predicate = params.buffers->GetDeviceAddress(predicate_);
  for (int64_t i = 0;; ++i) {
    counter.iteration = i;
    RETURN_IF_ERROR(condition_->ExecuteOnStream(inside));
    absl::StatusOr<int64_t> value = ReadDeviceScalar(stream(params), predicate);
    if (!value.ok()) return AnnotateError(*this, value.status());
    if (*value == 0) return absl::OkStatus();
    RETURN_IF_ERROR(body_->ExecuteOnStream(inside));
  }
}

absl::StatusOr<ThunkProto> WhileThunk::ToProto() const {
  ThunkProto proto = InfoProto();
  WhileThunkProto* w = proto.mutable_while_();
  ASSIGN_OR_RETURN(*w->mutable_condition(), condition_->ToSequenceProto());
  *w->mutable_predicate() = SliceToProto(predicate_);
  ASSIGN_OR_RETURN(*w->mutable_body(), body_->ToSequenceProto());
  if (known_trip_count_.has_value()) w->set_known_trip_count(*known_trip_count_);
  return proto;
}

}  // namespace xla::gpu
