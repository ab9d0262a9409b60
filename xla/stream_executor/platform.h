// Platform: a kind of device ("host", "cuda") and the devices of that kind
// visible to this process.
//
// Obtain one from the PlatformRegistry. A platform creates each device's
// StreamExecutor on first use and owns it for its own lifetime.
//
// Thread-safety: all methods may be called from any thread.
#ifndef XLA_STREAM_EXECUTOR_PLATFORM_H_
#define XLA_STREAM_EXECUTOR_PLATFORM_H_

#include <string>

#include "absl/status/statusor.h"
#include "xla/stream_executor/stream_executor.h"

namespace stream_executor {

class Platform {
 public:
  virtual ~Platform() = default;

  // The name the platform is registered under.
  virtual const std::string& name() const = 0;
  // Number of devices; ordinals are [0, device_count()).
  virtual int device_count() const = 0;
  // The executor of device `ordinal`, created on first use and owned by the
  // platform. InvalidArgument naming the ordinal and the device count when it
  // is out of range; the platform's error when the device cannot be opened.
  virtual absl::StatusOr<StreamExecutor*> GetDevice(int ordinal) = 0;
};

}  // namespace stream_executor

#endif  // XLA_STREAM_EXECUTOR_PLATFORM_H_
