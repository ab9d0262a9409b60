#include "xla/backends/gpu/runtime/device_value.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {

absl::StatusOr<int64_t> ReadDeviceScalar(stream_executor::Stream* stream,
                                         const stream_executor::DeviceMemoryBase& memory) {
  if (memory.size != 1 && memory.size != 4) {
    return absl::InternalError(absl::StrCat("scalar of ", memory.size, " bytes"));
  }
  unsigned char bytes[4] = {0, 0, 0, 0};
  RETURN_IF_ERROR(stream->Memcpy(bytes, memory, memory.size));
  RETURN_IF_ERROR(stream->BlockHostUntilDone());
  if (memory.size == 1) return bytes[0] != 0 ? 1 : 0;
  int32_t value = 0;
  std::memcpy(&value, bytes, sizeof(value));
  return value;
}

}  // namespace xla::gpu
