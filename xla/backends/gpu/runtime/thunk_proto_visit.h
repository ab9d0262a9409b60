// Visiting every thunk of a serialized thunk tree: the top-level list and
// every list nested in it (sequential thunks, while conditions and bodies,
// conditional branches, async-start sequences), parents before their
// children, in order.
//
// Thread-safety: pure over the protos it reads.
#ifndef XLA_BACKENDS_GPU_RUNTIME_THUNK_PROTO_VISIT_H_
#define XLA_BACKENDS_GPU_RUNTIME_THUNK_PROTO_VISIT_H_

#include <functional>

#include "google/protobuf/repeated_ptr_field.h"
#include "xla/backends/gpu/runtime/executable.pb.h"

namespace xla::gpu {

// Calls `visit` once for each thunk in `thunks` and everything nested in
// them. Never fails. The recursion depth is the tree's nesting depth, which
// the loader bounds for artifacts it accepted.
void ForEachThunkProto(const google::protobuf::RepeatedPtrField<ThunkProto>& thunks,
                       const std::function<void(const ThunkProto&)>& visit);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_THUNK_PROTO_VISIT_H_
