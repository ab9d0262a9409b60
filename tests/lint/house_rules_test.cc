// The house rules of issue 23, checked over the tree's sources, which come
// as arguments (see BUILD), relative to the runfiles root:
//   * no function in the runtime (xla/backends/gpu/runtime), the stream
//     executor (xla/stream_executor) or the public API (xla/aot) is longer
//     than xla::lint::kMaxFunctionLines lines; tests, test utilities and the
//     fake CUDA driver, cuBLAS(Lt) and NCCL are exempt;
//   * no thunk asks which platform it runs on. The stream executor hides the
//     platform (Stream::Gemm, DeviceCommunicator), so a thunk's sources
//     (`*_thunk.{h,cc}` and the collective op table, tests aside) name no
//     platform query, no cast and no platform class, and include nothing
//     from a platform's folder.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "xla/tools/lint/function_length.h"

namespace {

std::vector<std::string>* sources = nullptr;

std::string BaseName(const std::string& path) { return path.substr(path.rfind('/') + 1); }

// The sources `keep` selects, as (path, text); fails the test on a file
// that cannot be read.
std::vector<std::pair<std::string, std::string>> ReadSources(bool (*keep)(const std::string&)) {
  std::vector<std::pair<std::string, std::string>> read;
  const char* srcdir = std::getenv("TEST_SRCDIR");
  if (sources == nullptr || srcdir == nullptr) {
    ADD_FAILURE() << "no sources or no TEST_SRCDIR: run under bazel test";
    return read;
  }
  for (const std::string& path : *sources) {
    if (!keep(path)) continue;
    std::ifstream file(std::string(srcdir) + "/xla_aot/" + path);
    if (!file.good()) {
      ADD_FAILURE() << "cannot read " << path;
      continue;
    }
    std::stringstream text;
    text << file.rdbuf();
    read.emplace_back(path, text.str());
  }
  return read;
}

bool IsLengthChecked(const std::string& path) {
  const std::string base = BaseName(path);
  return !absl::StrContains(base, "test") && !absl::StartsWith(base, "fake_") &&
         !absl::StrContains(path, "/testing/");
}

TEST(HouseRules, NoRuntimeStreamExecutorOrApiFunctionIsOverTheLimit) {
  int files = 0, functions = 0;
  for (const auto& [path, text] : ReadSources(IsLengthChecked)) {
    ++files;
    for (const xla::lint::FunctionSpan& span : xla::lint::FindFunctions(text)) {
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

bool IsThunkSource(const std::string& path) {
  const std::string base = BaseName(path);
  if (absl::StrContains(base, "test")) return false;
  return absl::StrContains(base, "_thunk.") || absl::StartsWith(base, "collective_ops.");
}

// What a platform-neutral thunk never writes, in code (comments and strings
// blanked) and in its includes.
constexpr const char* kCodeMarkers[] = {"platform_name", "dynamic_cast", "HostExecutor", "HostStream",
                                        "CudaExecutor",  "CudaStream",   "kHostPlatform"};
constexpr const char* kIncludeMarkers[] = {"xla/stream_executor/host/", "xla/stream_executor/cuda/"};

TEST(HouseRules, NoThunkNamesAPlatform) {
  int thunks = 0;
  for (const auto& [path, text] : ReadSources(IsThunkSource)) {
    ++thunks;
    const std::string code = xla::lint::BlankNonCode(text);
    for (const char* marker : kCodeMarkers) {
      EXPECT_FALSE(absl::StrContains(code, marker)) << path << " uses " << marker;
    }
    for (absl::string_view line : absl::StrSplit(text, '\n')) {
      if (!absl::StartsWith(line, "#include")) continue;
      for (const char* marker : kIncludeMarkers) {
        EXPECT_FALSE(absl::StrContains(line, marker)) << path << ": " << line;
      }
    }
  }
  // Every thunk kind's pair, the collective thunk's and the op table's.
  EXPECT_GE(thunks, 20);
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  std::vector<std::string> paths(argv + 1, argv + argc);
  sources = &paths;
  return RUN_ALL_TESTS();
}
