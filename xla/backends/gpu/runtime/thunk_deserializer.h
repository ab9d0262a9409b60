// The one place that rebuilds every thunk kind from a ThunkProto: one switch
// over the `kind` oneof.
//
// DeserializeThunk checks the common fields (execution_stream_id in range
// and equal to the stream the context expects: only async_start moves work
// to another stream) and dispatches to FooThunk::FromProto. Two distinct
// errors for kinds it cannot build:
//   * an unset oneof (the artifact uses a kind this runtime does not know):
//     "<path>: unknown thunk kind (field number N): the artifact is newer
//     than this runtime; upgrade the runtime or compile for format 1";
//   * a kind the format knows but this runtime does not implement
//     (all_reduce): "<path>: thunk kind all_reduce is known to format 1 but
//     not supported by this runtime; ...".
//
// Thread-safety: pure; uses only what the context points to.
#ifndef XLA_BACKENDS_GPU_RUNTIME_THUNK_DESERIALIZER_H_
#define XLA_BACKENDS_GPU_RUNTIME_THUNK_DESERIALIZER_H_

#include <memory>

#include "absl/status/statusor.h"
#include "xla/backends/gpu/runtime/thunk.h"

namespace xla::gpu {

absl::StatusOr<std::unique_ptr<Thunk>> DeserializeThunk(const ThunkProto& proto,
                                                        const ThunkContext& ctx);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_THUNK_DESERIALIZER_H_
