#include "xla/service/schedule/list_scheduler.h"

#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/service/schedule/peak_memory.h"

namespace xla {
namespace {

// Two independent "big temporary, then reduce it" chains, written so that
// the post order computes both big temporaries before either reduce.
// f32[250] is 1000 bytes, f32[] 4 bytes.
constexpr char kTwoChains[] = R"(
HloModule m

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY e {
  p = f32[250] parameter(0)
  c = f32[] constant(0)
  a1 = f32[250] exponential(p)
  b1 = f32[250] sine(p)
  a2 = f32[] reduce(a1, c), dimensions={0}, to_apply=add
  b2 = f32[] reduce(b1, c), dimensions={0}, to_apply=add
  ROOT t = (f32[], f32[]) tuple(a2, b2)
}
)";

std::vector<std::string> Names(const HloSchedule& s, const HloComputation* c) {
  std::vector<std::string> out;
  for (const HloInstruction* i : s.sequence(c)) out.push_back(i->name());
  return out;
}

TEST(ListScheduler, FreesTemporariesBeforeAllocatingNewOnes) {
  auto m = ParseHloModule(kTwoChains).value();
  SchedulerOptions post;
  post.algorithm = SchedulerOptions::Algorithm::kPostOrder;
  HloSchedule baseline = ScheduleModule(*m, post).value();
  EXPECT_EQ(Names(baseline, m->entry_computation()),
            (std::vector<std::string>{"p", "c", "a1", "b1", "a2", "b2", "t"}));
  HloSchedule greedy = ScheduleModule(*m, SchedulerOptions()).value();
  ASSERT_TRUE(greedy.Verify(*m).ok());
  EXPECT_EQ(Names(greedy, m->entry_computation()),
            (std::vector<std::string>{"p", "c", "a1", "a2", "b1", "b2", "t"}));
  // Hand-computed: post order holds a1, b1 and a2 at once (2004 bytes); the
  // greedy order at most one big temporary plus both scalars (1008).
  EXPECT_EQ(ComputePeakMemory(*m, baseline).value(), 2004);
  EXPECT_EQ(ComputePeakMemory(*m, greedy).value(), 1008);
  // The reducer is fused into the reduce: no sequence.
  EXPECT_FALSE(greedy.has_sequence(m->GetComputation("add")));
}

TEST(ListScheduler, SchedulesWhileBodiesAndAddsTheirPeak) {
  auto m = ParseHloModule(R"(
HloModule m
cond {
  p = (s32[], f32[100]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[100]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[100] get-tuple-element(p), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  e = f32[100] exponential(x)
  x2 = f32[100] add(e, x)
  ROOT t = (s32[], f32[100]) tuple(i2, x2)
}
ENTRY main {
  x = f32[100] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[100]) tuple(z, x)
  ROOT w = (s32[], f32[100]) while(t), condition=cond, body=body
})").value();
  HloSchedule s = ScheduleModule(*m, SchedulerOptions()).value();
  ASSERT_TRUE(s.Verify(*m).ok()) << s.Verify(*m);
  EXPECT_EQ(s.sequence(m->GetComputation("body")).size(), 8u);
  // Body: i2 (4) + e (400) + x2 (400) live at x2 = 804; the entry holds
  // nothing of its own (the while forwards parameter and constant buffers).
  EXPECT_EQ(ComputePeakMemory(*m, s).value(), 804);
}

// The post order puts the independent chain after the -done (it reaches
// the -done first); the scheduler moves it between -start and -done, where
// it overlaps the collective.
TEST(ListScheduler, IndependentWorkGoesBetweenAsyncCollectiveStartAndDone) {
  auto m = ParseHloModule(R"(
HloModule m, replica_count=2

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY e {
  p = f32[33] parameter(0)
  q = f32[17] parameter(1)
  start = f32[33] all-reduce-start(p), replica_groups={{0,1}}, to_apply=add
  done = f32[33] all-reduce-done(start)
  n = f32[33] negate(done)
  e1 = f32[17] exponential(q)
  e2 = f32[17] sine(e1)
  ROOT t = (f32[33], f32[17]) tuple(n, e2)
}
)").value();
  SchedulerOptions post;
  post.algorithm = SchedulerOptions::Algorithm::kPostOrder;
  EXPECT_EQ(Names(ScheduleModule(*m, post).value(), m->entry_computation()),
            (std::vector<std::string>{"p", "q", "start", "done", "n", "e1", "e2", "t"}));
  HloSchedule s = ScheduleModule(*m, SchedulerOptions()).value();
  ASSERT_TRUE(s.Verify(*m).ok());
  EXPECT_EQ(Names(s, m->entry_computation()),
            (std::vector<std::string>{"p", "start", "q", "e1", "e2", "done", "n", "t"}));
}

TEST(ListScheduler, ReportsCycles) {
  auto m = ParseHloModule(R"(
HloModule m
ENTRY e {
  a = f32[2] parameter(0)
  b = f32[2] negate(a)
  ROOT c = f32[2] exponential(b)
})").value();
  HloComputation* e = m->entry_computation();
  e->GetInstruction("b")->AddControlPredecessor(e->GetInstruction("c"));
  absl::StatusOr<HloSchedule> s = ScheduleModule(*m, SchedulerOptions());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.status().message()).find("cycle"), std::string::npos);
}

}  // namespace
}  // namespace xla
