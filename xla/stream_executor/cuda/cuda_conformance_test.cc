// The stream executor conformance suite on the real CUDA platform. Needs an
// NVIDIA GPU and driver (tag "gpu"); without them every test is skipped and
// the reason is printed.
#include <iostream>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "xla/stream_executor/cuda/cuda_test_kernels.h"
#include "xla/stream_executor/platform_registry.h"
#include "xla/stream_executor/testing/conformance_test_suite.h"

namespace stream_executor::testing {
namespace {

INSTANTIATE_TEST_SUITE_P(
    Cuda, StreamExecutorConformanceTest,
    ::testing::Values(ConformanceTestParam{"cuda", cuda::ReadCudaTestKernels,
                                           cuda::ReadCudaOtherTestKernels}),
    ConformanceTestParamName);

// Skips every test when the "cuda" platform has no device.
class SkipWithoutGpu : public ::testing::Environment {
 public:
  void SetUp() override {
    absl::StatusOr<Platform*> platform = PlatformRegistry::GetPlatform("cuda");
    if (!platform.ok()) {
      GTEST_SKIP() << "no CUDA platform: " << platform.status();
    }
    if ((*platform)->device_count() == 0) {
      GTEST_SKIP() << "no CUDA device, skipping the CUDA conformance suite: "
                   << (*platform)->GetDevice(0).status();
    }
  }
};

}  // namespace
}  // namespace stream_executor::testing

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(
      new stream_executor::testing::SkipWithoutGpu());
  return RUN_ALL_TESTS();
}
