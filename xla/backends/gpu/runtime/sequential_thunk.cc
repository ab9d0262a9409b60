#include "xla/backends/gpu/runtime/sequential_thunk.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "xla/backends/gpu/runtime/graph_runner.h"
#include "xla/backends/gpu/runtime/thunk_trace.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {

absl::Status SequentialThunk::ListBuilder::CheckAsync(const ThunkProto& t) {
  const int64_t i = checked_++;
  if (t.kind_case() == ThunkProto::kAsyncStart) {
    if (!open_.emplace(t.async_start().async_id(), t.execution_stream_id()).second) {
      return ctx_.Field(absl::StrCat(field_, "[", i, "]"))
          .Error(absl::StrCat("async id ", t.async_start().async_id(), " is started twice"));
    }
  } else if (t.kind_case() == ThunkProto::kAsyncDone) {
    auto it = open_.find(t.async_done().async_id());
    if (it == open_.end()) {
      return ctx_.Field(absl::StrCat(field_, "[", i, "]"))
          .Error(absl::StrCat("async_done of id ", t.async_done().async_id(),
                              " has no earlier async_start in the same sequence"));
    }
    if (it->second != t.execution_stream_id()) {
      return ctx_.Field(absl::StrCat(field_, "[", i, "]"))
          .Error(absl::StrCat("async_done of id ", it->first, " runs on stream ",
                              t.execution_stream_id(), " but its async_start on stream ",
                              it->second));
    }
    open_.erase(it);
  }
  return absl::OkStatus();
}

absl::Status SequentialThunk::ListBuilder::FinishChecks() {
  if (!open_.empty()) {
    return ctx_.Field(field_).Error(absl::StrCat("async_start of id ", open_.begin()->first,
                                                 " has no matching async_done"));
  }
  thunks_.reserve(static_cast<size_t>(checked_));
  return absl::OkStatus();
}

absl::Status SequentialThunk::ListBuilder::Add(const ThunkProto& proto) {
  const size_t i = thunks_.size();
  ASSIGN_OR_RETURN(std::unique_ptr<Thunk> thunk,
                   ctx_.DeserializeNested(proto, absl::StrCat(field_, "[", i, "]")));
  thunks_.push_back(std::move(thunk));
  return absl::OkStatus();
}

std::unique_ptr<SequentialThunk> SequentialThunk::ListBuilder::Finish(ThunkInfo info) && {
  return std::make_unique<SequentialThunk>(std::move(info), std::move(thunks_));
}

absl::StatusOr<std::unique_ptr<SequentialThunk>> SequentialThunk::FromProto(
    ThunkInfo info, const SequentialThunkProto& proto, const ThunkContext& ctx) {
  return FromThunkList(std::move(info), proto.thunks(), ctx, "thunks");
}

absl::StatusOr<std::unique_ptr<SequentialThunk>> SequentialThunk::FromThunkList(
    ThunkInfo info, const google::protobuf::RepeatedPtrField<ThunkProto>& list,
    const ThunkContext& ctx, absl::string_view field) {
  ListBuilder builder(ctx, field);
  for (const ThunkProto& t : list) RETURN_IF_ERROR(builder.CheckAsync(t));
  RETURN_IF_ERROR(builder.FinishChecks());
  for (const ThunkProto& t : list) RETURN_IF_ERROR(builder.Add(t));
  return std::move(builder).Finish(std::move(info));
}

absl::Status SequentialThunk::Prepare(ResourceRequests& requests) const {
  for (const auto& thunk : thunks_) RETURN_IF_ERROR(thunk->Prepare(requests));
  return absl::OkStatus();
}

absl::Status SequentialThunk::Initialize(const InitializeParams& params) {
  for (const auto& thunk : thunks_) RETURN_IF_ERROR(thunk->Initialize(params));
  return absl::OkStatus();
}

absl::Status SequentialThunk::ExecuteOnStream(const ExecuteParams& params) const {
  if (params.graphs != nullptr) {
    // Runs with a graph are submitted as one launch; the rest plainly.
    for (size_t i = 0; i < thunks_.size();) {
      ASSIGN_OR_RETURN(const size_t covered, params.graphs->TryLaunch(*thunks_[i], params));
      if (covered > 0) {
        i += covered;
        continue;
      }
      RETURN_IF_ERROR(thunks_[i]->ExecuteOnStream(params));
      ++i;
    }
    return absl::OkStatus();
  }
  if (params.tracer == nullptr) {
    for (const auto& thunk : thunks_) RETURN_IF_ERROR(thunk->ExecuteOnStream(params));
    return absl::OkStatus();
  }
  for (const auto& thunk : thunks_) {
    const int64_t event = params.tracer->Begin(*thunk, params);
    absl::Status status = thunk->ExecuteOnStream(params);
    params.tracer->End(event, params);
    RETURN_IF_ERROR(status);
  }
  return absl::OkStatus();
}

absl::StatusOr<SequentialThunkProto> SequentialThunk::ToSequenceProto() const {
  SequentialThunkProto proto;
  for (const auto& thunk : thunks_) {
    ASSIGN_OR_RETURN(*proto.add_thunks(), thunk->ToProto());
  }
  return proto;
}

absl::StatusOr<ThunkProto> SequentialThunk::ToProto() const {
  ThunkProto proto = InfoProto();
  ASSIGN_OR_RETURN(*proto.mutable_sequential(), ToSequenceProto());
  return proto;
}

std::vector<const Thunk*> SequentialThunk::children() const {
  std::vector<const Thunk*> out;
  for (const auto& thunk : thunks_) out.push_back(thunk.get());
  return out;
}

}  // namespace xla::gpu
