// ClassifyFusion on hand-written fused modules: one case per FusionKind,
// with the iteration numbers computed by hand.
#include "xla/service/fusion/fusion_analysis.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla {
namespace {

constexpr char kReducers[] = R"(
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
)";

// The module of the last Classify call (the analysis points into it).
std::unique_ptr<HloModule>& LastModule() {
  static auto* m = new std::unique_ptr<HloModule>();
  return *m;
}

// Parses `text` (a module whose entry root is a fusion) and classifies it.
FusionKindAnalysis Classify(const std::string& body, const std::string& entry) {
  const std::string text = "HloModule m\n" + std::string(kReducers) + "fused {\n" + body + "}\nENTRY e {\n" + entry + "}\n";
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return {};
  LastModule() = std::move(*m);
  absl::StatusOr<FusionKindAnalysis> a = ClassifyFusion(*LastModule()->entry_computation()->root_instruction());
  EXPECT_TRUE(a.ok()) << a.status();
  return a.ok() ? *a : FusionKindAnalysis{};
}

TEST(FusionAnalysis, Loop) {
  auto a = Classify(R"(
  p = f32[3,5] parameter(0)
  ROOT n = f32[3,5] negate(p)
)", R"(
  a = f32[3,5] parameter(0)
  ROOT f = f32[3,5] fusion(a), kind=kLoop, calls=fused
)");
  EXPECT_EQ(a.kind, FusionKind::kLoop);
  EXPECT_EQ(a.iteration_dims, (std::vector<int64_t>{3, 5}));
  EXPECT_EQ(a.hero->name(), "n");
}

TEST(FusionAnalysis, TransposeOfParameter) {
  auto a = Classify(R"(
  p = f32[3,5] parameter(0)
  t = f32[5,3] transpose(p), dimensions={1,0}
  ROOT n = f32[5,3] negate(t)
)", R"(
  a = f32[3,5] parameter(0)
  ROOT f = f32[5,3] fusion(a), kind=kLoop, calls=fused
)");
  EXPECT_EQ(a.kind, FusionKind::kTranspose);
  EXPECT_EQ(a.hero->name(), "t");
}

TEST(FusionAnalysis, TransposeKeepingMinorDimIsLoop) {
  auto a = Classify(R"(
  p = f32[3,5,7] parameter(0)
  ROOT t = f32[5,3,7] transpose(p), dimensions={1,0,2}
)", R"(
  a = f32[3,5,7] parameter(0)
  ROOT f = f32[5,3,7] fusion(a), kind=kLoop, calls=fused
)");
  EXPECT_EQ(a.kind, FusionKind::kLoop);
}

TEST(FusionAnalysis, DynamicUpdateSliceInPlace) {
  auto a = Classify(R"(
  p = f32[10,4] parameter(0)
  u = f32[2,4] parameter(1)
  i = s32[] parameter(2)
  z = s32[] constant(0)
  n = f32[2,4] negate(u)
  ROOT d = f32[10,4] dynamic-update-slice(p, n, i, z)
)", R"(
  a = f32[10,4] parameter(0)
  b = f32[2,4] parameter(1)
  c = s32[] parameter(2)
  ROOT f = f32[10,4] fusion(a, b, c), kind=kLoop, calls=fused
)");
  EXPECT_EQ(a.kind, FusionKind::kDynamicUpdateSliceInPlace);
  EXPECT_EQ(a.iteration_dims, (std::vector<int64_t>{2, 4}));
}

TEST(FusionAnalysis, RowReduction) {
  auto a = Classify(R"(
  p = f32[6,7,9] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[6] reduce(p, z), dimensions={2,1}, to_apply=add
)", R"(
  a = f32[6,7,9] parameter(0)
  ROOT f = f32[6] fusion(a), kind=kInput, calls=fused
)");
  EXPECT_EQ(a.kind, FusionKind::kRowReduction);
  EXPECT_EQ(a.rows, 6);
  EXPECT_EQ(a.cols, 63);
}

TEST(FusionAnalysis, ColumnReduction) {
  auto a = Classify(R"(
  p = f32[11,7] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[7] reduce(p, z), dimensions={0}, to_apply=add
)", R"(
  a = f32[11,7] parameter(0)
  ROOT f = f32[7] fusion(a), kind=kInput, calls=fused
)");
  EXPECT_EQ(a.kind, FusionKind::kColumnReduction);
  EXPECT_EQ(a.rows, 11);
  EXPECT_EQ(a.cols, 7);
}

TEST(FusionAnalysis, WholeReduction) {
  auto a = Classify(R"(
  p = f32[11,7] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0,1}, to_apply=add
)", R"(
  a = f32[11,7] parameter(0)
  ROOT f = f32[] fusion(a), kind=kInput, calls=fused
)");
  EXPECT_EQ(a.kind, FusionKind::kWholeReduction);
  EXPECT_EQ(a.rows, 1);
  EXPECT_EQ(a.cols, 77);
}

TEST(FusionAnalysis, RowNormalization) {
  auto a = Classify(R"(
  p = f32[7,129] parameter(0)
  z = f32[] constant(0)
  r = f32[7] reduce(p, z), dimensions={1}, to_apply=add
  b = f32[7,129] broadcast(r), dimensions={0}
  ROOT d = f32[7,129] divide(p, b)
)", R"(
  a = f32[7,129] parameter(0)
  ROOT f = f32[7,129] fusion(a), kind=kInput, calls=fused
)");
  EXPECT_EQ(a.kind, FusionKind::kRowNormalization);
  EXPECT_EQ(a.rows, 7);
  EXPECT_EQ(a.cols, 129);
  EXPECT_EQ(a.ToString(), "row_normalization rows=7 cols=129 hero=r");
}

TEST(FusionAnalysis, MixedReductionsAreGeneric) {
  auto a = Classify(R"(
  p = f32[11,7] parameter(0)
  z = f32[] constant(0)
  r0 = f32[7] reduce(p, z), dimensions={0}, to_apply=add
  r1 = f32[11] reduce(p, z), dimensions={1}, to_apply=add
  ROOT t = (f32[7], f32[11]) tuple(r0, r1)
)", R"(
  a = f32[11,7] parameter(0)
  ROOT f = (f32[7], f32[11]) fusion(a), kind=kInput, calls=fused
)");
  EXPECT_EQ(a.kind, FusionKind::kGenericReduction);
}

TEST(FusionAnalysis, NotAFusionIsAnError) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(R"(
HloModule m
ENTRY e {
  ROOT a = f32[3] parameter(0)
})");
  ASSERT_TRUE(m.ok());
  absl::StatusOr<FusionKindAnalysis> a = ClassifyFusion(*(*m)->entry_computation()->root_instruction());
  ASSERT_FALSE(a.ok());
  EXPECT_NE(std::string(a.status().message()).find("'a'"), std::string::npos);
}

}  // namespace
}  // namespace xla
