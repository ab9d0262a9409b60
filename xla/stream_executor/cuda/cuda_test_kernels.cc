#include "xla/stream_executor/cuda/cuda_test_kernels.h"

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace stream_executor::cuda {
namespace {

absl::StatusOr<std::string> ReadTestData(const std::string& file_name) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  if (srcdir == nullptr) {
    return absl::FailedPreconditionError("TEST_SRCDIR is unset: run with bazel test");
  }
  const std::string path = absl::StrCat(
      srcdir, "/xla_aot/xla/stream_executor/cuda/testdata/", file_name);
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::ostringstream bytes;
  bytes << file.rdbuf();
  return bytes.str();
}

}  // namespace

absl::StatusOr<std::string> ReadCudaTestKernels() {
  return ReadTestData("conformance_kernels.ptx");
}

absl::StatusOr<std::string> ReadCudaOtherTestKernels() {
  return ReadTestData("conformance_other_kernels.ptx");
}

void RegisterFakeTestKernels(FakeCudaDriver& driver) {
  driver.RegisterKernel("saxpy_f32", [](const FakeLaunch& launch) {
    const float* ab = launch.arg<float>(0);
    const float* x = launch.arg<float>(1);
    float* y = launch.arg<float>(2);
    const int64_t n = *launch.arg<int64_t>(3);
    for (uint64_t k = 0; k < launch.num_blocks(); ++k) {
      for (int64_t i = 4 * static_cast<int64_t>(k);
           i < 4 * static_cast<int64_t>(k) + 4 && i < n; ++i) {
        y[i] = ab[0] * x[i] + ab[1];
      }
    }
  });
  driver.RegisterKernel("count_blocks", [](const FakeLaunch& launch) {
    int32_t* counts = launch.arg<int32_t>(0);
    for (uint64_t k = 0; k < launch.num_blocks(); ++k) ++counts[k];
  });
  driver.RegisterKernel("fill_i32", [](const FakeLaunch& launch) {
    int32_t* out = launch.arg<int32_t>(0);
    const int32_t value = *launch.arg<int32_t>(1);
    for (uint64_t k = 0; k < launch.num_blocks(); ++k) out[k] = value;
  });
}

}  // namespace stream_executor::cuda
