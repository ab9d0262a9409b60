#include "xla/stream_executor/device_limits.h"

#include "absl/strings/str_cat.h"

namespace stream_executor {

std::string DeviceLimits::ToString() const {
  return absl::StrCat(
      "compute_capability=", compute_capability,
      " max_threads_per_block=", max_threads_per_block, " max_block_dims={",
      max_block_dims.x, ",", max_block_dims.y, ",", max_block_dims.z,
      "} max_grid_dims={", max_grid_dims.x, ",", max_grid_dims.y, ",",
      max_grid_dims.z, "} shared_memory_per_block=", shared_memory_per_block,
      " warp_size=", warp_size, " memory_size=", memory_size);
}

}  // namespace stream_executor
