// Proves the runtime stays separate from the compiler: the dependency
// closure of the public API (xla/aot:executable, which pulls in every
// xla/backends/gpu/runtime target it executes) and of the runtime's thunk
// deserializer (a genquery result) names no HLO IR, pass, service, codegen,
// compiler or LLVM target.
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace {

TEST(RuntimeDepsTest, RuntimeClosureHasNoCompilerCode) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  ASSERT_NE(srcdir, nullptr) << "run with bazel test";
  std::ifstream file(std::string(srcdir) + "/xla_aot/xla/aot/runtime_deps");
  ASSERT_TRUE(file) << "genquery output missing";
  const std::vector<std::string> forbidden = {
      "//xla/hlo", "//xla/service", "//xla/backends/gpu/codegen",
      "//xla/backends/gpu/compiler", "@llvm16", "//third_party:llvm"};
  std::string label;
  bool saw_executable = false, saw_deserializer = false, saw_host_platform = false;
  while (std::getline(file, label)) {
    saw_executable |= label == "//xla/aot:executable";
    saw_deserializer |= label == "//xla/backends/gpu/runtime:thunk_deserializer";
    saw_host_platform |= label == "//xla/stream_executor/host:host_platform";
    for (const std::string& prefix : forbidden) {
      EXPECT_NE(label.rfind(prefix, 0), 0u) << label << " is compiler code in the runtime's closure";
    }
  }
  EXPECT_TRUE(saw_executable);
  EXPECT_TRUE(saw_deserializer);
  EXPECT_TRUE(saw_host_platform);
}

}  // namespace
