// The house rule of issue 23: no function in the runtime
// (xla/backends/gpu/runtime), the stream executor (xla/stream_executor) or
// the public API (xla/aot) is longer than xla::lint::kMaxFunctionLines
// lines. Tests, test utilities and the fake CUDA driver, cuBLAS(Lt) and NCCL
// are exempt. The sources come as arguments (see BUILD), relative to the
// runfiles root.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/tools/lint/function_length.h"

namespace {

std::vector<std::string>* sources = nullptr;

bool Exempt(const std::string& path) {
  const std::string base = path.substr(path.rfind('/') + 1);
  return absl::StrContains(base, "test") || absl::StartsWith(base, "fake_") ||
         absl::StrContains(path, "/testing/");
}

TEST(FunctionLength, NoRuntimeStreamExecutorOrApiFunctionIsOverTheLimit) {
  ASSERT_NE(sources, nullptr);
  const char* srcdir = std::getenv("TEST_SRCDIR");
  ASSERT_NE(srcdir, nullptr);
  int files = 0, functions = 0;
  for (const std::string& path : *sources) {
    if (Exempt(path)) continue;
    std::ifstream file(std::string(srcdir) + "/xla_aot/" + path);
    ASSERT_TRUE(file.good()) << path;
    std::stringstream text;
    text << file.rdbuf();
    ++files;
    for (const xla::lint::FunctionSpan& span : xla::lint::FindFunctions(text.str())) {
      ++functions;
      if (span.lines() <= xla::lint::kMaxFunctionLines) continue;
      ADD_FAILURE() << xla::lint::FormatLongFunction(path, span, xla::lint::kMaxFunctionLines);
    }
  }
  // The scan must really see the three trees: a glob that stopped matching
  // would pass silently.
  EXPECT_GT(files, 100);
  EXPECT_GT(functions, 500);
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  std::vector<std::string> paths(argv + 1, argv + argc);
  sources = &paths;
  return RUN_ALL_TESTS();
}
