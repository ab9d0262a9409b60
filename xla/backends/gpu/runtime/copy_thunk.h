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
// With a dynamic offset (CopyThunkProto.dynamic_offset, copy_dynamic_offset.h)
// both slices move with the iteration of an enclosing while thunk, read
// from ExecuteParams::loop when the copy is enqueued; a window outside its
// allocation is an OutOfRange error naming the thunk and the iteration,
// and nothing is copied. Such a copy is never a command-buffer command.
//
// Thread-safety: see thunk.h.
#ifndef XLA_BACKENDS_GPU_RUNTIME_COPY_THUNK_H_
#define XLA_BACKENDS_GPU_RUNTIME_COPY_THUNK_H_

#include <memory>
#include <optional>

#include "xla/backends/gpu/runtime/copy_dynamic_offset.h"
#include "xla/backends/gpu/runtime/thunk.h"

namespace xla::gpu {

class CopyThunk : public Thunk {
 public:
  enum class Direction { kDeviceToDevice, kDeviceToHost, kHostToDevice };

  CopyThunk(ThunkInfo info, BufferSlice source, BufferSlice destination,
            Direction direction = Direction::kDeviceToDevice,
            std::optional<CopyDynamicOffset> dynamic_offset = std::nullopt)
      : Thunk(Kind::kCopy, std::move(info)),
        source_(std::move(source)),
        destination_(std::move(destination)),
        direction_(direction),
        dynamic_offset_(std::move(dynamic_offset)) {}

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
  // The loop-following offsets; nullopt for a copy at fixed slices.
  const std::optional<CopyDynamicOffset>& dynamic_offset() const { return dynamic_offset_; }

 private:
  // Enqueues the copy of `source` to `destination` on this thunk's stream.
  absl::Status Enqueue(const ExecuteParams& params, const BufferSlice& source,
                       const BufferSlice& destination) const;

  BufferSlice source_;
  BufferSlice destination_;
  Direction direction_;
  std::optional<CopyDynamicOffset> dynamic_offset_;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_COPY_THUNK_H_
