// The house rule of issue 23: no thunk asks which platform it runs on. The
// stream executor hides the platform (Stream::Gemm, DeviceCommunicator), so
// a thunk's sources (`*_thunk.{h,cc}` and the collective op table under
// xla/backends/gpu/runtime, tests aside) name no platform query, no cast and
// no platform class, and include nothing from a platform's folder. The
// sources come as arguments (see BUILD), relative to the runfiles root.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "xla/tools/lint/function_length.h"

namespace {

std::vector<std::string>* sources = nullptr;

bool IsThunkSource(const std::string& path) {
  const std::string base = path.substr(path.rfind('/') + 1);
  if (absl::StrContains(base, "test")) return false;
  return absl::StrContains(base, "_thunk.") || absl::StartsWith(base, "collective_ops.");
}

// What a platform-neutral thunk never writes, in code (comments and strings
// blanked) and in its includes.
constexpr const char* kCodeMarkers[] = {"platform_name", "dynamic_cast", "HostExecutor", "HostStream",
                                        "CudaExecutor",  "CudaStream",   "kHostPlatform"};
constexpr const char* kIncludeMarkers[] = {"xla/stream_executor/host/", "xla/stream_executor/cuda/"};

TEST(ThunkPlatform, NoThunkNamesAPlatform) {
  ASSERT_NE(sources, nullptr);
  const char* srcdir = std::getenv("TEST_SRCDIR");
  ASSERT_NE(srcdir, nullptr);
  int thunks = 0;
  for (const std::string& path : *sources) {
    if (!IsThunkSource(path)) continue;
    std::ifstream file(std::string(srcdir) + "/xla_aot/" + path);
    ASSERT_TRUE(file.good()) << path;
    std::stringstream text;
    text << file.rdbuf();
    ++thunks;
    const std::string code = xla::lint::BlankNonCode(text.str());
    for (const char* marker : kCodeMarkers) {
      EXPECT_FALSE(absl::StrContains(code, marker)) << path << " uses " << marker;
    }
    for (absl::string_view line : absl::StrSplit(text.str(), '\n')) {
      if (!absl::StartsWith(line, "#include")) continue;
      for (const char* marker : kIncludeMarkers) {
        EXPECT_FALSE(absl::StrContains(line, marker)) << path << ": " << line;
      }
    }
  }
  // Every thunk kind's pair, the collective thunk's and the op table's: a
  // filegroup that stopped matching would pass silently.
  EXPECT_GE(thunks, 20);
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  std::vector<std::string> paths(argv + 1, argv + argc);
  sources = &paths;
  return RUN_ALL_TESTS();
}
