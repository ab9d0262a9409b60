// Reads the host test kernel modules (libtest_kernels.so,
// libtest_kernels_other.so) from the test's runfiles, for loading through
// StreamExecutor::LoadKernelModule. Test-only.
#ifndef XLA_STREAM_EXECUTOR_HOST_TEST_KERNEL_FILES_H_
#define XLA_STREAM_EXECUTOR_HOST_TEST_KERNEL_FILES_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace stream_executor::host {

// The bytes of $TEST_SRCDIR/xla_aot/xla/stream_executor/host/<file_name>.
// FailedPrecondition when TEST_SRCDIR is unset, NotFound when the file cannot
// be read.
absl::StatusOr<std::string> ReadTestKernelFile(absl::string_view file_name);

// The module with saxpy_f32, count_blocks and count_calls.
absl::StatusOr<std::string> ReadTestKernels();
// The module with fill_i32.
absl::StatusOr<std::string> ReadOtherTestKernels();

}  // namespace stream_executor::host

#endif  // XLA_STREAM_EXECUTOR_HOST_TEST_KERNEL_FILES_H_
