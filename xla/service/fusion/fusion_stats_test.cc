// CountKernels on a hand-written fused module with a while loop.
#include "xla/service/fusion/fusion_stats.h"

#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla {
namespace {

TEST(FusionStats, CountsFusionsAndOwnThunks) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
f1 {
  p = f32[4,5] parameter(0)
  ROOT n = f32[4,5] negate(p)
}
f2 {
  p = f32[4,5] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[4] reduce(p, z), dimensions={1}, to_apply=add
}
cond {
  s = (s32[], f32[4,5]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT c = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4,5]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[4,5] get-tuple-element(s), index=1
  f = f32[4,5] fusion(v), kind=kLoop, calls=f1
  ROOT t = (s32[], f32[4,5]) tuple(i, f)
}
ENTRY e {
  a = f32[4,5] parameter(0)
  b = f32[5,4] parameter(1)
  d = f32[4,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  c = f32[4,5] copy(a)
  r = f32[4] fusion(c), kind=kInput, calls=f2
  z = s32[] constant(0)
  t = (s32[], f32[4,5]) tuple(z, a)
  w = (s32[], f32[4,5]) while(t), condition=cond, body=body
  g = f32[4,5] get-tuple-element(w), index=1
  bc = f32[5,4] bitcast(g)
  ROOT o = (f32[4,4], f32[4], f32[5,4]) tuple(d, r, bc)
})");
  ASSERT_TRUE(m.ok()) << m.status();
  FusionStats s = CountKernels(**m);
  EXPECT_EQ(s.fusions, 2);
  EXPECT_EQ(s.fusions_by_kind[FusionKind::kLoop], 1);
  EXPECT_EQ(s.fusions_by_kind[FusionKind::kRowReduction], 1);
  // dot, copy, and the condition's compare (an unfused op).
  EXPECT_EQ(s.own_thunks, 3);
  EXPECT_EQ(s.own_thunks_by_opcode["dot"], 1);
  EXPECT_EQ(s.own_thunks_by_opcode["copy"], 1);
  EXPECT_EQ(s.kernels, 5);
  EXPECT_EQ(s.ToString(),
            "kernels=5 fusions=2 (loop=1 row_reduction=1) thunks=3 (compare=1 copy=1 dot=1)");
}

}  // namespace
}  // namespace xla
