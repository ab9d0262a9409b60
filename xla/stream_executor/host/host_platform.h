// HostPlatform: the platform named "host", with one device (a HostExecutor).
//
// Linking //xla/stream_executor/host:host_platform registers it in the
// PlatformRegistry with default options; tests that need other options (a
// fixed pool size) construct a HostPlatform or HostExecutor directly.
//
// Thread-safety: all methods may be called from any thread.
#ifndef XLA_STREAM_EXECUTOR_HOST_HOST_PLATFORM_H_
#define XLA_STREAM_EXECUTOR_HOST_HOST_PLATFORM_H_

#include <memory>
#include <mutex>
#include <string>

#include "xla/stream_executor/host/host_executor.h"
#include "xla/stream_executor/platform.h"

namespace stream_executor::host {

class HostPlatform : public Platform {
 public:
  static constexpr char kName[] = "host";

  explicit HostPlatform(const HostExecutorOptions& options = {})
      : options_(options) {}

  const std::string& name() const override { return name_; }
  int device_count() const override { return 1; }
  absl::StatusOr<StreamExecutor*> GetDevice(int ordinal) override;

 private:
  const std::string name_ = kName;
  const HostExecutorOptions options_;
  std::mutex mu_;
  std::unique_ptr<HostExecutor> executor_;  // guarded by mu_
};

}  // namespace stream_executor::host

#endif  // XLA_STREAM_EXECUTOR_HOST_HOST_PLATFORM_H_
