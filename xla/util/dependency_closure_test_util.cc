#include "xla/util/dependency_closure_test_util.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "gtest/gtest.h"

namespace xla::testing {

std::vector<std::string> CompilerLabelPrefixes() {
  return {"//xla/hlo",          "//xla/service", "//xla/backends/gpu/codegen",
          "//xla/backends/gpu/compiler", "@llvm16",       "//third_party:llvm"};
}

void ExpectClosure(const std::string& genquery_path, const std::vector<std::string>& forbidden,
                   const std::vector<std::string>& required, const std::string& what) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  ASSERT_NE(srcdir, nullptr) << "run with bazel test";
  std::ifstream file(std::string(srcdir) + "/xla_aot/" + genquery_path);
  ASSERT_TRUE(file) << "genquery output " << genquery_path << " missing";
  std::vector<std::string> seen;
  std::string label;
  while (std::getline(file, label)) {
    seen.push_back(label);
    for (const std::string& prefix : forbidden) {
      EXPECT_NE(label.rfind(prefix, 0), 0u) << label << " is compiler code in " << what;
    }
  }
  for (const std::string& r : required) {
    EXPECT_NE(std::find(seen.begin(), seen.end(), r), seen.end())
        << r << " is missing from the closure of " << what;
  }
  EXPECT_GT(seen.size(), 5u) << genquery_path << " names almost nothing";
}

}  // namespace xla::testing
