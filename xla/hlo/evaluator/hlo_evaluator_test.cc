#include "xla/hlo/evaluator/hlo_evaluator.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla {
namespace {

std::unique_ptr<HloModule> Parse(absl::string_view text) {
  auto m = ParseHloModule(text, "test.hlo");
  EXPECT_TRUE(m.ok()) << m.status();
  return std::move(*m);
}

TEST(HloEvaluator, ParametersAndConstantsFlowThrough) {
  auto m = Parse(R"(
ENTRY e {
  p = s32[3] parameter(0)
  c = s32[3] constant({4, 5, 6})
  ROOT r = s32[3] parameter(1)
})");
  Literal a(Shape::Array(PrimitiveType::S32, {3}));
  Literal b(Shape::Array(PrimitiveType::S32, {3}));
  for (int i = 0; i < 3; ++i) b.SetInt(i, 10 * i - 7);
  absl::StatusOr<Literal> r = HloEvaluator().Evaluate(*m, {a, b});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, b);
}

TEST(HloEvaluator, ArgumentErrorsNameTheParameter) {
  auto m = Parse("ENTRY e {\n  ROOT p = f32[4] parameter(0)\n}");
  Literal wrong(Shape::Array(PrimitiveType::F32, {5}));
  absl::StatusOr<Literal> r = HloEvaluator().Evaluate(*m, {wrong});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "parameter 'p') should have shape f32[4] but has shape f32[5]"))
      << r.status();
  EXPECT_FALSE(HloEvaluator().Evaluate(*m, {}).ok());
}

TEST(HloEvaluator, ElidedConstantIsAnError) {
  auto m = Parse("ENTRY e {\n  ROOT c = f32[7,7] constant({...})\n}");
  absl::StatusOr<Literal> r = HloEvaluator().Evaluate(*m, {});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "constant 'c' has an elided value")) << r.status();
}

}  // namespace
}  // namespace xla
