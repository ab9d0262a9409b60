#include "xla/hlo/parser/hlo_parser.h"

#include "gtest/gtest.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/parser/hlo_printer.h"
#include "xla/hlo/parser/shape_text.h"

namespace xla {
namespace {

std::unique_ptr<HloModule> Parse(absl::string_view text) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text, "test.hlo");
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? std::move(*m) : nullptr;
}

// Printing a parsed module and parsing it again gives the same text.
void ExpectFixedPoint(const HloModule& m) {
  std::string once = PrintModule(m);
  std::unique_ptr<HloModule> again = Parse(once);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(PrintModule(*again), once);
}

TEST(HloParser, CanonicalText) {
  auto m = Parse(R"(
HloModule m, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

ENTRY %main (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  ROOT %n = f32[4]{0} negate(f32[4]{0} %p), metadata={op_name="neg" source_line=3}
})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(PrintModule(*m),
            "HloModule m, entry_computation_layout={(f32[4]{0})->f32[4]{0}}\n"
            "\n"
            "ENTRY main (p: f32[4]{0}) -> f32[4]{0} {\n"
            "  p = f32[4]{0} parameter(0)\n"
            "  ROOT n = f32[4]{0} negate(p), metadata={op_name=\"neg\" source_line=3}\n"
            "}\n");
}

TEST(HloParser, HeaderlessAndRootless) {
  // No HloModule line, no ENTRY (last computation), no ROOT (last instruction).
  auto m = Parse(R"(
sum {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT c = s32[] add(a, b)
}
main {
  x = s32[7] parameter(0)
  z = s32[] constant(0)
  r = s32[] reduce(x, z), dimensions={0}, to_apply=sum
})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->entry_computation()->name(), "main");
  EXPECT_EQ(m->entry_computation()->root_instruction()->name(), "r");
  EXPECT_EQ(m->entry_computation()->root_instruction()->to_apply()->name(), "sum");
  ExpectFixedPoint(*m);
}

TEST(HloParser, ForwardReferencesAndMultilineAttributes) {
  auto m = Parse(R"(
HloModule fwd
ENTRY e {
  ROOT d = f32[2,2] dot(a, b),
      lhs_contracting_dims={1},
      rhs_contracting_dims={0}
  a = f32[2,3] parameter(0)  // trailing comment
  b = f32[3,2] parameter(1) /* block */
})");
  ASSERT_NE(m, nullptr);
  const HloInstruction* root = m->entry_computation()->root_instruction();
  EXPECT_EQ(root->operand(0)->name(), "a");
  EXPECT_EQ(root->GetIntList(AttrId::kRhsContractingDims), std::vector<int64_t>{0});
  ExpectFixedPoint(*m);
}

TEST(HloParser, TypedAttributes) {
  auto m = Parse(R"(
HloModule attrs, is_scheduled=true, replica_count=2, num_partitions=1, input_output_alias={ {0}: (0, {}, may-alias) }
ENTRY e {
  p = f32[8,8] parameter(0)
  k = f32[3,3,1,1] parameter(1)
  s = f32[4,2] slice(p), slice={[0:8:2], [1:3]}
  pd = f32[10,17] pad(p, c), padding=1_1x-1_3_1
  c = f32[] constant(-0.5)
  conv = f32[8,8] custom-call(p), custom_call_target="foo\"bar"
  ar = f32[8,8] all-reduce(p), replica_groups=[2,1]<=[2], to_apply=e2, channel_id=5
  cv = f32[1,1,6,6] convolution(r, k), window={size=3x3 stride=1x1 rhs_dilate=1x1}, dim_labels=bf01_01io->bf01
  r = f32[1,1,8,8] reshape(p)
  ROOT t = (f32[4,2], f32[10,17]) tuple(s, pd)
}
e2 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT z = f32[] add(x, y)
})");
  ASSERT_NE(m, nullptr);
  const HloComputation* e = m->entry_computation();
  EXPECT_TRUE(*m->config().is_scheduled);
  EXPECT_EQ(*m->config().replica_count, 2);
  ASSERT_EQ(m->config().input_output_alias.size(), 1u);
  EXPECT_EQ(m->config().input_output_alias[0].kind, "may-alias");
  const HloInstruction* s = e->instructions()[2].get();
  const auto& slice = std::get<std::vector<SliceDim>>(*s->FindAttr(AttrId::kSlice));
  EXPECT_EQ(slice[0].stride, 2);
  EXPECT_EQ(slice[1].limit, 3);
  const auto& pad = std::get<std::vector<PaddingDim>>(*e->instructions()[3]->FindAttr(AttrId::kPadding));
  EXPECT_EQ(pad[1].low, -1);
  EXPECT_EQ(pad[1].interior, 1);
  EXPECT_EQ(e->instructions()[5]->GetString(AttrId::kCustomCallTarget), "foo\"bar");
  const auto& groups = std::get<ReplicaGroups>(*e->instructions()[6]->FindAttr(AttrId::kReplicaGroups));
  EXPECT_TRUE(groups.iota);
  const auto& labels = std::get<ConvDimLabels>(*e->instructions()[7]->FindAttr(AttrId::kDimLabels));
  EXPECT_EQ(labels.input_feature, 1);
  EXPECT_EQ(labels.kernel_output_feature, 3);
  EXPECT_EQ(labels.output_spatial, (std::vector<int64_t>{2, 3}));
  ExpectFixedPoint(*m);
}

TEST(HloParser, Constants) {
  auto m = Parse(R"(
ENTRY e {
  a = bf16[2,3] constant({ {1, -2.5, 1e-05}, {inf, -inf, nan} })
  b = s4[3] constant({-8, 7, 0})
  c = c64[] constant((1, -0.5))
  d = pred[2] constant({true, 0})
  e = f32[7,7] constant({...})
  f = u64[] constant(18446744073709551615)
  g = f32[2,2] constant(3)
  h = f32[0] constant({})
  ROOT t = (bf16[2,3], s4[3], c64[], pred[2], f32[7,7], u64[], f32[2,2], f32[0]) tuple(a, b, c, d, e, f, g, h)
})");
  ASSERT_NE(m, nullptr);
  const auto& instrs = m->entry_computation()->instructions();
  EXPECT_EQ(instrs[0]->literal().ToString(), "{ {1, -2.5, 1e-05}, {inf, -inf, nan} }");
  EXPECT_EQ(instrs[1]->literal().GetInt(0), -8);
  EXPECT_EQ(instrs[2]->literal().GetComplex(0).imag(), -0.5);
  EXPECT_EQ(instrs[3]->literal().ToString(), "{true, false}");
  EXPECT_TRUE(instrs[4]->literal().elided());
  EXPECT_EQ(instrs[5]->literal().GetBits(0), ~uint64_t{0});
  EXPECT_EQ(instrs[6]->literal().ToString(), "{ {3, 3}, {3, 3} }");
  ExpectFixedPoint(*m);
}

TEST(HloParser, DebugSectionsAndComputationThreads) {
  auto m = Parse(R"(HloModule dbg

FileNames
1 "a.py"

StackFrames
1 {file_location_id=1 parent_frame_id=1}

async_comp {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}, execution_thread="side"

ENTRY e {
  p = f32[2] parameter(0)
  ROOT c = f32[2] call(p), to_apply=async_comp
})");
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(m->debug_sections().size(), 2u);
  EXPECT_EQ(m->debug_sections()[0].entries[0].value, "\"a.py\"");
  EXPECT_EQ(m->computations()[0]->execution_thread(), "side");
  ExpectFixedPoint(*m);
}

TEST(HloParser, NestedInstructionOperands) {
  auto m = Parse(R"(
ENTRY e {
  ROOT r = f32[8,7] reshape(f32[1,8,1,7] parameter(0))
})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->entry_computation()->num_parameters(), 1);
  EXPECT_EQ(m->entry_computation()->root_instruction()->operand(0)->opcode(), HloOpcode::kParameter);
  ExpectFixedPoint(*m);
}

TEST(ShapeText, Forms) {
  EXPECT_EQ(ParseShapeText("f32[2,<=3,?]")->ToString(), "f32[2,<=3,?]");
  EXPECT_EQ(ParseShapeText("s4[64,64]{1,0:E(4)}")->ToString(), "s4[64,64]{1,0:E(4)}");
  EXPECT_EQ(ParseShapeText("f32[2,3,4]{0,1,2:T(2,128)S(1)}")->layout().memory_space(), 1);
  EXPECT_EQ(ParseShapeText("((), token[], b(f32[2]))")->ToString(), "((), token[], b(f32[2]))");
  EXPECT_FALSE(ParseShapeText("f32[2]{0,0}").ok());
  EXPECT_FALSE(ParseShapeText("f32[-1]").ok());
  EXPECT_FALSE(ParseShapeText("q32[1]").ok());
}

}  // namespace
}  // namespace xla
