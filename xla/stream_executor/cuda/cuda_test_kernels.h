// The conformance test kernels for the CUDA platform (see
// xla/stream_executor/testing/conformance_test_suite.h) as PTX read from the
// test's runfiles, and host implementations of the same kernels for the
// fake driver. Test-only.
#ifndef XLA_STREAM_EXECUTOR_CUDA_CUDA_TEST_KERNELS_H_
#define XLA_STREAM_EXECUTOR_CUDA_CUDA_TEST_KERNELS_H_

#include <string>

#include "absl/status/statusor.h"
#include "xla/stream_executor/cuda/fake_cuda_driver.h"

namespace stream_executor::cuda {

// PTX with saxpy_f32 and count_blocks. FailedPrecondition without
// TEST_SRCDIR, NotFound when the file cannot be read.
absl::StatusOr<std::string> ReadCudaTestKernels();
// PTX with fill_i32.
absl::StatusOr<std::string> ReadCudaOtherTestKernels();

// Registers host versions of saxpy_f32, count_blocks and fill_i32 (same
// semantics as the PTX) with `driver`.
void RegisterFakeTestKernels(FakeCudaDriver& driver);

}  // namespace stream_executor::cuda

#endif  // XLA_STREAM_EXECUTOR_CUDA_CUDA_TEST_KERNELS_H_
