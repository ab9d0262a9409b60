// Row reductions, elementwise-like ops, the computations the passes rewrite
// and computation naming.
#include "xla/service/fusion/fusion_util.h"

#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla {
namespace {

TEST(FusionUtil, RowReductionAndComputations) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
cond {
  s = (s32[], f32[4,5]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT c = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4,5]) parameter(0)
  ROOT t = (s32[], f32[4,5]) tuple(s)
}
ENTRY e {
  a = f32[4,5,6] parameter(0)
  z = f32[] constant(0)
  r1 = f32[4] reduce(a, z), dimensions={2,1}, to_apply=add
  r2 = f32[4,6] reduce(a, z), dimensions={1}, to_apply=add
  r3 = f32[] reduce(a, z), dimensions={0,1,2}, to_apply=add
  t0 = f32[4,5,6] parameter(1)
  tl = f32[4,5,6]{0,1,2} copy(t0)
  r4 = f32[4] reduce(tl, z), dimensions={1,2}, to_apply=add
  tr = pred[] constant(true)
  sel = f32[] select(tr, z, z)
  w0 = (s32[], f32[4,5]) parameter(2)
  w = (s32[], f32[4,5]) while(w0), condition=cond, body=body
  ROOT t = (f32[4], f32[4,6], f32[], f32[4], f32[]) tuple(r1, r2, r3, r4, sel)
})");
  ASSERT_TRUE(m.ok()) << m.status();
  const HloComputation& e = *(*m)->entry_computation();
  int64_t rows = -1;
  EXPECT_TRUE(IsRowReduction(*e.GetInstruction("r1"), &rows));
  EXPECT_EQ(rows, 1);
  EXPECT_FALSE(IsRowReduction(*e.GetInstruction("r2"), nullptr));
  EXPECT_TRUE(IsRowReduction(*e.GetInstruction("r3"), &rows));
  EXPECT_EQ(rows, 0);
  EXPECT_FALSE(IsRowReduction(*e.GetInstruction("r4"), nullptr));  // column-major operand
  EXPECT_TRUE(IsElementwiseLike(*e.GetInstruction("sel")));
  EXPECT_FALSE(IsElementwiseLike(*e.GetInstruction("r1")));
  std::vector<HloComputation*> cs = ComputationsToFuse(**m);
  ASSERT_EQ(cs.size(), 3u);  // e, cond, body; not add
  for (const HloComputation* c : cs) EXPECT_NE(c->name(), "add");
  ComputationNamer namer(**m);
  EXPECT_EQ(namer.Unique("add"), "add.1");
  EXPECT_EQ(namer.Unique("add"), "add.2");
  EXPECT_EQ(namer.Unique("fused_x"), "fused_x");
  EXPECT_EQ(namer.Unique("fused_x"), "fused_x.1");
}

}  // namespace
}  // namespace xla
