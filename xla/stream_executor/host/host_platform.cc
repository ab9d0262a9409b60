#include "xla/stream_executor/host/host_platform.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "xla/stream_executor/platform_registry.h"
#include "xla/util/logging.h"

namespace stream_executor::host {

absl::StatusOr<StreamExecutor*> HostPlatform::GetDevice(int ordinal) {
  if (ordinal != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("device ordinal ", ordinal,
                     " is out of range: platform 'host' has 1 device"));
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (executor_ == nullptr) executor_ = std::make_unique<HostExecutor>(options_);
  return executor_.get();
}

namespace {

// Registers "host" when this library is linked (the target is alwayslink).
[[maybe_unused]] const bool registered = [] {
  absl::Status status = PlatformRegistry::RegisterFactory(
      HostPlatform::kName,
      []() -> absl::StatusOr<std::unique_ptr<Platform>> {
        return std::make_unique<HostPlatform>();
      });
  XLA_CHECK(status.ok()) << status.ToString();
  return true;
}();

}  // namespace
}  // namespace stream_executor::host
