// The stream executor conformance suite on the CUDA platform backed by the
// fake driver (fake_cuda_driver.h): proves that the CUDA layer's streams,
// events, sticky errors, memory and module handling follow the interfaces'
// semantics, with the driver's asynchrony simulated by per-stream threads.
#include "gtest/gtest.h"
#include "xla/stream_executor/cuda/cuda_driver_api.h"
#include "xla/stream_executor/cuda/cuda_test_kernels.h"
#include "xla/stream_executor/cuda/fake_cuda_driver.h"
#include "xla/stream_executor/testing/conformance_test_suite.h"

namespace stream_executor::testing {
namespace {

INSTANTIATE_TEST_SUITE_P(
    CudaOnFakeDriver, StreamExecutorConformanceTest,
    ::testing::Values(ConformanceTestParam{"cuda", cuda::ReadCudaTestKernels,
                                           cuda::ReadCudaOtherTestKernels}),
    ConformanceTestParamName);

}  // namespace
}  // namespace stream_executor::testing

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // Leaked on purpose: the registered "cuda" platform (and its executor)
  // lives until exit and calls into the table from its destructors.
  auto* driver = new stream_executor::cuda::FakeCudaDriver();
  stream_executor::cuda::RegisterFakeTestKernels(*driver);
  stream_executor::cuda::SetCudaDriverApiForTesting(&driver->api());
  return RUN_ALL_TESTS();
}
