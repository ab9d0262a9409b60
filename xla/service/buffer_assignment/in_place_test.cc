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

TEST(InPlace, DynamicUpdateSliceFusionSharesOnlyAnUnreadUpdatedArray) {
  auto m = ParseHloModule(R"(
HloModule m
stack {
  a = f32[7,3,5] parameter(0)
  h = f32[3,5] parameter(1)
  i = s32[] parameter(2)
  z = s32[] constant(0)
  t = f32[3,5] tanh(h)
  u = f32[1,3,5] reshape(t)
  ROOT d = f32[7,3,5] dynamic-update-slice(a, u, i, z, z)
}
reads_itself {
  a = f32[7,3,5] parameter(0)
  i = s32[] parameter(1)
  z = s32[] constant(0)
  s = f32[1,3,5] dynamic-slice(a, i, z, z), dynamic_slice_sizes={1,3,5}
  n = f32[1,3,5] negate(s)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT d = f32[7,3,5] dynamic-update-slice(a, n, j, z, z)
}
ENTRY e {
  a = f32[7,3,5] parameter(0)
  h = f32[3,5] parameter(1)
  i = s32[] parameter(2)
  f = f32[7,3,5] fusion(a, h, i), kind=kLoop, calls=stack
  g = f32[7,3,5] fusion(a, i), kind=kLoop, calls=reads_itself
  k = f32[7,3,5] fusion(a, h, i), kind=kInput, calls=stack
  ROOT t = (f32[7,3,5], f32[7,3,5], f32[7,3,5]) tuple(f, g, k)
})").value();
  auto get = [&](const char* name) { return m->entry_computation()->GetInstruction(name); };
  EXPECT_TRUE(CanShareOperandBuffer(*get("f"), 0));
  EXPECT_FALSE(CanShareOperandBuffer(*get("f"), 1));  // the update, other dims
  EXPECT_FALSE(CanShareOperandBuffer(*get("f"), 2));
  // The update is read from the array it updates (another row): writing
  // in place could overwrite what a later block still reads.
  EXPECT_FALSE(CanShareOperandBuffer(*get("g"), 0));
  EXPECT_FALSE(CanShareOperandBuffer(*get("k"), 0));  // not a loop fusion
}

TEST(InPlace, MultiOutputLoopFusionLeavesShareElementwiseOperands) {
  auto m = ParseHloModule(R"(
HloModule m
adam {
  p = f32[3,7] parameter(0)
  mo = f32[3,7] parameter(1)
  g = f32[3,7] parameter(2)
  b = f32[7] parameter(3)
  nm = f32[3,7] add(mo, g)
  bb = f32[3,7] broadcast(b), dimensions={1}
  np = f32[3,7] subtract(p, nm)
  nb = f32[3,7] multiply(np, bb)
  ROOT t = (f32[3,7], f32[3,7], f32[3,7]) tuple(nm, np, nb)
}
mixed {
  a = f32[3,7] parameter(0)
  r = f32[7,3] transpose(a), dimensions={1,0}
  n = f32[3,7] negate(a)
  ROOT t = (f32[3,7], f32[7,3]) tuple(n, r)
}
ENTRY e {
  p = f32[3,7] parameter(0)
  mo = f32[3,7] parameter(1)
  g = f32[3,7] parameter(2)
  b = f32[7] parameter(3)
  f = (f32[3,7], f32[3,7], f32[3,7]) fusion(p, mo, g, b), kind=kLoop, calls=adam
  h = (f32[3,7], f32[7,3]) fusion(p), kind=kLoop, calls=mixed
  n = f32[3,7] negate(p)
  ROOT t = ((f32[3,7], f32[3,7], f32[3,7]), (f32[3,7], f32[7,3]), f32[3,7]) tuple(f, h, n)
})").value();
  auto get = [&](const char* name) { return m->entry_computation()->GetInstruction(name); };
  // Any leaf may take any elementwise operand of its size, whichever leaf
  // reads it: the emitters compute every leaf before storing.
  for (int64_t leaf = 0; leaf < 3; ++leaf) {
    EXPECT_TRUE(CanShareOperandBufferAt(*get("f"), 0, leaf)) << leaf;
    EXPECT_TRUE(CanShareOperandBufferAt(*get("f"), 1, leaf)) << leaf;
    EXPECT_TRUE(CanShareOperandBufferAt(*get("f"), 2, leaf)) << leaf;
    EXPECT_FALSE(CanShareOperandBufferAt(*get("f"), 3, leaf)) << leaf;  // broadcast, other size
  }
  EXPECT_FALSE(CanShareOperandBufferAt(*get("f"), 0, 3));   // no such leaf
  EXPECT_FALSE(CanShareOperandBufferAt(*get("f"), 4, 0));   // no such operand
  EXPECT_FALSE(CanShareOperandBufferAt(*get("h"), 0, 0));   // leaves of two shapes: two loops
  EXPECT_TRUE(CanShareOperandBufferAt(*get("n"), 0, 0));    // array result: the old rule
  EXPECT_FALSE(CanShareOperandBufferAt(*get("n"), 0, 1));
  EXPECT_FALSE(CanShareOperandBuffer(*get("f"), 0));        // tuple results need a leaf
}

}  // namespace
}  // namespace xla
