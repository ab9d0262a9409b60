// Corpus coverage cannot regress silently (issue 28): every XLA corpus
// module that benchmarks/corpus_coverage.sh found compiling, per target, is
// listed in testdata/corpus_coverage.txt ("<target> <path under
// shared/hlo_corpus>"), and each one must still compile for that target with
// the script's options (--emit_collectives, --emit_fft, --emit_host_transfers,
// --elided_constants=random, and
// the device counts its collectives need: DeviceCountsForCollectives, as the
// script's `xla_aot parse --device_counts`). One test per line, so gtest's sharding
// spreads them; the host ones build at -O1 without the x86-64-v3 variant to
// keep the test cheap (what compiles does not depend on the level).
//
// When a change makes more modules compile, rerun the script and add them
// (kListed below is the number the documentation states).
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "xla/aot/compile.h"
#include "xla/hlo/ir/collective_device_counts.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/testing/corpus.h"

namespace xla {
namespace {

// The number of (target, module) lines: host and sm_90 together.
constexpr int kListed = 2 * 149;

struct Entry {
  std::string target;
  std::string module;  // relative to the corpus directory
};

// The checked-in list, from the runfiles (empty when unreadable; the
// ListHasTheDocumentedSize test then fails).
std::vector<Entry> ReadList() {
  std::vector<std::string> candidates = {"tests/e2e/testdata/corpus_coverage.txt"};
  if (const char* srcdir = std::getenv("TEST_SRCDIR"); srcdir != nullptr) {
    candidates.push_back(absl::StrCat(srcdir, "/xla_aot/tests/e2e/testdata/corpus_coverage.txt"));
  }
  for (const std::string& path : candidates) {
    std::ifstream in(path);
    if (!in) continue;
    std::vector<Entry> out;
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::vector<std::string> parts = absl::StrSplit(line, ' ', absl::SkipEmpty());
      if (parts.size() == 2) out.push_back({parts[0], parts[1]});
    }
    return out;
  }
  return {};
}

const std::vector<Entry>& List() {
  static const std::vector<Entry>* list = new std::vector<Entry>(ReadList());
  return *list;
}

TEST(CorpusCoverage, ListHasTheDocumentedSize) {
  EXPECT_EQ(static_cast<int>(List().size()), kListed)
      << "tests/e2e/testdata/corpus_coverage.txt and kListed disagree";
}

class CorpusCoverageTest : public ::testing::TestWithParam<Entry> {};

TEST_P(CorpusCoverageTest, Compiles) {
  absl::StatusOr<std::string> dir = FindHloCorpusDir();
  ASSERT_TRUE(dir.ok()) << dir.status();
  const Entry& e = GetParam();
  const std::string path = absl::StrCat(*dir, "/", e.module);
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "cannot read " << path;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text, e.module);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<DeviceCounts> counts = DeviceCountsForCollectives(**module);
  ASSERT_TRUE(counts.ok()) << counts.status();
  aot::CompileOptions options;
  options.target = e.target;
  options.num_replicas = counts->num_replicas;
  options.num_partitions = counts->num_partitions;
  options.source_name = e.module;
  options.emit_collectives = true;
  options.emit_fft = true;
  options.emit_host_transfers = true;
  options.elided_constants = ElidedConstantsMode::kRandom;
  options.include_optimized_hlo = false;
  options.opt_level = 1;
  options.host_cpu_variants.clear();
  options.production_date = "2026-12-02T00:00:00Z";
  absl::StatusOr<aot::CompiledArtifact> compiled = aot::Compile(text, options);
  EXPECT_TRUE(compiled.ok()) << e.target << " " << e.module << ": " << compiled.status();
}

std::string TestName(const ::testing::TestParamInfo<Entry>& info) {
  std::string name = absl::StrCat(info.param.target, "_", info.param.module);
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return absl::StrCat(info.index, "_", name);
}

INSTANTIATE_TEST_SUITE_P(Listed, CorpusCoverageTest, ::testing::ValuesIn(List()), TestName);

}  // namespace
}  // namespace xla
