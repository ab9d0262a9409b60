// Every module of the shared HLO corpus parses, and printing reaches a fixed
// point: print(parse(print(parse(f)))) == print(parse(f)), byte for byte.
#include <cstdio>
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/parser/hlo_printer.h"
#include "xla/hlo/testing/corpus.h"

namespace xla {
namespace {

TEST(CorpusRoundTrip, EveryFileParsesAndReachesAFixedPoint) {
  absl::StatusOr<std::vector<std::string>> files = ListCorpusFiles();
  ASSERT_TRUE(files.ok()) << files.status();
  ASSERT_GE(files->size(), 150u);
  int parsed = 0, fixed_point = 0;
  for (const std::string& path : *files) {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModuleFile(path);
    EXPECT_TRUE(module.ok()) << module.status();
    if (!module.ok()) continue;
    ++parsed;
    const std::string once = PrintModule(**module);
    absl::StatusOr<std::unique_ptr<HloModule>> again = ParseHloModule(once, path + " (printed)");
    EXPECT_TRUE(again.ok()) << again.status() << "\n" << once.substr(0, 2000);
    if (!again.ok()) continue;
    const std::string twice = PrintModule(**again);
    EXPECT_EQ(once, twice) << path;
    if (once == twice) ++fixed_point;
  }
  std::printf("corpus: %d of %zu files parse, %d reach the print fixed point\n", parsed,
              files->size(), fixed_point);
}

}  // namespace
}  // namespace xla
