#include "xla/hlo/transforms/ragged_dot_expander.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::CountOpcode;

// An integer literal of `type` and `dims` holding `values`.
Literal Sizes(PrimitiveType type, std::vector<int64_t> dims, const std::vector<int64_t>& values) {
  Literal l(Shape::Array(type, std::move(dims)));
  for (size_t i = 0; i < values.size(); ++i) l.SetInt(static_cast<int64_t>(i), values[i]);
  return l;
}

// Runs the pass on `text` (parameter 2 being the group sizes `sizes`, the
// others random) and compares the evaluator's results before and after.
void ExpectExpansionMatches(const std::string& text, const Literal& sizes) {
  RaggedDotExpander pass;
  pass_test::CheckOptions options;
  options.adjust_inputs = [&](std::vector<Literal>* args) { (*args)[2] = sizes; };
  options.output_scale_tolerance = true;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, text, options);
  EXPECT_TRUE(r.changed);
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kRaggedDot), 0);
}

// The three modules of the corpus (hlo_to_mhlo's ragged_dot tests), with
// groups per outer row that leave some rows in no group and one group empty.
TEST(RaggedDotExpander, NonContractingCorpusModule) {
  std::vector<int64_t> sizes;
  for (int64_t o = 0; o < 19; ++o) {
    sizes.insert(sizes.end(), {o % 5, o % 2 == 0 ? 0 : 3, 11 - o % 5 - (o % 2 == 0 ? 0 : 3) - o % 3});
  }
  ExpectExpansionMatches(R"(
HloModule m
ENTRY e {
  a = f32[19,11,5] parameter(0)
  b = f32[3,5,7] parameter(1)
  g = s64[19,3] parameter(2)
  ROOT r = f32[19,11,7] ragged-dot(a, b, g), lhs_contracting_dims={2}, rhs_contracting_dims={1}, lhs_ragged_dims={1}, rhs_group_dims={0}
})", Sizes(PrimitiveType::S64, {19, 3}, sizes));
}

TEST(RaggedDotExpander, ContractingCorpusModule) {
  std::vector<int64_t> sizes;
  for (int64_t o = 0; o < 19; ++o) sizes.insert(sizes.end(), {o % 3, 1, 4 - o % 3 - o % 2});
  ExpectExpansionMatches(R"(
HloModule m
ENTRY e {
  a = f32[11,19,5] parameter(0)
  b = f32[19,5,7] parameter(1)
  g = s64[19,3] parameter(2)
  ROOT r = f32[3,11,7] ragged-dot(a, b, g), lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}, lhs_ragged_dims={2}
})", Sizes(PrimitiveType::S64, {19, 3}, sizes));
}

TEST(RaggedDotExpander, BatchCorpusModule) {
  std::vector<int64_t> sizes;
  for (int64_t o = 0; o < 19; ++o) sizes.insert(sizes.end(), {o % 4, 5, 17 - 5 - o % 4 - o % 3});
  ExpectExpansionMatches(R"(
HloModule m
ENTRY e {
  a = f32[19,17,11,5] parameter(0)
  b = f32[19,17,5,7] parameter(1)
  g = s64[19,3] parameter(2)
  ROOT r = f32[19,17,11,7] ragged-dot(a, b, g), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={2}, lhs_ragged_dims={1}
})", Sizes(PrimitiveType::S64, {19, 3}, sizes));
}

// The MoE form: tokens [m, k] grouped over experts [g, k, n], s32 sizes
// shared by everything (rank 1), bf16 operands with an f32 result.
TEST(RaggedDotExpander, MixtureOfExpertsBf16ToF32) {
  ExpectExpansionMatches(R"(
HloModule m
ENTRY e {
  a = bf16[37,9] parameter(0)
  b = bf16[5,9,13] parameter(1)
  g = s32[5] parameter(2)
  ROOT r = f32[37,13] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})", Sizes(PrimitiveType::S32, {5}, {7, 0, 12, 1, 15}));
}

// Batch dimensions with a non-contracting ragged dimension: rhs [g, b, k, n]
// with its group dimension first, group sizes [b, g].
TEST(RaggedDotExpander, NonContractingWithBatch) {
  ExpectExpansionMatches(R"(
HloModule m
ENTRY e {
  a = f32[3,11,5] parameter(0)
  b = f32[4,3,5,7] parameter(1)
  g = s32[3,4] parameter(2)
  ROOT r = f32[3,11,7] ragged-dot(a, b, g), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={1}, rhs_contracting_dims={2}, lhs_ragged_dims={1}, rhs_group_dims={0}
})", Sizes(PrimitiveType::S32, {3, 4}, {2, 3, 4, 2, 0, 0, 11, 0, 5, 5, 0, 0}));
}

TEST(RaggedDotExpander, GroupSizesOfTheWrongRankAreRefusedByName) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(R"(
HloModule m
ENTRY e {
  a = f32[2,11,5] parameter(0)
  b = f32[3,5,7] parameter(1)
  g = s32[2,2,3] parameter(2)
  ROOT r = f32[2,11,7] ragged-dot(a, b, g), lhs_contracting_dims={2}, rhs_contracting_dims={1}, lhs_ragged_dims={1}, rhs_group_dims={0}
})");
  ASSERT_TRUE(module.ok()) << module.status();
  RaggedDotExpander pass;
  absl::StatusOr<bool> changed = pass.Run(module->get());
  ASSERT_FALSE(changed.ok());
  EXPECT_NE(std::string(changed.status().message()).find("ragged-dot 'r'"), std::string::npos)
      << changed.status();
}

}  // namespace
}  // namespace xla
