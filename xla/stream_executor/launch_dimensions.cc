#include "xla/stream_executor/launch_dimensions.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "xla/util/status_macros.h"

namespace stream_executor {
namespace {

absl::Status CheckExtent(absl::string_view name, int64_t value, int64_t limit,
                         absl::string_view limit_name) {
  if (value < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "launch dimension ", name, " = ", value, " must be at least 1"));
  }
  if (value > limit) {
    return absl::InvalidArgumentError(
        absl::StrCat("launch dimension ", name, " = ", value,
                     " exceeds the device limit ", limit, " (", limit_name,
                     ")"));
  }
  return absl::OkStatus();
}

}  // namespace

std::string LaunchDimensions::ToString() const {
  return absl::StrCat("grid={", grid.x, ",", grid.y, ",", grid.z, "} block={",
                      block.x, ",", block.y, ",", block.z,
                      "} shared_memory_bytes=", shared_memory_bytes);
}

absl::Status ValidateLaunchDimensions(const LaunchDimensions& dims,
                                      const DeviceLimits& limits) {
  const Dim3Limit& grid = limits.max_grid_dims;
  const Dim3Limit& block = limits.max_block_dims;
  // Every launch comes through here (each iteration of a host while loop
  // launches its body's kernels again): accept valid dimensions in a few
  // comparisons, and build the error below only for invalid ones (or
  // extents past 2^31, whose products the checks below guard against
  // overflow).
  constexpr int64_t kSmall = int64_t{1} << 31;
  auto within = [](int64_t value, int64_t limit) {
    return value >= 1 && value <= limit && value <= kSmall;
  };
  if (within(dims.grid.x, grid.x) && within(dims.grid.y, grid.y) && within(dims.grid.z, grid.z) &&
      within(dims.block.x, block.x) && within(dims.block.y, block.y) &&
      within(dims.block.z, block.z) &&
      dims.grid.x * dims.grid.y <= kSmall && dims.block.x * dims.block.y <= kSmall &&
      dims.block.x * dims.block.y * dims.block.z <= limits.max_threads_per_block &&
      dims.shared_memory_bytes >= 0 && dims.shared_memory_bytes <= limits.shared_memory_per_block) {
    return absl::OkStatus();
  }
  RETURN_IF_ERROR(CheckExtent("grid.x", dims.grid.x, grid.x, "max blocks per grid in x"));
  RETURN_IF_ERROR(CheckExtent("grid.y", dims.grid.y, grid.y, "max blocks per grid in y"));
  RETURN_IF_ERROR(CheckExtent("grid.z", dims.grid.z, grid.z, "max blocks per grid in z"));
  RETURN_IF_ERROR(CheckExtent("block.x", dims.block.x, block.x, "max threads per block in x"));
  RETURN_IF_ERROR(CheckExtent("block.y", dims.block.y, block.y, "max threads per block in y"));
  RETURN_IF_ERROR(CheckExtent("block.z", dims.block.z, block.z, "max threads per block in z"));
  // The extents are bounded individually; guard the products against
  // overflow before forming them (limits may be as large as int64 allows).
  int64_t threads = 0;
  if (__builtin_mul_overflow(dims.block.x, dims.block.y, &threads) ||
      __builtin_mul_overflow(threads, dims.block.z, &threads) ||
      threads > limits.max_threads_per_block) {
    return absl::InvalidArgumentError(absl::StrCat(
        "launch dimension block = {", dims.block.x, ",", dims.block.y, ",",
        dims.block.z, "} has more threads than the device limit ",
        limits.max_threads_per_block, " (max threads per block)"));
  }
  int64_t blocks = 0;
  if (__builtin_mul_overflow(dims.grid.x, dims.grid.y, &blocks) ||
      __builtin_mul_overflow(blocks, dims.grid.z, &blocks)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "launch dimension grid = {", dims.grid.x, ",", dims.grid.y, ",",
        dims.grid.z, "} has more blocks than fit in int64"));
  }
  if (dims.shared_memory_bytes < 0 ||
      dims.shared_memory_bytes > limits.shared_memory_per_block) {
    return absl::InvalidArgumentError(absl::StrCat(
        "launch dimension shared_memory_bytes = ", dims.shared_memory_bytes,
        " is outside the device limit [0, ", limits.shared_memory_per_block,
        "] (shared memory per block)"));
  }
  return absl::OkStatus();
}

}  // namespace stream_executor
