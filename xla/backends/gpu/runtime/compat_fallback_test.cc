// DESIGN.md section 6: every backward-compatibility fallback in the runtime,
// and every FFI handler or registered-kernel alias, carries an expiry line
//   // Backward-compatibility fallback for <what>. Can be removed in <Month YYYY> (6 months backward compatibility window).
// This test runs the lint (//xla/tools/compat:compat_lint, whose own tests
// drive it with fixed dates) over the runtime's and the FFI registry's
// sources with today's date: a malformed line or a past-due fallback or
// alias fails CI.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "xla/tools/compat/compat_lint.h"

namespace {

TEST(CompatFallback, EveryFallbackAndAliasInTheRuntimeIsWellFormedAndCurrent) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  ASSERT_NE(srcdir, nullptr);
  std::ifstream list(std::string(srcdir) + "/xla_aot/xla/backends/gpu/runtime/compat_fallback_sources.txt");
  ASSERT_TRUE(list.good());
  std::vector<xla::compat::SourceText> sources;
  std::string path;
  while (std::getline(list, path)) {
    // Tests register throwaway aliases and quote the form; only shipped code
    // is linted.
    if (absl::EndsWith(path, "_test.cc")) continue;
    std::ifstream file(std::string(srcdir) + "/xla_aot/" + path);
    ASSERT_TRUE(file.good()) << path;
    std::stringstream text;
    text << file.rdbuf();
    sources.push_back({path, text.str()});
  }
  EXPECT_GT(sources.size(), 10u);
  const absl::CivilDay today = absl::ToCivilDay(absl::Now(), absl::UTCTimeZone());
  for (const xla::compat::LintFinding& finding : xla::compat::LintCompatMarkers(sources, today)) {
    ADD_FAILURE() << xla::compat::FormatFinding(finding);
  }
  // The scan must see the aliases both registries hold: far in the future,
  // each of them is reported as expired (a lint that stopped matching them
  // would pass silently otherwise).
  int ffi_expired = 0, kernel_expired = 0;
  for (const xla::compat::LintFinding& finding :
       xla::compat::LintCompatMarkers(sources, absl::CivilDay(2100, 1, 1))) {
    if (finding.problem.find("alias expired") == std::string::npos) continue;
    ffi_expired += finding.path.find("builtin_handlers.cc") != std::string::npos;
    kernel_expired += finding.path.find("runtime_kernel_registry.cc") != std::string::npos;
  }
  EXPECT_GE(ffi_expired, 1);
  EXPECT_GE(kernel_expired, 1);
}

}  // namespace
