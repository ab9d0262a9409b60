#include "xla/stream_executor/host/test_kernel_files.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace stream_executor::host {

absl::StatusOr<std::string> ReadTestKernelFile(absl::string_view file_name) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  if (srcdir == nullptr) {
    return absl::FailedPreconditionError(
        "TEST_SRCDIR is not set; run the test with bazel test");
  }
  const std::string path = absl::StrCat(
      srcdir, "/xla_aot/xla/stream_executor/host/", file_name);
  std::ifstream file(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << file.rdbuf();
  if (!file || bytes.str().empty()) {
    return absl::NotFoundError(absl::StrCat("cannot read ", path));
  }
  return bytes.str();
}

absl::StatusOr<std::string> ReadTestKernels() {
  return ReadTestKernelFile("libtest_kernels.so");
}

absl::StatusOr<std::string> ReadOtherTestKernels() {
  return ReadTestKernelFile("libtest_kernels_other.so");
}

}  // namespace stream_executor::host
