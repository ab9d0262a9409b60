#include "xla/hlo/transforms/dynamic_reshape_rewriter.h"

#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::CountOpcode;

// Bounds whose product is the operand's element count fix the sizes: the
// op is a reshape. Odd sizes; the sizes are constants equal to the bounds
// so the evaluator (which runs a dynamic-reshape only then) checks the
// values before and after.
TEST(DynamicReshapeRewriter, BoundsThatHoldTheOperandMakeAReshape) {
  DynamicReshapeRewriter pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
ENTRY e {
  p = f32[3,35] parameter(0)
  five = s32[] constant(5)
  seven = s32[] constant(7)
  three = s32[] constant(3)
  d = f32[<=5,<=7,<=3] dynamic-reshape(p, five, seven, three)
  ROOT n = f32[<=5,<=7,<=3] negate(d)
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kDynamicReshape), 0) << r.text;
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kReshape), 1) << r.text;
}

// The corpus form: sizes are parameters, unused after the rewrite.
TEST(DynamicReshapeRewriter, SizeParametersBecomeUnused) {
  DynamicReshapeRewriter pass;
  pass_test::PassResult r = pass_test::RunPassOnly(pass, R"(
HloModule m
ENTRY e {
  p = f32[6] parameter(0)
  a = s32[] parameter(1)
  b = s32[] parameter(2)
  ROOT d = f32[<=2,<=3] dynamic-reshape(p, a, b)
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(r.changed);
  EXPECT_NE(r.text.find("f32[<=2,<=3] reshape(p)"), std::string::npos) << r.text;
}

TEST(DynamicReshapeRewriter, RefusesSizesKnownOnlyAtRunTimeNamingTheInstruction) {
  for (const char* text : {
           R"(
HloModule m
ENTRY e {
  p = f32[6] parameter(0)
  a = s32[] parameter(1)
  b = s32[] parameter(2)
  ROOT my_reshape = f32[<=6,<=6] dynamic-reshape(p, a, b)
})",
           R"(
HloModule m
ENTRY e {
  p = f32[<=6] parameter(0)
  a = s32[] parameter(1)
  ROOT my_reshape = f32[<=6] dynamic-reshape(p, a)
})"}) {
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << module.status();
    DynamicReshapeRewriter pass;
    absl::StatusOr<bool> r = pass.Run(module->get());
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_TRUE(absl::IsUnimplemented(r.status())) << r.status();
    EXPECT_NE(r.status().message().find("dynamic-reshape 'my_reshape'"), std::string::npos)
        << r.status();
    EXPECT_EQ(CountOpcode(**module, HloOpcode::kDynamicReshape), 1);
  }
}

}  // namespace
}  // namespace xla
