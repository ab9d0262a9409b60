// Target: what an artifact's header `target` string means to the runtime.
//
// "host" runs on the host platform; "sm_<major><minor>" (e.g. "sm_80") runs
// on the cuda platform on a device of that compute capability. The target's
// launch limits are what FromProto checks launch dimensions against before
// any device is known; Initialize checks them again against the device.
//
// Thread-safety: pure functions over values.
#ifndef XLA_BACKENDS_GPU_RUNTIME_TARGET_H_
#define XLA_BACKENDS_GPU_RUNTIME_TARGET_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/stream_executor/device_limits.h"

namespace xla::gpu {

struct Target {
  // The header string.
  std::string name;
  // The stream executor platform: "host" or "cuda".
  std::string platform;
  // "host", or "<major>.<minor>" as DeviceLimits::compute_capability.
  std::string compute_capability;
  // Upper bounds for launches on any device of the target.
  stream_executor::DeviceLimits limits;
};

// Parses a header target. InvalidArgument naming the string for anything
// but "host" and "sm_<digits>" with at least two digits.
absl::StatusOr<Target> ParseTarget(absl::string_view name);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_TARGET_H_
