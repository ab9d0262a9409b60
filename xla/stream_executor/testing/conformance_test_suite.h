// The stream executor conformance suite: tests written against the
// interfaces in xla/stream_executor/ only, run once per platform.
//
// A platform instantiates it in its own test binary (that links the
// platform's library, so the PlatformRegistry knows it):
//
//   INSTANTIATE_TEST_SUITE_P(
//       Host, StreamExecutorConformanceTest,
//       ::testing::Values(ConformanceTestParam{"host", ReadKernels, ReadOther}),
//       ConformanceTestParamName);
//
// The two module loaders return the bytes of platform-specific kernel
// modules with these symbols and buffer meanings (for the host platform see
// xla/stream_executor/host/test_kernels.cc; launches use block = {1,1,1}):
//
//   main module:
//     saxpy_f32     {float ab[2], float x[n], float y[n], int64 n[1]}; block k
//                   sets y[i] = ab[0] * x[i] + ab[1] for i in [4k, 4k+4), i < n.
//     count_blocks  {int32 counts[total]}; block k adds 1 to counts[k]
//                   (k is the linear block index over the grid).
//   other module (none of the symbols above):
//     fill_i32      {int32 out[total], int32 value[1]}; out[k] = value[0].
#ifndef XLA_STREAM_EXECUTOR_TESTING_CONFORMANCE_TEST_SUITE_H_
#define XLA_STREAM_EXECUTOR_TESTING_CONFORMANCE_TEST_SUITE_H_

#include <functional>
#include <memory>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "xla/stream_executor/kernel_module.h"
#include "xla/stream_executor/owning_device_memory.h"
#include "xla/stream_executor/stream.h"
#include "xla/stream_executor/stream_executor.h"

namespace stream_executor::testing {

struct ConformanceTestParam {
  // The PlatformRegistry name, e.g. "host" or "cuda".
  std::string platform_name;
  // Bytes of the main test kernel module (see above).
  std::function<absl::StatusOr<std::string>()> read_test_kernels;
  // Bytes of the other test kernel module.
  std::function<absl::StatusOr<std::string>()> read_other_test_kernels;
};

// Prints the platform name (gtest shows it for failing tests).
void PrintTo(const ConformanceTestParam& param, std::ostream* os);

// Names instantiations after the platform.
std::string ConformanceTestParamName(
    const ::testing::TestParamInfo<ConformanceTestParam>& info);

class StreamExecutorConformanceTest
    : public ::testing::TestWithParam<ConformanceTestParam> {
 protected:
  void SetUp() override;

  // Each helper records a test failure and returns null/empty on error.
  std::unique_ptr<Stream> NewStream();
  OwningDeviceMemory Allocate(uint64_t size);
  std::unique_ptr<KernelModule> LoadModule(
      const std::function<absl::StatusOr<std::string>()>& read,
      const std::string& name);

  StreamExecutor* executor_ = nullptr;
};

}  // namespace stream_executor::testing

#endif  // XLA_STREAM_EXECUTOR_TESTING_CONFORMANCE_TEST_SUITE_H_
