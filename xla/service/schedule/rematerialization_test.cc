#include "xla/service/schedule/rematerialization.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/service/schedule/list_scheduler.h"
#include "xla/service/schedule/peak_memory.h"

namespace xla {
namespace {

// f32[64,64] is 16 KiB (N = 16384 bytes), f32[4,64,64] 4N. In post order:
//   b (N) is read by x and, much later, by s; y (4N) and r (N) are live
//   in between. The result s (N) counts from the start (its own
//   allocation). Live bytes: b 2N, x 3N, y 7N (s, b, x, y), r 7N
//   (s, b, y, r), s 3N. Peak 7N (ComputePeakMemory, which counts s from
//   its definition: 6N).
// Recomputing b right before s: y 6N (s, x, y), r 6N, b.remat 3N,
// s 3N. Peak 6N. Nothing else can move: at y, x is read; at r, y.
constexpr char kLateUse[] = R"(
HloModule m

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY e {
  p = f32[64] parameter(0)
  c = f32[] constant(0)
  b = f32[64,64] broadcast(p), dimensions={1}
  x = f32[64,64] exponential(b)
  y = f32[4,64,64] broadcast(x), dimensions={1,2}
  r = f32[64,64] reduce(y, c), dimensions={0}, to_apply=add
  ROOT s = f32[64,64] multiply(r, b)
}
)";

constexpr int64_t kN = 64 * 64 * 4;

struct Scheduled {
  std::unique_ptr<HloModule> module;
  HloSchedule schedule;
};

Scheduled PostOrderSchedule(const std::string& text) {
  Scheduled s;
  s.module = ParseHloModule(text).value();
  SchedulerOptions post;
  post.algorithm = SchedulerOptions::Algorithm::kPostOrder;
  s.schedule = ScheduleModule(*s.module, post).value();
  return s;
}

std::vector<std::string> Names(const Scheduled& s) {
  std::vector<std::string> out;
  for (const HloInstruction* i : s.schedule.sequence(s.module->entry_computation())) {
    out.push_back(i->name());
  }
  return out;
}

// The module's result on seeded random inputs, before and after `change`.
void ExpectSameResults(const std::string& text, Scheduled& s, int64_t seed) {
  auto original = ParseHloModule(text).value();
  std::vector<Literal> args = MakeRandomInputs(*original, seed).value();
  absl::StatusOr<Literal> before = HloEvaluator().Evaluate(*original, args);
  absl::StatusOr<Literal> after = HloEvaluator().Evaluate(*s.module, args);
  ASSERT_TRUE(before.ok()) << before.status();
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_TRUE(*before == *after);
}

TEST(Rematerialization, RecomputesABroadcastNextToItsLateUse) {
  Scheduled s = PostOrderSchedule(kLateUse);
  EXPECT_EQ(ComputePeakMemory(*s.module, s.schedule).value(), 6 * kN);
  RematerializationOptions options;
  options.peak_limit_bytes = 6 * kN + 100;
  absl::StatusOr<RematerializationResult> r = Rematerialize(s.module.get(), &s.schedule, options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->peak_before, 7 * kN);
  EXPECT_EQ(r->peak_after, 6 * kN);
  EXPECT_EQ(r->rematerialized, 1);
  EXPECT_EQ(Names(s), (std::vector<std::string>{"p", "c", "b", "x", "y", "r", "b.remat", "s"}));
  ASSERT_TRUE(s.schedule.Verify(*s.module).ok());
  EXPECT_EQ(s.module->entry_computation()->GetInstruction("s")->operand(1)->name(), "b.remat");
  ExpectSameResults(kLateUse, s, 7);
}

TEST(Rematerialization, StopsWhenNothingAtThePeakCanBeRecomputed) {
  Scheduled s = PostOrderSchedule(kLateUse);
  RematerializationOptions options;
  options.peak_limit_bytes = 3 * kN;  // below what recomputing b reaches
  RematerializationResult r = Rematerialize(s.module.get(), &s.schedule, options).value();
  EXPECT_EQ(r.peak_after, 6 * kN);
  EXPECT_EQ(r.rematerialized, 1);
  ExpectSameResults(kLateUse, s, 8);
}

TEST(Rematerialization, LeavesAFittingScheduleAlone) {
  Scheduled s = PostOrderSchedule(kLateUse);
  RematerializationOptions options;
  options.peak_limit_bytes = 7 * kN;
  RematerializationResult r = Rematerialize(s.module.get(), &s.schedule, options).value();
  EXPECT_EQ(r.rematerialized, 0);
  EXPECT_EQ(r.peak_after, 7 * kN);
  options.peak_limit_bytes = 0;  // off
  EXPECT_EQ(Rematerialize(s.module.get(), &s.schedule, options).value().rematerialized, 0);
}

// b is a reduce (not cheap), and e's operand q (N) would have to live
// longer: neither is recomputed, whatever the limit.
TEST(Rematerialization, KeepsExpensiveValuesAndThoseThatExtendOperands) {
  const std::string text = R"(
HloModule m

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY e {
  p = f32[4,64,64] parameter(0)
  c = f32[] constant(0)
  b = f32[64,64] reduce(p, c), dimensions={0}, to_apply=add
  q = f32[64,64] sine(b)
  e = f32[64,64] exponential(q)
  y = f32[4,64,64] broadcast(e), dimensions={1,2}
  r = f32[64,64] reduce(y, c), dimensions={0}, to_apply=add
  s = f32[64,64] multiply(r, b)
  ROOT t = f32[64,64] add(s, e)
}
)";
  Scheduled s = PostOrderSchedule(text);
  RematerializationOptions options;
  options.peak_limit_bytes = 1;
  RematerializationResult r = Rematerialize(s.module.get(), &s.schedule, options).value();
  EXPECT_EQ(r.rematerialized, 0);
  EXPECT_EQ(r.peak_after, r.peak_before);
}

// A value whose every use follows the peak moves there instead of being
// computed twice; a donated parameter is not read after the peak.
TEST(Rematerialization, SinksAValueUsedOnlyAfterThePeak) {
  const std::string text = R"(
HloModule m

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY e {
  p = f32[64,64] parameter(0)
  c = f32[] constant(0)
  w = f32[64,64] cosine(p)
  y = f32[4,64,64] broadcast(p), dimensions={1,2}
  r = f32[64,64] reduce(y, c), dimensions={0}, to_apply=add
  ROOT s = f32[64,64] multiply(r, w)
}
)";
  Scheduled s = PostOrderSchedule(text);
  ASSERT_EQ(Names(s), (std::vector<std::string>{"p", "c", "w", "y", "r", "s"}));
  // With s (N) from the start: w 2N, y 6N (s, w, y), r 7N (s, w, y, r),
  // s 3N.
  EXPECT_EQ(ComputePeakMemory(*s.module, s.schedule).value(), 6 * kN);
  RematerializationOptions options;
  options.peak_limit_bytes = 6 * kN;
  RematerializationResult r = Rematerialize(s.module.get(), &s.schedule, options).value();
  EXPECT_EQ(r.peak_before, 7 * kN);
  EXPECT_EQ(r.rematerialized, 1);
  EXPECT_EQ(r.peak_after, 6 * kN);  // s, y, r
  EXPECT_EQ(Names(s), (std::vector<std::string>{"p", "c", "y", "r", "w.remat", "s"}));
  ExpectSameResults(text, s, 9);

  Scheduled donated =
      PostOrderSchedule("HloModule m, input_output_alias={ {}: (0, {}, may-alias) }" +
                        text.substr(text.find("\n\nadd")));
  r = Rematerialize(donated.module.get(), &donated.schedule, options).value();
  EXPECT_EQ(r.rematerialized, 0);  // p's last read is y: w may not read it later
}

TEST(Rematerialization, CheapOps) {
  auto m = ParseHloModule(R"(
HloModule m
cheap {
  a = f32[8] parameter(0)
  b = f32[8,3] broadcast(a), dimensions={0}
  t = f32[3,8] transpose(b), dimensions={1,0}
  ROOT e = f32[3,8] exponential(t)
}
costly {
  a = f32[8] parameter(0)
  c = f32[] constant(0)
  ROOT d = f32[] dot(a, a), lhs_contracting_dims={0}, rhs_contracting_dims={0}
}
ENTRY e {
  p = f32[8] parameter(0)
  i = s32[8] iota(), iota_dimension=0
  f = f32[3,8] fusion(p), kind=kLoop, calls=cheap
  g = f32[] fusion(p), kind=kLoop, calls=costly
  h = f32[3,8] fusion(p), kind=kInput, calls=cheap
  ROOT t = (s32[8], f32[3,8], f32[], f32[3,8]) tuple(i, f, g, h)
})").value();
  const HloComputation* e = m->entry_computation();
  EXPECT_TRUE(IsCheapToRecompute(*e->GetInstruction("i")));
  EXPECT_TRUE(IsCheapToRecompute(*e->GetInstruction("f")));
  EXPECT_FALSE(IsCheapToRecompute(*e->GetInstruction("g")));
  EXPECT_FALSE(IsCheapToRecompute(*e->GetInstruction("h")));
  EXPECT_FALSE(IsCheapToRecompute(*e->GetInstruction("t")));
  EXPECT_FALSE(IsCheapToRecompute(*e->GetInstruction("p")));
}

}  // namespace
}  // namespace xla
