#include "xla/service/layout/layout_assignment.h"

#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::Contains;
using pass_test::CountOpcode;
using pass_test::PassResult;
using pass_test::RunPassAndCheck;

// Runs the pass (checked against the evaluator), checks the layout rule and
// that a second run changes nothing.
PassResult Assign(LayoutAssignment& pass, const std::string& hlo) {
  PassResult r = RunPassAndCheck(pass, hlo);
  EXPECT_TRUE(r.changed) << r.text;
  if (r.module == nullptr) return r;
  absl::Status ok = CheckLayoutsAssigned(*r.module);
  EXPECT_TRUE(ok.ok()) << ok << "\n" << r.text;
  absl::StatusOr<bool> again = pass.Run(r.module.get());
  EXPECT_TRUE(again.ok() && !*again) << "second run changed the module";
  return r;
}

const HloInstruction* Find(const HloModule& m, const std::string& name) {
  for (const auto& c : m.computations()) {
    if (const HloInstruction* i = c->GetInstruction(name)) return i;
  }
  return nullptr;
}

TEST(LayoutAssignment, EveryShapeGetsRowMajor) {
  LayoutAssignment pass;
  PassResult r = Assign(pass, R"(
HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

fused {
  p = f32[5,7,3]{0,1,2} parameter(0)
  t = f32[3,7,5]{0,2,1} transpose(p), dimensions={2,1,0}
  z = f32[] constant(0)
  ROOT r = f32[3,5]{0,1} reduce(t, z), dimensions={1}, to_apply=add
}

ENTRY main {
  x = f32[5,7,3] parameter(0)
  e = f32[5,7,3]{0,1,2} exponential(x)
  ROOT f = f32[3,5] fusion(e), kind=kInput, calls=fused
}
)");
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(Find(*r.module, "t")->shape().ToString(), "f32[3,7,5]{2,1,0}");
  EXPECT_EQ(Find(*r.module, "p")->shape().ToString(), "f32[5,7,3]{2,1,0}");
  EXPECT_EQ(Find(*r.module, "e")->shape().ToString(), "f32[5,7,3]{2,1,0}");
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kCopy), 0) << r.text;
}

TEST(LayoutAssignment, ColumnMajorEntryParameterAndResultGetCopies) {
  LayoutAssignment pass;
  PassResult r = Assign(pass, R"(
HloModule m

ENTRY main {
  x = f32[5,33]{0,1} parameter(0)
  y = f32[5,33]{1,0} parameter(1)
  ROOT s = f32[5,33]{0,1} add(x, y)
}
)");
  ASSERT_NE(r.module, nullptr);
  const HloComputation* entry = r.module->entry_computation();
  const HloInstruction* x = entry->parameter_instruction(0);
  EXPECT_EQ(x->shape().ToString(), "f32[5,33]{0,1}");
  ASSERT_EQ(x->users().size(), 1u);
  EXPECT_EQ(x->users()[0]->opcode(), HloOpcode::kCopy);
  EXPECT_EQ(x->users()[0]->shape().ToString(), "f32[5,33]{1,0}");
  EXPECT_EQ(entry->parameter_instruction(1)->users()[0]->opcode(), HloOpcode::kAdd);
  const HloInstruction* root = entry->root_instruction();
  EXPECT_EQ(root->opcode(), HloOpcode::kCopy);
  EXPECT_EQ(root->shape().ToString(), "f32[5,33]{0,1}");
  EXPECT_EQ(root->operand(0)->shape().ToString(), "f32[5,33]{1,0}");
}

// Complex boundaries are relaid out as their real (re, im) views, between
// bitcasts that move no byte (no kernel has complex elements).
TEST(LayoutAssignment, ComplexBoundaryCopiesMoveRealPairs) {
  LayoutAssignment pass;
  PassResult r = Assign(pass, R"(
HloModule m

ENTRY main {
  x = c64[5,33]{0,1} parameter(0)
  ROOT n = c64[5,33]{0,1} negate(x)
}
)");
  ASSERT_NE(r.module, nullptr);
  const HloComputation* entry = r.module->entry_computation();
  const HloInstruction* x = entry->parameter_instruction(0);
  ASSERT_EQ(x->users().size(), 1u);
  const HloInstruction* view = x->users()[0];
  EXPECT_EQ(view->opcode(), HloOpcode::kBitcast);
  EXPECT_EQ(view->shape().ToString(), "f32[5,33,2]{2,0,1}");
  ASSERT_EQ(view->users().size(), 1u);
  EXPECT_EQ(view->users()[0]->opcode(), HloOpcode::kCopy);
  EXPECT_EQ(view->users()[0]->shape().ToString(), "f32[5,33,2]{2,1,0}");
  const HloInstruction* root = entry->root_instruction();
  EXPECT_EQ(root->opcode(), HloOpcode::kBitcast);
  EXPECT_EQ(root->shape().ToString(), "c64[5,33]{0,1}");
  EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kCopy);
  EXPECT_EQ(root->operand(0)->shape().ToString(), "f32[5,33,2]{2,0,1}");
}

TEST(LayoutAssignment, EntryComputationLayoutWins) {
  LayoutAssignment pass;
  PassResult r = Assign(pass, R"(
HloModule m, entry_computation_layout={(f32[5,7]{0,1}, f32[7,3]{1,0})->f32[5,3]{0,1}}

ENTRY main {
  a = f32[5,7] parameter(0)
  b = f32[7,3] parameter(1)
  ROOT d = f32[5,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)");
  ASSERT_NE(r.module, nullptr);
  const HloComputation* entry = r.module->entry_computation();
  EXPECT_EQ(entry->parameter_instruction(0)->shape().ToString(), "f32[5,7]{0,1}");
  EXPECT_EQ(entry->parameter_instruction(1)->shape().ToString(), "f32[7,3]{1,0}");
  EXPECT_EQ(entry->root_instruction()->shape().ToString(), "f32[5,3]{0,1}");
  EXPECT_EQ(Find(*r.module, "d")->shape().ToString(), "f32[5,3]{1,0}");
  EXPECT_EQ(Find(*r.module, "d")->operand(0)->shape().ToString(), "f32[5,7]{1,0}");
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kCopy), 2) << r.text;
}

TEST(LayoutAssignment, TupleParameterAndResult) {
  LayoutAssignment pass;
  PassResult r = Assign(pass, R"(
HloModule m

ENTRY main {
  p = (f32[3,5]{0,1}, s32[4,2]{1,0}) parameter(0)
  a = f32[3,5] get-tuple-element(p), index=0
  b = s32[4,2] get-tuple-element(p), index=1
  n = f32[3,5] negate(a)
  ROOT t = (f32[3,5]{0,1}, s32[4,2]{1,0}, f32[3,5]{1,0}) tuple(n, b, a)
}
)");
  ASSERT_NE(r.module, nullptr);
  const HloComputation* entry = r.module->entry_computation();
  EXPECT_EQ(entry->parameter_instruction(0)->shape().ToString(),
            "(f32[3,5]{0,1}, s32[4,2]{1,0})");
  EXPECT_EQ(entry->root_instruction()->shape().ToString(),
            "(f32[3,5]{0,1}, s32[4,2]{1,0}, f32[3,5]{1,0})");
  EXPECT_EQ(Find(*r.module, "n")->shape().ToString(), "f32[3,5]{1,0}");
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kCopy), 2) << r.text;
}

TEST(LayoutAssignment, SuffixLayoutsAreLeftAloneAndReported) {
  LayoutAssignment pass;
  PassResult r = Assign(pass, R"(
HloModule m

ENTRY main {
  x = f32[8,128]{1,0:T(8,128)} parameter(0)
  y = f32[8,128]{0,1} negate(x)
  ROOT z = f32[8,128]{1,0:S(1)} abs(y)
}
)");
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(Contains(r.text, "{1,0:T(8,128)} parameter(0)"));
  EXPECT_TRUE(Contains(r.text, "{1,0:S(1)} abs(y)"));
  EXPECT_EQ(Find(*r.module, "y")->shape().ToString(), "f32[8,128]{1,0}");
  // Both runs (Assign runs the pass twice) report the same two shapes.
  ASSERT_EQ(pass.unhandled().size(), 2u);
  EXPECT_TRUE(absl::StrContains(pass.unhandled()[0], "main/x: f32[8,128]{1,0:T(8,128)}"))
      << pass.unhandled()[0];
}

TEST(LayoutAssignment, CheckRejectsInnerColumnMajor) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(R"(
HloModule m

ENTRY main {
  x = f32[5,7]{1,0} parameter(0)
  n = f32[5,7]{0,1} negate(x)
  ROOT a = f32[5,7]{1,0} abs(n)
}
)");
  ASSERT_TRUE(m.ok()) << m.status();
  absl::Status s = CheckLayoutsAssigned(**m);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(absl::StrContains(s.message(), "'n'")) << s;
}

TEST(LayoutAssignment, ParameterRootKeepsItsLayout) {
  LayoutAssignment pass;
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(R"(
HloModule m

ENTRY main {
  ROOT x = f32[5,7]{0,1} parameter(0)
}
)");
  ASSERT_TRUE(m.ok());
  absl::StatusOr<bool> changed = pass.Run(m->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
  EXPECT_TRUE(CheckLayoutsAssigned(**m).ok());
}

}  // namespace
}  // namespace xla
