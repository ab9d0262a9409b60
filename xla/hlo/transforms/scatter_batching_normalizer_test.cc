#include "xla/hlo/transforms/scatter_batching_normalizer.h"

#include <vector>

#include "gtest/gtest.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

// Runs the pass and checks the result on the original module's random
// inputs (RunPassAndCheck would draw the indices anew for the rewritten
// module, whose indices no longer feed the scatter directly, so their range
// would differ). Returns the pass result for further checks.
pass_test::PassResult RunAndCompare(const char* text) {
  ScatterBatchingNormalizer pass;
  pass_test::PassResult r = pass_test::RunPassOnly(pass, text);
  absl::StatusOr<std::unique_ptr<HloModule>> original = ParseHloModule(text);
  EXPECT_TRUE(original.ok()) << original.status();
  if (r.module == nullptr || !original.ok()) return r;
  for (uint64_t seed : {1, 2, 3}) {
    absl::StatusOr<std::vector<Literal>> args = MakeRandomInputs(**original, seed);
    EXPECT_TRUE(args.ok()) << args.status();
    if (!args.ok()) continue;
    absl::StatusOr<Literal> before = HloEvaluator().Evaluate(**original, *args);
    absl::StatusOr<Literal> after = HloEvaluator().Evaluate(*r.module, *args);
    EXPECT_TRUE(before.ok()) << before.status();
    EXPECT_TRUE(after.ok()) << after.status();
    if (!before.ok() || !after.ok()) continue;
    absl::Status same = CompareLiterals(*before, *after);
    EXPECT_TRUE(same.ok()) << "seed " << seed << ": " << same << "\n" << r.text;
  }
  return r;
}

// The corpus form at odd sizes: two batching pairs in swapped order, an
// explicit index vector dimension; results before and after must agree on
// random inputs (indices in [0, 8), some out of bounds and so skipped).
TEST(ScatterBatchingNormalizer, TwoSwappedBatchingPairs) {
  pass_test::PassResult r = RunAndCompare(R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  operand = f32[5,3,9] parameter(0)
  indices = s32[3,5,1] parameter(1)
  updates = f32[3,5,9] parameter(2)
  ROOT s = f32[5,3,9] scatter(operand, indices, updates), update_window_dims={2}, inserted_window_dims={},
      scatter_dims_to_operand_dims={2}, input_batching_dims={0,1}, scatter_indices_batching_dims={1,0},
      index_vector_dim=2, indices_are_sorted=true, unique_indices=true, to_apply=add
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(r.changed);
  EXPECT_TRUE(pass_test::Lacks(r.text, "batching_dims"));
  EXPECT_TRUE(pass_test::Lacks(r.text, "indices_are_sorted"));
  EXPECT_TRUE(pass_test::Contains(r.text, "scatter_dims_to_operand_dims={2,0,1}"));
  EXPECT_TRUE(pass_test::Contains(r.text, "inserted_window_dims={0,1}"));
}

// Implicit trailing index vector dimension, u8 indices (widened to s64), a
// window of two dimensions, and a variadic scatter.
TEST(ScatterBatchingNormalizer, ImplicitIndexVectorNarrowIndicesVariadic) {
  pass_test::PassResult r = RunAndCompare(R"(
HloModule m
mx {
  a = f32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = s32[] parameter(3)
  gt = pred[] compare(c, a), direction=GT
  v = f32[] select(gt, c, a)
  i = s32[] select(gt, d, b)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  o1 = f32[7,11,2] parameter(0)
  o2 = s32[7,11,2] parameter(1)
  indices = u8[7,4] parameter(2)
  u1 = f32[7,4,2] parameter(3)
  u2 = s32[7,4,2] parameter(4)
  ROOT s = (f32[7,11,2], s32[7,11,2]) scatter(o1, o2, indices, u1, u2), update_window_dims={2},
      inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, input_batching_dims={0},
      scatter_indices_batching_dims={0}, index_vector_dim=2, to_apply=mx
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(r.changed);
  EXPECT_TRUE(pass_test::Contains(r.text, "s64[7,4,2]{2,1,0} concatenate(s.indices_vector, s.batch_index_convert), dimensions={2}"));
  EXPECT_TRUE(pass_test::Contains(r.text, "inserted_window_dims={0,1}"));
}

TEST(ScatterBatchingNormalizer, LeavesPlainScattersAlone) {
  ScatterBatchingNormalizer pass;
  pass_test::PassResult r = pass_test::RunPassOnly(pass, R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  operand = f32[9] parameter(0)
  indices = s32[4,1] parameter(1)
  updates = f32[4] parameter(2)
  ROOT s = f32[9] scatter(operand, indices, updates), update_window_dims={}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_FALSE(r.changed);
}

}  // namespace
}  // namespace xla
