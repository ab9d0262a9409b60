// CopyThunk: copies one slice to another of the same size on the device.
//
// FromProto checks both slices, equal sizes and that the two ranges do not
// overlap partially (identical ranges are allowed; copying is then a no-op).
//
// Thread-safety: see thunk.h.
#ifndef XLA_BACKENDS_GPU_RUNTIME_COPY_THUNK_H_
#define XLA_BACKENDS_GPU_RUNTIME_COPY_THUNK_H_

#include <memory>

#include "xla/backends/gpu/runtime/thunk.h"

namespace xla::gpu {

class CopyThunk : public Thunk {
 public:
  CopyThunk(ThunkInfo info, BufferSlice source, BufferSlice destination)
      : Thunk(Kind::kCopy, std::move(info)),
        source_(std::move(source)),
        destination_(std::move(destination)) {}

  static absl::StatusOr<std::unique_ptr<CopyThunk>> FromProto(ThunkInfo info,
                                                              const CopyThunkProto& proto,
                                                              const ThunkContext& ctx);

  absl::Status ExecuteOnStream(const ExecuteParams& params) const override;
  absl::StatusOr<ThunkProto> ToProto() const override;

 private:
  BufferSlice source_;
  BufferSlice destination_;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_COPY_THUNK_H_
