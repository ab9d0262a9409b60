#include "xla/stream_executor/device_memory.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace stream_executor {

absl::StatusOr<DeviceMemoryBase> DeviceMemoryBase::GetSlice(
    uint64_t offset, uint64_t slice_size) const {
  // Written so that neither side can overflow.
  if (offset > size || slice_size > size - offset) {
    return absl::InvalidArgumentError(absl::StrCat(
        "device memory slice [offset ", offset, ", size ", slice_size,
        "] does not fit in a buffer of ", size, " bytes"));
  }
  if (opaque == nullptr) return DeviceMemoryBase();
  return DeviceMemoryBase(static_cast<char*>(opaque) + offset, slice_size);
}

}  // namespace stream_executor
