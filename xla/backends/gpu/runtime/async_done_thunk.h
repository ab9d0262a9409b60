// AsyncDoneThunk: makes its stream wait until the nested work of the
// AsyncStartThunk with the same async id has finished. The pairing (a done
// after its start, in the same sequence, on the same stream) is checked when
// the enclosing sequence is read (sequential_thunk.cc).
//
// Thread-safety: see thunk.h.
#ifndef XLA_BACKENDS_GPU_RUNTIME_ASYNC_DONE_THUNK_H_
#define XLA_BACKENDS_GPU_RUNTIME_ASYNC_DONE_THUNK_H_

#include <memory>

#include "xla/backends/gpu/runtime/thunk.h"

namespace xla::gpu {

class AsyncDoneThunk : public Thunk {
 public:
  AsyncDoneThunk(ThunkInfo info, int64_t async_id)
      : Thunk(Kind::kAsyncDone, std::move(info)), async_id_(async_id) {}

  static absl::StatusOr<std::unique_ptr<AsyncDoneThunk>> FromProto(
      ThunkInfo info, const AsyncDoneThunkProto& proto, const ThunkContext& ctx);

  absl::Status ExecuteOnStream(const ExecuteParams& params) const override;
  absl::StatusOr<ThunkProto> ToProto() const override;

  int64_t async_id() const { return async_id_; }

 private:
  int64_t async_id_;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_ASYNC_DONE_THUNK_H_
