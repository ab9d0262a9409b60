#include "xla/backends/gpu/runtime/thunk_proto_visit.h"

namespace xla::gpu {

void ForEachThunkProto(const google::protobuf::RepeatedPtrField<ThunkProto>& thunks,
                       const std::function<void(const ThunkProto&)>& visit) {
  for (const ThunkProto& t : thunks) {
    visit(t);
    if (t.has_sequential()) ForEachThunkProto(t.sequential().thunks(), visit);
    if (t.has_while_()) {
      ForEachThunkProto(t.while_().condition().thunks(), visit);
      ForEachThunkProto(t.while_().body().thunks(), visit);
    }
    if (t.has_conditional()) {
      for (const SequentialThunkProto& branch : t.conditional().branches()) {
        ForEachThunkProto(branch.thunks(), visit);
      }
    }
    if (t.has_async_start()) ForEachThunkProto(t.async_start().thunks().thunks(), visit);
  }
}

}  // namespace xla::gpu
