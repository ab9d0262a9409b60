#include "xla/backends/gpu/runtime/conditional_thunk.h"

#include "absl/strings/str_cat.h"
#include "xla/backends/gpu/runtime/device_value.h"
#include "xla/types/xla_data_convert.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {

absl::StatusOr<std::unique_ptr<ConditionalThunk>> ConditionalThunk::FromProto(
    ThunkInfo info, const ConditionalThunkProto& proto, const ThunkContext& ctx) {
  ASSIGN_OR_RETURN(PrimitiveType type, PrimitiveTypeFromProto(proto.branch_index_type(),
                                                              ctx.Field("branch_index_type").path()));
  const bool is_pred = type == PrimitiveType::PRED;
  if (!is_pred && type != PrimitiveType::S32) {
    return ctx.Field("branch_index_type").Error(absl::StrCat("must be pred or s32, not ",
                                                             PrimitiveTypeName(type)));
  }
  ASSIGN_OR_RETURN(BufferSlice index, ctx.Slice(proto.branch_index(), "branch_index"));
  if (index.size != (is_pred ? 1 : 4)) {
    return ctx.Field("branch_index").Error(absl::StrCat("a ", PrimitiveTypeName(type), " index has ",
                                                        is_pred ? 1 : 4, " bytes, got ", index.size));
  }
  RETURN_IF_ERROR(ctx.CheckCount(proto.branches_size(), "branches"));
  if (is_pred ? proto.branches_size() != 2 : proto.branches_size() < 1) {
    return ctx.Field("branches").Error(absl::StrCat(proto.branches_size(), " branches; a ",
                                                    PrimitiveTypeName(type), " index needs ",
                                                    is_pred ? "exactly 2" : "at least 1"));
  }
  std::vector<std::unique_ptr<SequentialThunk>> branches;
  for (int i = 0; i < proto.branches_size(); ++i) {
    ASSIGN_OR_RETURN(auto branch,
                     SequentialThunk::FromProto(info, proto.branches(i),
                                                ctx.Field(absl::StrCat("branches[", i, "]"))));
    branches.push_back(std::move(branch));
  }
  return std::make_unique<ConditionalThunk>(std::move(info), std::move(index), type,
                                            std::move(branches));
}

absl::Status ConditionalThunk::Prepare(ResourceRequests& requests) const {
  for (const auto& b : branches_) RETURN_IF_ERROR(b->Prepare(requests));
  return absl::OkStatus();
}

absl::Status ConditionalThunk::Initialize(const InitializeParams& params) {
  for (const auto& b : branches_) RETURN_IF_ERROR(b->Initialize(params));
  return absl::OkStatus();
}

absl::Status ConditionalThunk::ExecuteOnStream(const ExecuteParams& params) const {
  absl::StatusOr<int64_t> value =
      ReadDeviceScalar(stream(params), params.buffers->GetDeviceAddress(branch_index_));
  if (!value.ok()) return AnnotateError(*this, value.status());
  const int64_t last = static_cast<int64_t>(branches_.size()) - 1;
  int64_t branch = 0;
  if (index_type_ == PrimitiveType::PRED) {
    branch = *value != 0 ? 0 : 1;
  } else {
    branch = (*value < 0 || *value > last) ? last : *value;
  }
  return branches_[branch]->ExecuteOnStream(params);
}

absl::StatusOr<ThunkProto> ConditionalThunk::ToProto() const {
  ThunkProto proto = InfoProto();
  ConditionalThunkProto* c = proto.mutable_conditional();
  *c->mutable_branch_index() = SliceToProto(branch_index_);
  c->set_branch_index_type(PrimitiveTypeToProto(index_type_));
  for (const auto& b : branches_) {
    ASSIGN_OR_RETURN(*c->add_branches(), b->ToSequenceProto());
  }
  return proto;
}

std::vector<const Thunk*> ConditionalThunk::children() const {
  std::vector<const Thunk*> out;
  for (const auto& b : branches_) out.push_back(b.get());
  return out;
}

}  // namespace xla::gpu
