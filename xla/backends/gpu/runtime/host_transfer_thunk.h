// HostSendThunk and HostRecvThunk: XLA's host transfers (send and recv with
// is_host_transfer=true; docs/host_transfers.md), one thunk per direction.
// A send hands its slice's bytes to the caller's
// HostTransferCallbacks::send (execute_options.h); a recv fills its slice
// from HostTransferCallbacks::recv. send-done and recv-done need no thunk:
// the stream orders everything after the transfer. Runtime feature
// "host_transfers"; executable.proto's HostTransferProto is the wire form.
//
// Execution, the same on every platform: a staging buffer from the
// executor's AllocateHost (pinned on cuda) per execution, a copy between it
// and the slice on the thunk's stream, and a host callback
// (Stream::DoHostCallback) that calls the caller's callback and frees the
// staging buffer. A send copies device to host before its callback; a recv
// copies host to device after it. The callbacks run on the stream's
// host-callback thread, in program order per stream.
//
// FromProto checks channel_id >= 0, that the shape is an array or the empty
// tuple, that the slice lies in its allocation (ThunkContext::Slice) and
// that its size is the shape's byte size.
//
// Thread-safety: see thunk.h; immutable after construction, ExecuteOnStream
// may run concurrently (each execution has its own staging buffer).
#ifndef XLA_BACKENDS_GPU_RUNTIME_HOST_TRANSFER_THUNK_H_
#define XLA_BACKENDS_GPU_RUNTIME_HOST_TRANSFER_THUNK_H_

#include <cstdint>
#include <memory>
#include <string>

#include "xla/backends/gpu/runtime/thunk.h"
#include "xla/types/shape.h"

namespace xla::gpu {

// What one host transfer moves, checked (HostTransferFromProto).
struct HostTransfer {
  int64_t channel_id = 0;
  std::string rendezvous;
  Shape shape;  // an array, or the empty tuple
  BufferSlice slice;
};

// The transfer `proto` describes; InvalidArgument naming the field (under
// ctx's path) when the channel is negative, the shape is neither an array
// nor the empty tuple, the slice leaves its allocation, or the slice's size
// is not the shape's byte size.
absl::StatusOr<HostTransfer> HostTransferFromProto(const HostTransferProto& proto,
                                                   const ThunkContext& ctx);
HostTransferProto HostTransferToProto(const HostTransfer& transfer);

// What the two thunks share: the transfer, its description in errors, and
// the FailedPrecondition of a run without the callback.
class HostTransferThunk : public Thunk {
 public:
  const HostTransfer& transfer() const { return transfer_; }

 protected:
  HostTransferThunk(Kind kind, ThunkInfo info, HostTransfer transfer)
      : Thunk(kind, std::move(info)), transfer_(std::move(transfer)) {}
  // "channel 3, rendezvous \"_x_dtoh_0\", f32[3,5]".
  std::string Describe() const;
  // FailedPrecondition: no `direction` callback for this transfer, and
  // what the caller must pass.
  absl::Status MissingCallback(absl::string_view direction) const;
  // `status` from the caller's callback, annotated with the thunk and
  // the transfer (OK passes through).
  absl::Status CallbackError(absl::Status status) const;

 private:
  const HostTransfer transfer_;
};

class HostSendThunk : public HostTransferThunk {
 public:
  HostSendThunk(ThunkInfo info, HostTransfer transfer)
      : HostTransferThunk(Kind::kHostSend, std::move(info), std::move(transfer)) {}

  static absl::StatusOr<std::unique_ptr<HostSendThunk>> FromProto(ThunkInfo info,
                                                                  const HostTransferProto& proto,
                                                                  const ThunkContext& ctx);

  // Fails (FailedPrecondition) without params.host_transfers->send, and
  // with the enqueue errors of the copy and the callback; the callback's
  // own error becomes the stream's.
  absl::Status ExecuteOnStream(const ExecuteParams& params) const override;
  absl::StatusOr<ThunkProto> ToProto() const override;
};

class HostRecvThunk : public HostTransferThunk {
 public:
  HostRecvThunk(ThunkInfo info, HostTransfer transfer)
      : HostTransferThunk(Kind::kHostRecv, std::move(info), std::move(transfer)) {}

  static absl::StatusOr<std::unique_ptr<HostRecvThunk>> FromProto(ThunkInfo info,
                                                                  const HostTransferProto& proto,
                                                                  const ThunkContext& ctx);

  // As HostSendThunk::ExecuteOnStream, with params.host_transfers->recv.
  absl::Status ExecuteOnStream(const ExecuteParams& params) const override;
  absl::StatusOr<ThunkProto> ToProto() const override;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_HOST_TRANSFER_THUNK_H_
