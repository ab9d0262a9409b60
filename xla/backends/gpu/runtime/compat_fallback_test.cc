// DESIGN.md section 6: every backward-compatibility fallback in the runtime
// carries, on one line,
//   // Backward-compatibility fallback for <what>. Can be removed in <Month YYYY> (6 months backward compatibility window).
// This test scans the runtime's sources and fails for a malformed comment
// or one whose removal month has passed.
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace {

const char* const kMonths[] = {"January", "February", "March",     "April",   "May",      "June",
                               "July",    "August",   "September", "October", "November", "December"};

// Empty when `line` (which mentions the marker) is well formed and not past
// due at (year, month); otherwise the problem.
std::string CheckLine(const std::string& line, int year, int month) {
  static const std::regex kForm(
      R"(// Backward-compatibility fallback for .+\. Can be removed in ([A-Z][a-z]+) ([0-9]{4}) )"
      R"(\(6 months backward compatibility window\)\.)");
  std::smatch m;
  if (!std::regex_search(line, m, kForm)) return "malformed fallback comment";
  int removal_month = 0;
  for (int i = 0; i < 12; ++i) {
    if (m[1] == kMonths[i]) removal_month = i + 1;
  }
  if (removal_month == 0) return "unknown month " + m[1].str();
  const int removal_year = std::stoi(m[2]);
  if (removal_year * 12 + removal_month < year * 12 + month) return "past due: remove the fallback";
  return "";
}

TEST(CompatFallback, CheckerAcceptsTheFormAndRejectsOthers) {
  EXPECT_EQ(CheckLine("  // Backward-compatibility fallback for old kernels. Can be removed in May 2027 "
                      "(6 months backward compatibility window).",
                      2026, 11),
            "");
  EXPECT_EQ(CheckLine("// Backward-compatibility fallback for x. Can be removed in May 2026 "
                      "(6 months backward compatibility window).",
                      2026, 11),
            "past due: remove the fallback");
  EXPECT_EQ(CheckLine("// Backward-compatibility fallback for x, remove later", 2026, 11),
            "malformed fallback comment");
}

TEST(CompatFallback, EveryFallbackInTheRuntimeIsWellFormedAndCurrent) {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  const char* srcdir = std::getenv("TEST_SRCDIR");
  ASSERT_NE(srcdir, nullptr);
  std::ifstream list(std::string(srcdir) + "/xla_aot/xla/backends/gpu/runtime/compat_fallback_sources.txt");
  ASSERT_TRUE(list.good());
  std::string path;
  int files = 0;
  while (std::getline(list, path)) {
    std::ifstream file(std::string(srcdir) + "/xla_aot/" + path);
    ASSERT_TRUE(file.good()) << path;
    ++files;
    std::string line;
    for (int n = 1; std::getline(file, line); ++n) {
      // The marker is split so this file does not match itself.
      if (line.find(std::string("Backward-compatibility") + " fallback") == std::string::npos) continue;
      if (path.find("compat_fallback_test.cc") != std::string::npos) continue;
      EXPECT_EQ(CheckLine(line, utc.tm_year + 1900, utc.tm_mon + 1), "") << path << ":" << n << ": " << line;
    }
  }
  EXPECT_GT(files, 10);
}

}  // namespace
