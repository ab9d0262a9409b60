#include "xla/backends/gpu/runtime/target.h"

#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"

namespace xla::gpu {
namespace {

stream_executor::DeviceLimits CommonLimits() {
  stream_executor::DeviceLimits limits;
  limits.max_threads_per_block = 1024;
  limits.max_block_dims = {1024, 1024, 64};
  limits.max_grid_dims = {std::numeric_limits<int32_t>::max(), 65535, 65535};
  return limits;
}

bool AllDigits(absl::string_view s) {
  for (char c : s) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return !s.empty();
}

}  // namespace

absl::StatusOr<Target> ParseTarget(absl::string_view name) {
  Target target;
  target.name = std::string(name);
  target.limits = CommonLimits();
  if (name == "host") {
    target.platform = "host";
    target.compute_capability = "host";
    target.limits.shared_memory_per_block = 0;
    return target;
  }
  absl::string_view digits = name;
  if (absl::ConsumePrefix(&digits, "sm_") && digits.size() >= 2 && digits.size() <= 4 &&
      AllDigits(digits)) {
    target.platform = "cuda";
    target.compute_capability = absl::StrCat(digits.substr(0, digits.size() - 1), ".",
                                             digits.substr(digits.size() - 1));
    target.limits.shared_memory_per_block = 227 * 1024;  // the largest (sm_90)
    return target;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "header.target: '", name, "' is not a known target (\"host\" or \"sm_<NN>\" such as sm_80)"));
}

}  // namespace xla::gpu
