#include "xla/jit/fallback.h"

#include <cmath>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/jit/jit_test_util.h"

namespace xla::jit {
namespace {

using testing::MustParse;

// Inputs with distinct, non-zero values.
std::vector<Literal> Args(const JitModule& m) {
  std::vector<Literal> args;
  int64_t p = 0;
  for (const Shape& s : m.program_shape().parameters) {
    Literal l(s);
    for (int64_t i = 0; i < l.element_count(); ++i) l.SetDouble(i, 0.05 * (i + 1) * (p == 0 ? 1 : -0.7));
    args.push_back(std::move(l));
    ++p;
  }
  return args;
}

TEST(EvaluatorFallback, ComputesTheModule) {
  auto m = MustParse(testing::SmallModuleText("f", 37));
  std::vector<Literal> args = Args(*m);
  EvaluatorFallback fallback;
  absl::StatusOr<std::vector<Literal>> out = fallback.Run(m, CacheKey{}, args);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  for (int64_t i = 0; i < 37; ++i) {
    double x = static_cast<float>(0.05 * (i + 1)), y = static_cast<float>(-0.035 * (i + 1));
    EXPECT_NEAR((*out)[0].GetDouble(i), std::tanh(x * y + x), 1e-6) << i;
  }
}

TEST(EvaluatorFallback, RefusesLargeModules) {
  auto m = MustParse(testing::SmallModuleText("f"));
  EvaluatorFallback fallback(/*max_instructions=*/3);
  absl::StatusOr<std::vector<Literal>> out = fallback.Run(m, CacheKey{}, Args(*m));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(out.status().message(), "5 instructions, more than the limit of 3"))
      << out.status();
}

TEST(FunctionFallback, PassesModuleAndArgumentsThrough) {
  auto m = MustParse(testing::ReduceModuleText("r", 3));
  FunctionFallback fallback(
      [](const JitModule& module, absl::Span<const Literal> args) -> absl::StatusOr<std::vector<Literal>> {
        if (module.name() != "r") return absl::InternalError("wrong module");
        std::vector<Literal> out;
        out.push_back(args[0]);
        return out;
      },
      "echo");
  std::vector<Literal> args = Args(*m);
  absl::StatusOr<std::vector<Literal>> out = fallback.Run(m, CacheKey{}, args);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], args[0]);
  EXPECT_EQ(fallback.name(), "echo");
}

TEST(FlattenLeaves, TuplesDepthFirst) {
  Shape f32 = Shape::Array(PrimitiveType::F32, {2});
  Shape s32 = Shape::Array(PrimitiveType::S32, {1});
  Literal tuple(Shape::Tuple({f32, Shape::Tuple({s32, f32})}));
  (*tuple.mutable_tuple_elements())[1].mutable_tuple_elements()->at(0).SetInt(0, 42);
  std::vector<Literal> leaves = FlattenLeaves(std::move(tuple));
  ASSERT_EQ(leaves.size(), 3u);
  EXPECT_EQ(leaves[1].GetInt(0), 42);
  EXPECT_EQ(leaves[2].shape().element_type(), PrimitiveType::F32);
}

}  // namespace
}  // namespace xla::jit
