#include "xla/backends/gpu/runtime/host_transfer_thunk.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "xla/backends/gpu/runtime/execute_options.h"
#include "xla/types/xla_data_convert.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

namespace se = ::stream_executor;

// Host memory from an executor's AllocateHost, freed (DeallocateHost) with
// its last owner. The host callbacks that use it share it, so a stream that
// drops its queued work after an error frees it too.
class Staging {
 public:
  static absl::StatusOr<std::shared_ptr<Staging>> Allocate(se::StreamExecutor* executor,
                                                           int64_t size) {
    ASSIGN_OR_RETURN(void* memory, executor->AllocateHost(static_cast<uint64_t>(size)));
    return std::shared_ptr<Staging>(new Staging(executor, static_cast<uint8_t*>(memory)));
  }
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;
  ~Staging() {
    // DeallocateHost fails only on a pointer AllocateHost did not return.
    if (data_ != nullptr) executor_->DeallocateHost(data_).IgnoreError();
  }
  uint8_t* data() const { return data_; }

 private:
  Staging(se::StreamExecutor* executor, uint8_t* data) : executor_(executor), data_(data) {}
  se::StreamExecutor* const executor_;
  uint8_t* const data_;
};

// Staging for `thunk`'s `size` bytes, the error annotated with the thunk.
absl::StatusOr<std::shared_ptr<Staging>> AllocateStaging(const Thunk& thunk,
                                                         const ExecuteParams& params,
                                                         int64_t size) {
  absl::StatusOr<std::shared_ptr<Staging>> staging = Staging::Allocate(params.executor, size);
  if (!staging.ok()) return AnnotateError(thunk, staging.status());
  return staging;
}

bool IsEmptyTuple(const Shape& shape) { return shape.IsTuple() && shape.tuple_shapes_size() == 0; }

absl::StatusOr<Shape> DataShape(const HostTransferProto& proto, const ThunkContext& ctx) {
  const ThunkContext field = ctx.Field("shape");
  absl::StatusOr<Shape> shape = ShapeFromProto(proto.shape(), field.path());
  if (!shape.ok()) return field.Error(shape.status().message());
  if (IsEmptyTuple(*shape)) return shape;
  if (!shape->IsArray() || !shape->is_static()) {
    return field.Error(absl::StrCat("a host transfer moves a static array or (), not ",
                                    shape->ToString()));
  }
  return shape;
}

// The shape's byte size (0 for ()).
int64_t DataBytes(const Shape& shape) {
  return IsEmptyTuple(shape) ? 0 : shape.ByteSize().value_or(-1);
}

// A thunk of type T (HostSendThunk or HostRecvThunk) over `proto`'s
// checked transfer.
template <typename T>
absl::StatusOr<std::unique_ptr<T>> MakeFromProto(ThunkInfo info, const HostTransferProto& proto,
                                                 const ThunkContext& ctx) {
  ASSIGN_OR_RETURN(HostTransfer t, HostTransferFromProto(proto, ctx));
  return std::make_unique<T>(std::move(info), std::move(t));
}

}  // namespace

absl::StatusOr<HostTransfer> HostTransferFromProto(const HostTransferProto& proto,
                                                   const ThunkContext& ctx) {
  if (proto.channel_id() < 0) {
    return ctx.Field("channel_id")
        .Error(absl::StrCat(proto.channel_id(), " is negative; HLO channel ids are >= 0"));
  }
  HostTransfer t;
  t.channel_id = proto.channel_id();
  t.rendezvous = proto.rendezvous();
  ASSIGN_OR_RETURN(t.shape, DataShape(proto, ctx));
  ASSIGN_OR_RETURN(t.slice, ctx.Slice(proto.slice(), "slice"));
  const int64_t bytes = DataBytes(t.shape);
  if (bytes != t.slice.size) {
    return ctx.Field("slice").Error(absl::StrCat("the data ", t.shape.ToString(), " has ", bytes,
                                                 " bytes but the slice has ", t.slice.size));
  }
  return t;
}

HostTransferProto HostTransferToProto(const HostTransfer& transfer) {
  HostTransferProto proto;
  proto.set_channel_id(transfer.channel_id);
  proto.set_rendezvous(transfer.rendezvous);
  *proto.mutable_shape() = ShapeToProto(transfer.shape);
  *proto.mutable_slice() = SliceToProto(transfer.slice);
  return proto;
}

std::string HostTransferThunk::Describe() const {
  return absl::StrCat("channel ", transfer_.channel_id, ", rendezvous \"", transfer_.rendezvous,
                      "\", ", transfer_.shape.ToString(/*print_layout=*/false));
}

absl::Status HostTransferThunk::MissingCallback(absl::string_view direction) const {
  return AnnotateError(
      *this, absl::FailedPreconditionError(absl::StrCat(
                 "no host ", direction, " callback for ", Describe(),
                 ": the artifact has host transfers; pass ExecuteOptions::host_transfers with a ",
                 direction, " callback (xla_aot run: --host_recv / --host_send_dir)")));
}

absl::Status HostTransferThunk::CallbackError(absl::Status status) const {
  if (status.ok()) return status;
  return AnnotateError(*this, absl::Status(status.code(), absl::StrCat("the callback for ",
                                                                       Describe(), " failed: ",
                                                                       status.message())));
}

absl::StatusOr<std::unique_ptr<HostSendThunk>> HostSendThunk::FromProto(
    ThunkInfo info, const HostTransferProto& proto, const ThunkContext& ctx) {
  return MakeFromProto<HostSendThunk>(std::move(info), proto, ctx);
}

absl::Status HostSendThunk::ExecuteOnStream(const ExecuteParams& params) const {
  const HostTransferCallbacks* callbacks = params.host_transfers;
  if (callbacks == nullptr || !callbacks->send) return MissingCallback("send");
  const int64_t size = transfer().slice.size;
  ASSIGN_OR_RETURN(std::shared_ptr<Staging> staging, AllocateStaging(*this, params, size));
  se::Stream* s = stream(params);
  if (size > 0) {
    RETURN_IF_ERROR(AnnotateError(
        *this, s->Memcpy(staging->data(), params.buffers->GetDeviceAddress(transfer().slice),
                         static_cast<uint64_t>(size))));
  }
  return AnnotateError(*this, s->DoHostCallback([this, callbacks, size,
                                                 staging = std::move(staging)]() -> absl::Status {
    const HostTransfer& t = transfer();
    return CallbackError(callbacks->send(t.channel_id, t.rendezvous, t.shape,
                                         absl::MakeConstSpan(staging->data(), size)));
  }));
}

absl::StatusOr<ThunkProto> HostSendThunk::ToProto() const {
  ThunkProto proto = InfoProto();
  *proto.mutable_host_send() = HostTransferToProto(transfer());
  return proto;
}

absl::StatusOr<std::unique_ptr<HostRecvThunk>> HostRecvThunk::FromProto(
    ThunkInfo info, const HostTransferProto& proto, const ThunkContext& ctx) {
  return MakeFromProto<HostRecvThunk>(std::move(info), proto, ctx);
}

absl::Status HostRecvThunk::ExecuteOnStream(const ExecuteParams& params) const {
  const HostTransferCallbacks* callbacks = params.host_transfers;
  if (callbacks == nullptr || !callbacks->recv) return MissingCallback("recv");
  const int64_t size = transfer().slice.size;
  ASSIGN_OR_RETURN(std::shared_ptr<Staging> staging, AllocateStaging(*this, params, size));
  se::Stream* s = stream(params);
  RETURN_IF_ERROR(AnnotateError(*this, s->DoHostCallback([this, callbacks, size,
                                                          staging]() -> absl::Status {
    const HostTransfer& t = transfer();
    return CallbackError(callbacks->recv(t.channel_id, t.rendezvous, t.shape,
                                         absl::MakeSpan(staging->data(), size)));
  })));
  if (size > 0) {
    se::DeviceMemoryBase destination = params.buffers->GetDeviceAddress(transfer().slice);
    RETURN_IF_ERROR(AnnotateError(
        *this, s->Memcpy(&destination, staging->data(), static_cast<uint64_t>(size))));
  }
  // Keeps the staging buffer until the copy has run (or until the stream
  // drops its queue after an error).
  return AnnotateError(*this, s->DoHostCallback([staging = std::move(staging)]() {
    return absl::OkStatus();
  }));
}

absl::StatusOr<ThunkProto> HostRecvThunk::ToProto() const {
  ThunkProto proto = InfoProto();
  *proto.mutable_host_recv() = HostTransferToProto(transfer());
  return proto;
}

}  // namespace xla::gpu
