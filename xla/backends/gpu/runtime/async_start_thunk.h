// AsyncStartThunk: structured work on another stream. It records an event
// on its own (parent) stream, makes stream `stream_id` wait for it, enqueues
// its nested sequence there, and records a "done" event after it. The
// AsyncDoneThunk with the same async id makes the parent wait for that.
//
// FromProto checks the stream id (in range, not the parent's), that the
// async id is >= 0 and started once in the artifact, and the nested
// sequence (whose thunks must run on `stream_id`). The events are
// per-execution resources declared in Prepare.
//
// Thread-safety: see thunk.h.
#ifndef XLA_BACKENDS_GPU_RUNTIME_ASYNC_START_THUNK_H_
#define XLA_BACKENDS_GPU_RUNTIME_ASYNC_START_THUNK_H_

#include <memory>

#include "xla/backends/gpu/runtime/sequential_thunk.h"

namespace xla::gpu {

class AsyncStartThunk : public Thunk {
 public:
  AsyncStartThunk(ThunkInfo info, int64_t async_id, int64_t stream_id,
                  std::unique_ptr<SequentialThunk> thunks)
      : Thunk(Kind::kAsyncStart, std::move(info)),
        async_id_(async_id),
        stream_id_(stream_id),
        thunks_(std::move(thunks)) {}

  static absl::StatusOr<std::unique_ptr<AsyncStartThunk>> FromProto(
      ThunkInfo info, const AsyncStartThunkProto& proto, const ThunkContext& ctx);

  absl::Status Prepare(ResourceRequests& requests) const override;
  absl::Status Initialize(const InitializeParams& params) override;
  absl::Status ExecuteOnStream(const ExecuteParams& params) const override;
  absl::StatusOr<ThunkProto> ToProto() const override;
  std::vector<const Thunk*> children() const override { return {thunks_.get()}; }

  int64_t async_id() const { return async_id_; }
  int64_t stream_id() const { return stream_id_; }

 private:
  int64_t async_id_;
  int64_t stream_id_;
  std::unique_ptr<SequentialThunk> thunks_;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_ASYNC_START_THUNK_H_
