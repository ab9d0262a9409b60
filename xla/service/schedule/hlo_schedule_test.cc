#include "xla/service/schedule/hlo_schedule.h"

#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/parser/hlo_printer.h"

namespace xla {
namespace {

constexpr char kLoop[] = R"(
HloModule m

cond {
  p = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  p = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[3] get-tuple-element(p), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  x2 = f32[3] add(x, x)
  ROOT t = (s32[], f32[3]) tuple(i2, x2)
}

fused {
  a = f32[3] parameter(0)
  ROOT n = f32[3] negate(a)
}

ENTRY e {
  x = f32[3] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[3]) tuple(z, x)
  w = (s32[], f32[3]) while(t), condition=cond, body=body
  r = f32[3] get-tuple-element(w), index=1
  ROOT f = f32[3] fusion(r), kind=kLoop, calls=fused
}
)";

std::vector<const HloInstruction*> Order(const HloComputation* c) {
  std::vector<HloInstruction*> order = c->MakePostOrder();
  return {order.begin(), order.end()};
}

TEST(HloSchedule, ComputationsNeedingScheduleSkipsFusedComputations) {
  auto m = ParseHloModule(kLoop).value();
  std::vector<std::string> names;
  for (const HloComputation* c : ComputationsNeedingSchedule(*m)) names.push_back(c->name());
  EXPECT_EQ(names, (std::vector<std::string>{"e", "cond", "body"}));
}

TEST(HloSchedule, VerifyAcceptsPostOrderAndRejectsBrokenSequences) {
  auto m = ParseHloModule(kLoop).value();
  HloSchedule s;
  for (const HloComputation* c : ComputationsNeedingSchedule(*m)) s.set_sequence(c, Order(c));
  EXPECT_TRUE(s.Verify(*m).ok()) << s.Verify(*m);

  const HloComputation* body = m->GetComputation("body");
  auto seq = Order(body);
  std::swap(seq.front(), seq.back());  // root before its operands
  s.set_sequence(body, seq);
  absl::Status st = s.Verify(*m);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("before its operand"), std::string::npos) << st;

  seq = Order(body);
  seq.pop_back();
  s.set_sequence(body, seq);
  st = s.Verify(*m);
  EXPECT_NE(std::string(st.message()).find("misses instruction t"), std::string::npos) << st;

  seq = Order(body);
  seq.push_back(seq.back());
  s.set_sequence(body, seq);
  st = s.Verify(*m);
  EXPECT_NE(std::string(st.message()).find("twice"), std::string::npos) << st;

  HloSchedule missing;
  missing.set_sequence(m->entry_computation(), Order(m->entry_computation()));
  st = missing.Verify(*m);
  EXPECT_NE(std::string(st.message()).find("no sequence for computation cond"), std::string::npos)
      << st;
}

TEST(HloSchedule, VerifyHonoursControlPredecessors) {
  auto m = ParseHloModule(R"(
HloModule m
ENTRY e {
  a = f32[2] parameter(0)
  b = f32[2] negate(a)
  c = f32[2] exponential(a), control-predecessors={b}
  ROOT t = (f32[2], f32[2]) tuple(b, c)
})").value();
  const HloComputation* e = m->entry_computation();
  HloSchedule s;
  s.set_sequence(e, {e->GetInstruction("a"), e->GetInstruction("c"), e->GetInstruction("b"),
                     e->GetInstruction("t")});
  absl::Status st = s.Verify(*m);
  EXPECT_NE(std::string(st.message()).find("before its control predecessor b"), std::string::npos)
      << st;
}

TEST(HloSchedule, ToStringListsIndices) {
  auto m = ParseHloModule(kLoop).value();
  HloSchedule s;
  const HloComputation* cond = m->GetComputation("cond");
  s.set_sequence(cond, Order(cond));
  EXPECT_EQ(s.ToString(),
            "computation cond (4 instructions)\n  0 p\n  1 i\n  2 n\n  3 lt\n");
}

TEST(HloSchedule, ApplyScheduleReordersAndKeepsControlEdges) {
  auto m = ParseHloModule(R"(
HloModule m
ENTRY e {
  a = f32[2] parameter(0)
  b = f32[2] negate(a)
  c = f32[2] exponential(a)
  d = f32[2] sine(a), control-predecessors={b}
  ROOT t = (f32[2], f32[2], f32[2]) tuple(b, c, d)
})").value();
  HloComputation* e = m->entry_computation();
  HloSchedule s;
  s.set_sequence(e, {e->GetInstruction("a"), e->GetInstruction("c"), e->GetInstruction("b"),
                     e->GetInstruction("d"), e->GetInstruction("t")});
  ASSERT_TRUE(ApplySchedule(m.get(), s).ok());
  std::vector<std::string> names;
  for (const auto& i : e->instructions()) names.push_back(i->name());
  EXPECT_EQ(names, (std::vector<std::string>{"a", "c", "b", "d", "t"}));
  EXPECT_EQ(m->config().is_scheduled, true);
  ASSERT_EQ(e->GetInstruction("d")->control_predecessors().size(), 1u);
  EXPECT_EQ(e->GetInstruction("d")->control_predecessors()[0]->name(), "b");
  EXPECT_TRUE(e->GetInstruction("c")->control_predecessors().empty());
  const std::string text = PrintModule(*m);
  EXPECT_NE(text.find("is_scheduled=true"), std::string::npos) << text;
  EXPECT_LT(text.find("exponential"), text.find("negate")) << text;

  // An invalid schedule changes nothing.
  HloSchedule bad;
  bad.set_sequence(e, {e->GetInstruction("t")});
  EXPECT_FALSE(ApplySchedule(m.get(), bad).ok());
}

}  // namespace
}  // namespace xla
