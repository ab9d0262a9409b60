#include "xla/backends/gpu/runtime/sequential_thunk.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "xla/backends/gpu/runtime/thunk_trace.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

// Every async_start in `list` has one later async_done of its id on its
// stream, and every async_done closes an open start.
absl::Status CheckAsyncPairs(const google::protobuf::RepeatedPtrField<ThunkProto>& list,
                             const ThunkContext& ctx, absl::string_view field) {
  std::map<int64_t, int64_t> open;  // async id -> stream id of the start
  for (int i = 0; i < list.size(); ++i) {
    const ThunkProto& t = list[i];
    const ThunkContext at = ctx.Field(absl::StrCat(field, "[", i, "]"));
    if (t.kind_case() == ThunkProto::kAsyncStart) {
      if (!open.emplace(t.async_start().async_id(), t.execution_stream_id()).second) {
        return at.Error(absl::StrCat("async id ", t.async_start().async_id(), " is started twice"));
      }
    } else if (t.kind_case() == ThunkProto::kAsyncDone) {
      auto it = open.find(t.async_done().async_id());
      if (it == open.end()) {
        return at.Error(absl::StrCat("async_done of id ", t.async_done().async_id(),
                                     " has no earlier async_start in the same sequence"));
      }
      if (it->second != t.execution_stream_id()) {
        return at.Error(absl::StrCat("async_done of id ", it->first, " runs on stream ",
                                     t.execution_stream_id(), " but its async_start on stream ",
                                     it->second));
      }
      open.erase(it);
    }
  }
  if (!open.empty()) {
    return ctx.Field(field).Error(absl::StrCat("async_start of id ", open.begin()->first,
                                               " has no matching async_done"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<SequentialThunk>> SequentialThunk::FromProto(
    ThunkInfo info, const SequentialThunkProto& proto, const ThunkContext& ctx) {
  return FromThunkList(std::move(info), proto.thunks(), ctx, "thunks");
}

absl::StatusOr<std::unique_ptr<SequentialThunk>> SequentialThunk::FromThunkList(
    ThunkInfo info, const google::protobuf::RepeatedPtrField<ThunkProto>& list,
    const ThunkContext& ctx, absl::string_view field) {
  RETURN_IF_ERROR(CheckAsyncPairs(list, ctx, field));
  std::vector<std::unique_ptr<Thunk>> thunks;
  thunks.reserve(list.size());
  for (int i = 0; i < list.size(); ++i) {
    ASSIGN_OR_RETURN(std::unique_ptr<Thunk> thunk,
                     ctx.DeserializeNested(list[i], absl::StrCat(field, "[", i, "]")));
    thunks.push_back(std::move(thunk));
  }
  return std::make_unique<SequentialThunk>(std::move(info), std::move(thunks));
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
