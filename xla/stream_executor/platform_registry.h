// PlatformRegistry: finds a Platform by name.
//
// Platforms register a factory under their name, usually from a static
// initializer in the platform's library (see host/host_platform.cc), so a
// binary gets a platform by linking its Bazel target. The first GetPlatform
// of a name calls its factory once and keeps the platform until the process
// exits; later calls return the same object. A factory that fails is tried
// again on the next call.
//
// Thread-safety: all functions may be called from any thread, including from
// static initializers.
#ifndef XLA_STREAM_EXECUTOR_PLATFORM_REGISTRY_H_
#define XLA_STREAM_EXECUTOR_PLATFORM_REGISTRY_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/stream_executor/platform.h"

namespace stream_executor {

class PlatformRegistry {
 public:
  using Factory = std::function<absl::StatusOr<std::unique_ptr<Platform>>()>;

  // Registers `factory` under `name`. AlreadyExists when the name is taken;
  // InvalidArgument for an empty name or factory.
  static absl::Status RegisterFactory(absl::string_view name, Factory factory);

  // The platform registered as `name`. NotFound, naming the platform and the
  // linked ones, when nothing is registered under it (for example "platform
  // 'cuda' is not linked into this binary"); the factory's error when it
  // fails.
  static absl::StatusOr<Platform*> GetPlatform(absl::string_view name);

  // Names of the registered platforms, sorted.
  static std::vector<std::string> RegisteredNames();
};

}  // namespace stream_executor

#endif  // XLA_STREAM_EXECUTOR_PLATFORM_REGISTRY_H_
