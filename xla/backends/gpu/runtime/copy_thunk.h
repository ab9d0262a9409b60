// CopyThunk: copies one slice to another of the same size on the device.
//
// FromProto checks both slices, equal sizes and that the two ranges do not
// overlap partially (identical ranges are allowed; copying is then a no-op).
// The copy's direction comes from the allocations' memory spaces: a slice
// of a host-memory allocation (BufferAllocation::in_host_memory, the
// buffers of offloaded activations) is the host side of a device-to-host
// or host-to-device copy (cuMemcpyDtoHAsync / HtoDAsync on CUDA); every
// other copy, host-to-host included, is device-to-device.
//
// Thread-safety: see thunk.h.
#ifndef XLA_BACKENDS_GPU_RUNTIME_COPY_THUNK_H_
#define XLA_BACKENDS_GPU_RUNTIME_COPY_THUNK_H_

#include <memory>

#include "xla/backends/gpu/runtime/thunk.h"

namespace xla::gpu {

class CopyThunk : public Thunk {
 public:
  enum class Direction { kDeviceToDevice, kDeviceToHost, kHostToDevice };

  CopyThunk(ThunkInfo info, BufferSlice source, BufferSlice destination,
            Direction direction = Direction::kDeviceToDevice)
      : Thunk(Kind::kCopy, std::move(info)),
        source_(std::move(source)),
        destination_(std::move(destination)),
        direction_(direction) {}

  static absl::StatusOr<std::unique_ptr<CopyThunk>> FromProto(ThunkInfo info,
                                                              const CopyThunkProto& proto,
                                                              const ThunkContext& ctx);

  absl::Status ExecuteOnStream(const ExecuteParams& params) const override;
  // A command for a non-empty device-to-device copy between different
  // slices (copies to or from host memory, and copies onto themselves,
  // which enqueue nothing, are not).
  bool IsCommand() const override;
  absl::Status ToCommand(const ExecuteParams& params,
                         stream_executor::DeviceCommand* command) const override;
  absl::StatusOr<ThunkProto> ToProto() const override;

  Direction direction() const { return direction_; }

 private:
  BufferSlice source_;
  BufferSlice destination_;
  Direction direction_;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_COPY_THUNK_H_
