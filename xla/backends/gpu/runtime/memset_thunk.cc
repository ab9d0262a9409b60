#include "xla/backends/gpu/runtime/memset_thunk.h"

#include "absl/strings/str_cat.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {

absl::StatusOr<std::unique_ptr<MemsetThunk>> MemsetThunk::FromProto(ThunkInfo info,
                                                                    const MemsetThunkProto& proto,
                                                                    const ThunkContext& ctx) {
  ASSIGN_OR_RETURN(BufferSlice destination, ctx.Slice(proto.destination(), "destination"));
  if (proto.pattern() != 0 && destination.size % 4 != 0) {
    return ctx.Field("destination").Error(absl::StrCat(
        "a 32-bit pattern needs a size that is a multiple of 4, got ", destination.size));
  }
  return std::make_unique<MemsetThunk>(std::move(info), std::move(destination), proto.pattern());
}

absl::Status MemsetThunk::ToCommand(const ExecuteParams& params,
                                     stream_executor::DeviceCommand* command) const {
  if (!IsCommand()) return Thunk::ToCommand(params, command);
  const stream_executor::DeviceMemoryBase dst = params.buffers->GetDeviceAddress(destination_);
  const uint64_t size = static_cast<uint64_t>(destination_.size);
  *command = pattern_ == 0 ? stream_executor::DeviceCommand::MemZero(dst, size)
                           : stream_executor::DeviceCommand::Memset32(dst, pattern_, size);
  return absl::OkStatus();
}

absl::Status MemsetThunk::ExecuteOnStream(const ExecuteParams& params) const {
  if (destination_.size == 0) return absl::OkStatus();
  stream_executor::DeviceMemoryBase dst = params.buffers->GetDeviceAddress(destination_);
  if (pattern_ == 0) return AnnotateError(*this, stream(params)->MemZero(&dst, destination_.size));
  return AnnotateError(*this, stream(params)->Memset32(&dst, pattern_, destination_.size));
}

absl::StatusOr<ThunkProto> MemsetThunk::ToProto() const {
  ThunkProto proto = InfoProto();
  *proto.mutable_memset()->mutable_destination() = SliceToProto(destination_);
  proto.mutable_memset()->set_pattern(pattern_);
  return proto;
}

}  // namespace xla::gpu
