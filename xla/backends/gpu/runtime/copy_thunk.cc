#include "xla/backends/gpu/runtime/copy_thunk.h"

#include "absl/strings/str_cat.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {

absl::StatusOr<std::unique_ptr<CopyThunk>> CopyThunk::FromProto(ThunkInfo info,
                                                                const CopyThunkProto& proto,
                                                                const ThunkContext& ctx) {
  ASSIGN_OR_RETURN(BufferSlice source, ctx.Slice(proto.source(), "source"));
  ASSIGN_OR_RETURN(BufferSlice destination, ctx.Slice(proto.destination(), "destination"));
  if (source.size != destination.size) {
    return ctx.Error(absl::StrCat("source size ", source.size, " differs from destination size ",
                                  destination.size));
  }
  const bool same = source.allocation == destination.allocation && source.offset == destination.offset;
  const bool overlap = source.allocation == destination.allocation &&
                       source.offset < destination.offset + destination.size &&
                       destination.offset < source.offset + source.size;
  if (overlap && !same) {
    return ctx.Error(absl::StrCat("source ", source.ToString(), " and destination ",
                                  destination.ToString(), " overlap partially"));
  }
  // Slices were validated above, so the allocation indices are in range.
  const bool from_host = ctx.tables().allocations[source.allocation].in_host_memory();
  const bool to_host = ctx.tables().allocations[destination.allocation].in_host_memory();
  Direction direction = Direction::kDeviceToDevice;
  if (to_host && !from_host) direction = Direction::kDeviceToHost;
  if (from_host && !to_host) direction = Direction::kHostToDevice;
  std::optional<CopyDynamicOffset> dynamic_offset;
  if (proto.has_dynamic_offset()) {
    ASSIGN_OR_RETURN(dynamic_offset, CopyDynamicOffset::FromProto(proto.dynamic_offset(), source,
                                                                  destination, ctx));
  }
  return std::make_unique<CopyThunk>(std::move(info), std::move(source), std::move(destination),
                                     direction, std::move(dynamic_offset));
}

bool CopyThunk::IsCommand() const {
  if (dynamic_offset_.has_value()) return false;  // its slices change every iteration
  const bool same = source_.allocation == destination_.allocation && source_.offset == destination_.offset;
  return direction_ == Direction::kDeviceToDevice && source_.size > 0 && !same;
}

absl::Status CopyThunk::ToCommand(const ExecuteParams& params,
                                  stream_executor::DeviceCommand* command) const {
  if (!IsCommand()) return Thunk::ToCommand(params, command);
  *command = stream_executor::DeviceCommand::Copy(params.buffers->GetDeviceAddress(destination_),
                                                  params.buffers->GetDeviceAddress(source_),
                                                  static_cast<uint64_t>(source_.size));
  return absl::OkStatus();
}

absl::Status CopyThunk::ExecuteOnStream(const ExecuteParams& params) const {
  if (!dynamic_offset_.has_value()) return Enqueue(params, source_, destination_);
  absl::StatusOr<int64_t> iteration = LoopIterationAt(params.loop, dynamic_offset_->loop_depth);
  if (!iteration.ok()) return AnnotateError(*this, iteration.status());
  absl::StatusOr<CopyDynamicOffset::Windows> windows =
      dynamic_offset_->WindowsAt(source_, destination_, *iteration);
  if (!windows.ok()) return AnnotateError(*this, windows.status());
  return Enqueue(params, windows->source, windows->destination);
}

absl::Status CopyThunk::Enqueue(const ExecuteParams& params, const BufferSlice& source,
                                const BufferSlice& destination) const {
  stream_executor::DeviceMemoryBase dst = params.buffers->GetDeviceAddress(destination);
  const stream_executor::DeviceMemoryBase src = params.buffers->GetDeviceAddress(source);
  if (source.size == 0 || src.opaque == dst.opaque) return absl::OkStatus();
  stream_executor::Stream* s = stream(params);
  switch (direction_) {
    case Direction::kDeviceToHost:
      return AnnotateError(*this, s->Memcpy(dst.opaque, src, source.size));
    case Direction::kHostToDevice:
      return AnnotateError(*this, s->Memcpy(&dst, static_cast<const void*>(src.opaque),
                                            source.size));
    case Direction::kDeviceToDevice:
      break;
  }
  return AnnotateError(*this, s->Memcpy(&dst, src, source.size));
}

absl::StatusOr<ThunkProto> CopyThunk::ToProto() const {
  ThunkProto proto = InfoProto();
  *proto.mutable_copy()->mutable_source() = SliceToProto(source_);
  *proto.mutable_copy()->mutable_destination() = SliceToProto(destination_);
  if (dynamic_offset_.has_value()) {
    *proto.mutable_copy()->mutable_dynamic_offset() = dynamic_offset_->ToProto();
  }
  return proto;
}

}  // namespace xla::gpu
