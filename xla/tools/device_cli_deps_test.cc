// Proves xla_aot_device carries no compiler: its dependency closure (a
// genquery result) names no pass, service, codegen, compiler or LLVM target,
// so the binary runs where LLVM is not installed. The HLO parser and
// evaluator are allowed: `run --reference` evaluates on the device machine.
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace {

TEST(DeviceCliDepsTest, ClosureHasNoCompilerOrLlvm) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  ASSERT_NE(srcdir, nullptr) << "run with bazel test";
  std::ifstream file(std::string(srcdir) + "/xla_aot/xla/tools/device_cli_deps");
  ASSERT_TRUE(file) << "genquery output missing";
  const std::vector<std::string> forbidden = {
      "//xla/service", "//xla/backends/gpu/codegen", "//xla/backends/gpu/compiler", "@llvm16",
      "//third_party:llvm", "//xla/tools:compile_command"};
  std::string label;
  bool saw_cli = false, saw_cuda = false, saw_host = false;
  while (std::getline(file, label)) {
    saw_cli |= label == "//xla/tools:device_cli";
    saw_cuda |= label == "//xla/stream_executor/cuda:cuda_platform";
    saw_host |= label == "//xla/stream_executor/host:host_platform";
    for (const std::string& prefix : forbidden) {
      EXPECT_NE(label.rfind(prefix, 0), 0u) << label << " is compiler code in xla_aot_device";
    }
  }
  EXPECT_TRUE(saw_cli);
  EXPECT_TRUE(saw_cuda);
  EXPECT_TRUE(saw_host);
}

}  // namespace
