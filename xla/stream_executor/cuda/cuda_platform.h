// CudaPlatform: the platform named "cuda": the NVIDIA GPUs the driver sees.
//
// Linking //xla/stream_executor/cuda:cuda_platform registers "cuda" in the
// PlatformRegistry. Registration does nothing else: the driver is loaded
// (LoadCudaDriverApi) and initialized (cuInit) only when the platform is
// first requested, so a process without a driver runs fine until it asks
// for "cuda". Without a driver (or without a device) the platform still
// exists: device_count() is 0 and GetDevice returns the reason, e.g. "no
// NVIDIA driver: cannot dlopen libcuda.so.1 (...); run on a machine with an
// NVIDIA GPU and driver, or recompile with --target=host".
//
// Thread-safety: all methods may be called from any thread.
#ifndef XLA_STREAM_EXECUTOR_CUDA_CUDA_PLATFORM_H_
#define XLA_STREAM_EXECUTOR_CUDA_CUDA_PLATFORM_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "xla/stream_executor/cuda/cuda_driver_api.h"
#include "xla/stream_executor/cuda/cuda_executor.h"
#include "xla/stream_executor/platform.h"

namespace stream_executor::cuda {

class CudaPlatform : public Platform {
 public:
  static constexpr char kName[] = "cuda";

  // A platform on `api` (the result of LoadCudaDriverApi, error included;
  // the table must outlive the platform). Calls cuInit and
  // cuDeviceGetCount; their failure (or the load error) is kept and
  // returned by GetDevice, with device_count() 0.
  explicit CudaPlatform(absl::StatusOr<const CudaDriverApi*> api);

  const std::string& name() const override { return name_; }
  int device_count() const override { return device_count_; }
  // InvalidArgument naming the ordinal and the count when out of range;
  // the driver's (or load) error when it is unavailable.
  absl::StatusOr<StreamExecutor*> GetDevice(int ordinal) override;

  // Why there are no devices (OK when the driver initialized).
  const absl::Status& init_status() const { return init_status_; }

 private:
  const std::string name_ = kName;
  const CudaDriverApi* api_ = nullptr;
  absl::Status init_status_;
  int device_count_ = 0;

  std::mutex mu_;
  std::vector<std::unique_ptr<CudaExecutor>> executors_;  // guarded by mu_
};

}  // namespace stream_executor::cuda

#endif  // XLA_STREAM_EXECUTOR_CUDA_CUDA_PLATFORM_H_
