#include "xla/hlo/evaluator/random_inputs.h"

#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla {
namespace {

TEST(RandomInputs, RangesAndIndexBounds) {
  auto m = ParseHloModule(R"(
ENTRY e {
  x = f32[33,7] parameter(0)
  i = s32[] parameter(1)
  j = s32[] parameter(2)
  n = u8[257] parameter(3)
  ROOT d = f32[30,7] dynamic-slice(x, i, j), dynamic_slice_sizes={30,7}
})");
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<std::vector<Literal>> args = MakeRandomInputs(**m, 42);
  ASSERT_TRUE(args.ok()) << args.status();
  ASSERT_EQ(args->size(), 4u);
  const Literal& x = (*args)[0];
  bool nonzero = false;
  for (int64_t k = 0; k < x.element_count(); ++k) {
    EXPECT_GE(x.GetDouble(k), -1.0);
    EXPECT_LT(x.GetDouble(k), 1.0);
    nonzero |= x.GetDouble(k) != 0;
  }
  EXPECT_TRUE(nonzero);
  // i indexes a dimension of 33 with a slice of 30: in [0, 3]; j: exactly 0.
  EXPECT_LE((*args)[1].GetInt(0), 3);
  EXPECT_GE((*args)[1].GetInt(0), 0);
  EXPECT_EQ((*args)[2].GetInt(0), 0);
  for (int64_t k = 0; k < 257; ++k) EXPECT_LT((*args)[3].GetInt(k), 8);
  // Same seed, same values; another seed, other values.
  absl::StatusOr<std::vector<Literal>> again = MakeRandomInputs(**m, 42);
  absl::StatusOr<std::vector<Literal>> other = MakeRandomInputs(**m, 43);
  EXPECT_EQ((*again)[0], x);
  EXPECT_NE((*other)[0], x);
}

// A token parameter (host transfers' programs) gets a token; a token
// inside a tuple parameter has no value to draw.
TEST(RandomInputs, TokenParametersGetATokenAndTupledTokensAreRejected) {
  auto m = ParseHloModule("ENTRY e {\n  ROOT t = token[] parameter(0)\n}");
  ASSERT_TRUE(m.ok());
  absl::StatusOr<std::vector<Literal>> token = MakeRandomInputs(**m, 1);
  ASSERT_TRUE(token.ok()) << token.status();
  ASSERT_EQ(token->size(), 1u);
  EXPECT_TRUE((*token)[0].shape().IsToken());
  auto tupled = ParseHloModule("ENTRY e {\n  ROOT t = (f32[3], token[]) parameter(0)\n}");
  ASSERT_TRUE(tupled.ok());
  EXPECT_FALSE(MakeRandomInputs(**tupled, 1).ok());
}

}  // namespace
}  // namespace xla
