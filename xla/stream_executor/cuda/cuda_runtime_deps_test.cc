// Proves the CUDA platform stays runtime-only: the dependency closure of
// //xla/stream_executor/cuda:cuda_platform (a genquery result) names no HLO
// IR, pass, code generation or LLVM target.
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace {

TEST(CudaRuntimeDepsTest, CudaPlatformClosureHasNoCompilerCode) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  ASSERT_NE(srcdir, nullptr) << "run with bazel test";
  std::ifstream file(std::string(srcdir) +
                     "/xla_aot/xla/stream_executor/cuda/cuda_runtime_deps");
  ASSERT_TRUE(file) << "genquery output missing";
  const std::vector<std::string> forbidden = {
      "//xla/hlo", "//xla/service", "//xla/backends/gpu/codegen",
      "//xla/backends/gpu/compiler", "@llvm16", "//third_party:llvm"};
  std::string label;
  int labels = 0;
  bool saw_platform = false, saw_driver_api = false;
  while (std::getline(file, label)) {
    ++labels;
    saw_platform |= label == "//xla/stream_executor/cuda:cuda_platform";
    saw_driver_api |= label == "//xla/stream_executor/cuda:cuda_driver_api";
    for (const std::string& prefix : forbidden) {
      EXPECT_NE(label.rfind(prefix, 0), 0u)
          << label << " is compiler code in the CUDA runtime's closure";
    }
  }
  EXPECT_TRUE(saw_platform);
  EXPECT_TRUE(saw_driver_api);
  EXPECT_GT(labels, 5);
}

}  // namespace
