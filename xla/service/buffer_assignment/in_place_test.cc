#include "xla/service/buffer_assignment/in_place.h"

#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla {
namespace {

TEST(InPlace, Rules) {
  auto m = ParseHloModule(R"(
HloModule m
ew {
  a = f32[4,5] parameter(0)
  b = f32[4,5] parameter(1)
  e = f32[4,5] exponential(a)
  ROOT s = f32[4,5] add(e, b)
}
tr {
  a = f32[5,5] parameter(0)
  ROOT t = f32[5,5] transpose(a), dimensions={1,0}
}
ENTRY e {
  p = f32[4,5] parameter(0)
  q = f32[5,5] parameter(1)
  u = f32[1,5] parameter(2)
  i = s32[] parameter(3)
  d = f32[4,5] dynamic-update-slice(p, u, i, i)
  n = f32[4,5] negate(p)
  c = pred[4,5] compare(p, p), direction=LT
  v = s32[4,5] convert(p)
  f = f32[4,5] fusion(p, n), kind=kLoop, calls=ew
  g = f32[5,5] fusion(q), kind=kLoop, calls=tr
  h = f32[4,5] fusion(p, n), kind=kInput, calls=ew
  ROOT t = (f32[4,5], f32[4,5], pred[4,5], s32[4,5], f32[4,5], f32[5,5], f32[4,5]) tuple(d, n, c, v, f, g, h)
})").value();
  auto get = [&](const char* name) { return m->entry_computation()->GetInstruction(name); };
  EXPECT_TRUE(CanShareOperandBuffer(*get("d"), 0));
  EXPECT_FALSE(CanShareOperandBuffer(*get("d"), 1));
  EXPECT_TRUE(CanShareOperandBuffer(*get("n"), 0));
  EXPECT_FALSE(CanShareOperandBuffer(*get("c"), 0));  // 1-byte pred from 4-byte f32
  EXPECT_TRUE(CanShareOperandBuffer(*get("v"), 0));   // same width
  EXPECT_TRUE(CanShareOperandBuffer(*get("f"), 0));
  EXPECT_TRUE(CanShareOperandBuffer(*get("f"), 1));
  EXPECT_FALSE(CanShareOperandBuffer(*get("g"), 0));  // transposes
  EXPECT_FALSE(CanShareOperandBuffer(*get("h"), 0));  // not a loop fusion
  EXPECT_FALSE(CanShareOperandBuffer(*get("t"), 0));
  EXPECT_FALSE(CanShareOperandBuffer(*get("n"), 5));
}

}  // namespace
}  // namespace xla
