#include "xla/service/buffer_assignment/alias_analysis.h"

#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla {
namespace {

TEST(AliasAnalysis, ForwardingAndWhileSharing) {
  auto m = ParseHloModule(R"(
HloModule m
cond {
  p = (s32[], f32[3]) parameter(0)
  ROOT c = pred[] constant(false)
}
body {
  p = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[3] get-tuple-element(p), index=1
  x2 = f32[3] negate(x)
  ROOT t = (s32[], f32[3]) tuple(i, x2)
}
ENTRY e {
  a = f32[3] parameter(0)
  z = s32[] constant(0)
  b = f32[3] exponential(a)
  t = (s32[], f32[3]) tuple(z, b)
  w = (s32[], f32[3]) while(t), condition=cond, body=body
  g = f32[3] get-tuple-element(w), index=1
  ROOT bc = f32[3] bitcast(g)
})").value();
  AliasAnalysis aa = AliasAnalysis::Run(*m).value();
  const HloComputation* e = m->entry_computation();
  const HloComputation* body = m->GetComputation("body");
  auto buf = [&](const HloInstruction* i, ShapeIndex idx) {
    return aa.buffer_of(aa.FindPosition(i, idx).value());
  };
  const int64_t loop = buf(e->GetInstruction("w"), {1});
  EXPECT_EQ(buf(e->GetInstruction("b"), {}), loop);
  EXPECT_EQ(buf(e->GetInstruction("t"), {1}), loop);
  EXPECT_EQ(buf(body->GetInstruction("x2"), {}), loop);
  EXPECT_EQ(buf(body->GetInstruction("x"), {}), loop);
  EXPECT_EQ(buf(m->GetComputation("cond")->GetInstruction("p"), {1}), loop);
  EXPECT_EQ(buf(e->GetInstruction("bc"), {}), loop);
  EXPECT_NE(buf(e->GetInstruction("a"), {}), loop);
  EXPECT_NE(buf(e->GetInstruction("w"), {0}), loop);
  EXPECT_FALSE(aa.FindPosition(e->GetInstruction("w"), {}).has_value());  // a tuple
  // Reaching definitions: the body parameter sees the init; the result sees
  // the init and the body root's writer.
  const auto& in_body = aa.ReachingDefinitions(aa.FindPosition(body->GetInstruction("x"), {}).value());
  ASSERT_EQ(in_body.size(), 1u);
  EXPECT_EQ(in_body[0]->name(), "b");
  const auto& after = aa.ReachingDefinitions(aa.FindPosition(e->GetInstruction("g"), {}).value());
  ASSERT_EQ(after.size(), 2u);
  // Reducers and fused computations have no positions.
  EXPECT_TRUE(aa.positions_of(m->GetComputation("cond")->root_instruction()).size() == 1);
}

TEST(AliasAnalysis, RejectsSharedBodies) {
  auto m = ParseHloModule(R"(
HloModule m
cond {
  p = f32[3] parameter(0)
  ROOT c = pred[] constant(false)
}
body {
  p = f32[3] parameter(0)
  ROOT n = f32[3] negate(p)
}
ENTRY e {
  a = f32[3] parameter(0)
  w1 = f32[3] while(a), condition=cond, body=body
  ROOT w2 = f32[3] while(w1), condition=cond, body=body
})").value();
  absl::StatusOr<AliasAnalysis> aa = AliasAnalysis::Run(*m);
  ASSERT_FALSE(aa.ok());
  EXPECT_NE(std::string(aa.status().message()).find("clone the computation"), std::string::npos);
}

}  // namespace
}  // namespace xla
