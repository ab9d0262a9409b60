#include "xla/service/canonicalize/rewrite_util.h"

#include <memory>

#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/util/math_util.h"

namespace xla::canonicalize {
namespace {

TEST(RewriteUtil, PermutationHelpers) {
  EXPECT_TRUE(IsIdentityPermutation({0, 1, 2}));
  EXPECT_FALSE(IsIdentityPermutation({1, 0}));
  EXPECT_EQ(InversePermutation({2, 0, 1}), (std::vector<int64_t>{1, 2, 0}));
  // Moving only a unit dim is a reshape; swapping two real dims is not.
  EXPECT_TRUE(PermutationIsReshape({5, 1, 7}, {1, 0, 2}));
  EXPECT_FALSE(PermutationIsReshape({5, 1, 7}, {2, 1, 0}));
  EXPECT_EQ(Product({3, 5, 7}), 105);
  EXPECT_EQ(Product({}), 1);
}

TEST(RewriteUtil, AddTransposeChoosesTheCheapestOp) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(R"(
HloModule m
ENTRY e {
  ROOT x = f32[5,1,7] parameter(0)
})");
  ASSERT_TRUE(m.ok()) << m.status();
  HloComputation* c = (*m)->entry_computation();
  HloInstruction* x = c->root_instruction();
  NameUniquer names(*c);
  EXPECT_EQ(AddTranspose(c, &names, x, {0, 1, 2}), x);
  HloInstruction* r = AddTranspose(c, &names, x, {1, 0, 2});
  EXPECT_EQ(r->opcode(), HloOpcode::kReshape);
  EXPECT_EQ(r->shape().ToString(), "f32[1,5,7]{2,1,0}");
  HloInstruction* t = AddTranspose(c, &names, x, {2, 1, 0});
  EXPECT_EQ(t->opcode(), HloOpcode::kTranspose);
  EXPECT_EQ(t->shape().ToString(), "f32[7,1,5]{2,1,0}");
  EXPECT_EQ(t->dimensions(), (std::vector<int64_t>{2, 1, 0}));
  EXPECT_NE(r->name(), t->name());
  EXPECT_EQ(AddReshape(c, &names, x, {5, 1, 7}), x);
  EXPECT_EQ(AddReshape(c, &names, x, {35})->shape().ToString(), "f32[35]{0}");
}

TEST(RewriteUtil, RowMajorCheck) {
  Shape s = Shape::Array(PrimitiveType::F32, {3, 4});
  EXPECT_TRUE(IsRowMajorOrUnset(s));
  s.mutable_layout()->minor_to_major = {0, 1};
  EXPECT_FALSE(IsRowMajorOrUnset(s));
  s.clear_layout();
  EXPECT_TRUE(IsRowMajorOrUnset(s));
}

}  // namespace
}  // namespace xla::canonicalize
