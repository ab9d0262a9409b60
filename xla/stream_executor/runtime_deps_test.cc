// Proves the runtime's device layer stays separate from the compiler: the
// dependency closure of the host platform (a genquery result) must not name
// HLO IR, passes, code generation or LLVM.
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace {

TEST(RuntimeDepsTest, HostPlatformClosureHasNoCompilerCode) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  ASSERT_NE(srcdir, nullptr) << "run with bazel test";
  std::ifstream file(std::string(srcdir) +
                     "/xla_aot/xla/stream_executor/runtime_deps");
  ASSERT_TRUE(file) << "genquery output missing";
  const std::vector<std::string> forbidden = {
      "//xla/hlo", "//xla/service", "//xla/backends/gpu/codegen",
      "//xla/backends/gpu/compiler", "@llvm16", "//third_party:llvm"};
  std::string label;
  int labels = 0;
  bool saw_host_platform = false;
  while (std::getline(file, label)) {
    ++labels;
    if (label == "//xla/stream_executor/host:host_platform") {
      saw_host_platform = true;
    }
    for (const std::string& prefix : forbidden) {
      EXPECT_NE(label.rfind(prefix, 0), 0u)
          << label << " is compiler code in the runtime's closure";
    }
  }
  EXPECT_TRUE(saw_host_platform);
  EXPECT_GT(labels, 5);
}

}  // namespace
