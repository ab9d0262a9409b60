// The current artifact schema against the newest released baseline in this
// folder (the highest N of vN.pb), with `xla_aot check-compat`'s logic.
// STAGED_ROLLOUT lines pass only when the feature registry gates them
// (FeatureRegistryGate).
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "xla/tools/compat/check_compat_command.h"
#include "xla/tools/exit_codes.h"

namespace xla {
namespace {

const char kBaselineDir[] = "tests/aot_compatibility/gpu/schemas";
const char kCurrent[] = "xla/tools/compat/gpu_executable_descriptor_set.pb";

// The path of the vN.pb with the highest N, or "" when there is none.
std::string NewestBaseline(int* version) {
  std::string newest;
  *version = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kBaselineDir)) {
    absl::string_view name = entry.path().filename().native();
    if (!absl::ConsumePrefix(&name, "v") || !absl::ConsumeSuffix(&name, ".pb")) continue;
    int n = 0;
    if (!absl::SimpleAtoi(name, &n) || n <= *version) continue;
    *version = n;
    newest = entry.path().string();
  }
  return newest;
}

TEST(SchemaCompatTest, CurrentSchemaIsCompatibleWithNewestBaseline) {
  int version = 0;
  std::string baseline = NewestBaseline(&version);
  ASSERT_FALSE(baseline.empty()) << "no vN.pb baseline in " << kBaselineDir;
  ASSERT_GE(version, 1);
  std::ostringstream out, err;
  int code = cli::RunCheckCompat({"--baseline=" + baseline, std::string("--current=") + kCurrent}, out, err);
  EXPECT_EQ(code, cli::kExitOk) << "the artifact schema changed incompatibly since format v" << version
                                << ":\n"
                                << out.str() << err.str();
  // The check really compared something: the summary line names the baseline.
  EXPECT_TRUE(absl::StrContains(out.str(), "violation(s) against " + baseline)) << out.str() << err.str();
  std::cout << "checked against " << baseline << ":\n" << out.str();
}

}  // namespace
}  // namespace xla
