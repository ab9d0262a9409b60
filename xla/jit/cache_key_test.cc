#include "xla/jit/cache_key.h"

#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/jit/jit_test_util.h"

namespace xla::jit {
namespace {

using testing::MustParse;
using testing::SmallModuleText;

const CompilerIdentity kHost{"host", "v1", "opt=3"};

std::vector<Shape> ParamShapes(const JitModule& m) { return m.program_shape().parameters; }

TEST(JitModule, StripsMetadataAndKeepsTheRest) {
  auto with = MustParse(SmallModuleText("m"));
  std::string text = SmallModuleText("m");
  // Same module without the metadata attribute.
  std::string stripped = text;
  size_t at = stripped.find(", metadata=");
  stripped.erase(at, stripped.find('\n', at) - at);
  auto without = MustParse(stripped);
  EXPECT_FALSE(absl::StrContains(with->canonical_text(), "metadata"));
  EXPECT_FALSE(absl::StrContains(with->canonical_text(), "f.py"));
  EXPECT_EQ(with->canonical_text(), without->canonical_text());
  EXPECT_EQ(with->fingerprint(), without->fingerprint());
  EXPECT_EQ(with->instruction_count(), 5);
  EXPECT_EQ(with->program_shape().parameters.size(), 2u);
}

TEST(JitModule, RejectsInvalidModules) {
  EXPECT_FALSE(JitModule::FromText("HloModule m\nENTRY e { ROOT x = f32[3]{0} add(p, p) }").ok());
  EXPECT_FALSE(JitModule::FromText("not hlo").ok());
}

TEST(CacheKey, SameInputsSameKey) {
  auto a = MustParse(SmallModuleText("m"));
  auto b = MustParse(SmallModuleText("m"));
  Fingerprint128 c = FingerprintCompiler(kHost);
  EXPECT_EQ(MakeCacheKey(*a, ParamShapes(*a), c), MakeCacheKey(*b, ParamShapes(*b), c));
  EXPECT_EQ(MakeCacheKey(*a, ParamShapes(*a), c).ToString().size(), 32u);
}

TEST(CacheKey, EveryComponentChangesTheKey) {
  auto m = MustParse(SmallModuleText("m"));
  Fingerprint128 c = FingerprintCompiler(kHost);
  CacheKey base = MakeCacheKey(*m, ParamShapes(*m), c);

  auto other_module = MustParse(SmallModuleText("m", 39));
  EXPECT_NE(base, MakeCacheKey(*other_module, ParamShapes(*other_module), c));
  auto renamed = MustParse(SmallModuleText("m2"));
  EXPECT_NE(base, MakeCacheKey(*renamed, ParamShapes(*renamed), c));

  // Argument layouts are part of the key.
  auto r = MustParse(testing::ReduceModuleText("r"));
  std::vector<Shape> row_major = ParamShapes(*r);
  std::vector<Shape> col_major = row_major;
  col_major[0].mutable_layout()->minor_to_major = {0, 1};
  Fingerprint128 cr = FingerprintCompiler(kHost);
  EXPECT_NE(MakeCacheKey(*r, row_major, cr), MakeCacheKey(*r, col_major, cr));

  for (CompilerIdentity changed : {CompilerIdentity{"sm_90", "v1", "opt=3"},
                                   CompilerIdentity{"host", "v2", "opt=3"},
                                   CompilerIdentity{"host", "v1", "opt=0"}}) {
    EXPECT_NE(base, MakeCacheKey(*m, ParamShapes(*m), FingerprintCompiler(changed)))
        << changed.target << " " << changed.version << " " << changed.options;
  }
}

TEST(CacheKey, CheckArgumentShapes) {
  auto m = MustParse(SmallModuleText("m", 37));
  EXPECT_TRUE(CheckArgumentShapes(*m, ParamShapes(*m)).ok());
  std::vector<Shape> one = {ParamShapes(*m)[0]};
  absl::Status count = CheckArgumentShapes(*m, one);
  EXPECT_EQ(count.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(count.message(), "takes 2 arguments")) << count;

  auto other = MustParse(SmallModuleText("m", 38));
  absl::Status dims = CheckArgumentShapes(*m, ParamShapes(*other));
  EXPECT_EQ(dims.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(dims.message(), "argument 0 has shape f32[38]")) << dims;
}

}  // namespace
}  // namespace xla::jit
