// Parses every module of the shared HLO corpus and runs the verifier on it.
//
// Some corpus modules are deliberately odd (XLA's importer tests keep shapes
// the verifier rejects), so a rejection alone does not fail the test: every
// rejected module is printed with its first errors. The test fails when a
// file does not parse, or when fewer modules verify than the floor below,
// so that a regression in shape inference shows up.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/testing/corpus.h"
#include "xla/hlo/verifier/hlo_verifier.h"

namespace xla {
namespace {

// Modules that verify cleanly today; raise it when the verifier improves.
constexpr int kMinClean = 182;

std::string FirstLines(absl::string_view text, int n) {
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  std::string out;
  for (int i = 0; i < n && i < static_cast<int>(lines.size()); ++i) {
    absl::StrAppend(&out, "    ", lines[i], "\n");
  }
  if (static_cast<int>(lines.size()) > n) {
    absl::StrAppend(&out, "    ... ", lines.size() - n, " more\n");
  }
  return out;
}

TEST(CorpusVerify, EveryModuleParsesAndMostVerify) {
  absl::StatusOr<std::vector<std::string>> files = ListCorpusFiles();
  ASSERT_TRUE(files.ok()) << files.status();
  int parsed = 0, clean = 0;
  for (const std::string& path : *files) {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModuleFile(path);
    EXPECT_TRUE(module.ok()) << module.status();
    if (!module.ok()) continue;
    ++parsed;
    absl::Status status = VerifyModule(**module);
    if (status.ok()) {
      ++clean;
      continue;
    }
    std::printf("rejected %s\n%s", path.c_str(), FirstLines(status.message(), 4).c_str());
  }
  std::printf("corpus: %d of %zu files parse, %d verify cleanly\n", parsed, files->size(), clean);
  EXPECT_GE(clean, kMinClean);
}

}  // namespace
}  // namespace xla
