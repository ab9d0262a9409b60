// The stream executor conformance suite on the host platform.
#include "xla/stream_executor/host/test_kernel_files.h"
#include "xla/stream_executor/testing/conformance_test_suite.h"

namespace stream_executor::testing {
namespace {

INSTANTIATE_TEST_SUITE_P(
    Host, StreamExecutorConformanceTest,
    ::testing::Values(ConformanceTestParam{"host", host::ReadTestKernels,
                                           host::ReadOtherTestKernels}),
    ConformanceTestParamName);

}  // namespace
}  // namespace stream_executor::testing
