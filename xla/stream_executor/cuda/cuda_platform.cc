#include "xla/stream_executor/cuda/cuda_platform.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "xla/stream_executor/platform_registry.h"
#include "xla/util/logging.h"

namespace stream_executor::cuda {

CudaPlatform::CudaPlatform(absl::StatusOr<const CudaDriverApi*> api) {
  if (!api.ok()) {
    init_status_ = api.status();
    return;
  }
  api_ = *api;
  init_status_ = CU_STATUS(*api_, cuInit, 0);
  int count = 0;
  if (init_status_.ok()) init_status_ = CU_STATUS(*api_, cuDeviceGetCount, &count);
  if (!init_status_.ok()) {
    init_status_ = absl::Status(
        init_status_.code(),
        absl::StrCat("the CUDA driver did not initialize: ",
                     init_status_.message(),
                     "; check the NVIDIA driver installation, or recompile "
                     "with --target=host"));
    return;
  }
  if (count == 0) {
    init_status_ = absl::FailedPreconditionError(
        "the CUDA driver sees no device; run on a machine with an NVIDIA GPU, "
        "or recompile with --target=host");
  }
  device_count_ = count;
  executors_.resize(count);
}

absl::StatusOr<StreamExecutor*> CudaPlatform::GetDevice(int ordinal) {
  if (!init_status_.ok()) return init_status_;
  if (ordinal < 0 || ordinal >= device_count_) {
    return absl::InvalidArgumentError(
        absl::StrCat("device ordinal ", ordinal,
                     " is out of range: platform 'cuda' has ", device_count_,
                     " device(s)"));
  }
  std::lock_guard<std::mutex> lock(mu_);
  std::unique_ptr<CudaExecutor>& executor = executors_[ordinal];
  if (executor == nullptr) {
    absl::StatusOr<std::unique_ptr<CudaExecutor>> created =
        CudaExecutor::Create(*api_, ordinal);
    if (!created.ok()) return created.status();
    executor = *std::move(created);
  }
  return executor.get();
}

namespace {

// Registers "cuda" when this library is linked (the target is alwayslink).
// The factory runs at the first GetPlatform("cuda"), not at startup.
[[maybe_unused]] const bool registered = [] {
  absl::Status status = PlatformRegistry::RegisterFactory(
      CudaPlatform::kName, []() -> absl::StatusOr<std::unique_ptr<Platform>> {
        return std::make_unique<CudaPlatform>(LoadCudaDriverApi());
      });
  XLA_CHECK(status.ok()) << status.ToString();
  return true;
}();

}  // namespace
}  // namespace stream_executor::cuda
