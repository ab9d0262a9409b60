// Every module of the shared HLO corpus survives IR -> proto -> bytes ->
// proto -> IR unchanged: the printed text is identical, and writing the
// rebuilt module gives the same bytes.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/parser/hlo_printer.h"
#include "xla/hlo/proto/hlo_proto_convert.h"
#include "xla/hlo/testing/corpus.h"

namespace xla {
namespace {

TEST(HloProtoCorpus, EveryParsedModuleRoundTripsThroughTheProto) {
  absl::StatusOr<std::vector<std::string>> files = ListCorpusFiles();
  ASSERT_TRUE(files.ok()) << files.status();
  ASSERT_FALSE(files->empty());
  int round_tripped = 0;
  std::vector<std::string> unparsed;
  for (const std::string& path : *files) {
    SCOPED_TRACE(path);
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModuleFile(path);
    if (!module.ok()) {
      // The parser's own corpus test reports these; nothing to convert.
      unparsed.push_back(path + ": " + std::string(module.status().message()));
      continue;
    }
    const HloModuleProto proto = ModuleToProto(**module);
    const std::string bytes = SerializeDeterministically(proto);
    HloModuleProto reread;
    ASSERT_TRUE(reread.ParseFromString(bytes)) << "serialized proto does not parse back";
    absl::StatusOr<std::unique_ptr<HloModule>> back = ModuleFromProto(reread);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(PrintModule(**module), PrintModule(**back));
    EXPECT_EQ(SerializeDeterministically(ModuleToProto(**back)), bytes);
    ++round_tripped;
  }
  std::printf("proto corpus: %d of %zu files round-trip; %zu do not parse\n", round_tripped,
              files->size(), unparsed.size());
  for (const std::string& u : unparsed) std::printf("  not parsed: %s\n", u.c_str());
  EXPECT_GT(round_tripped, 0);
}

}  // namespace
}  // namespace xla
