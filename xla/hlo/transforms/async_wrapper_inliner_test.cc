#include "xla/hlo/transforms/async_wrapper_inliner.h"

#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::CountOpcode;

// Two wrappers, one with an async-update between start and done, on odd
// sizes: they become calls and the results are the evaluator's.
TEST(AsyncWrapperInliner, StartUpdateDoneBecomesACall) {
  AsyncWrapperInliner pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
wrapped {
  x = f32[7,5] parameter(0)
  y = f32[7,5] parameter(1)
  m = f32[7,5] multiply(x, y)
  z = f32[] constant(0)
  ROOT r = f32[7] reduce(m, z), dimensions={1}, to_apply=add
}
wrapped2 {
  v = f32[7] parameter(0)
  ROOT t = f32[7] tanh(v)
}
ENTRY e {
  p = f32[7,5] parameter(0)
  q = f32[7,5] parameter(1)
  s = ((f32[7,5], f32[7,5]), f32[7], u32[]) async-start(p, q), calls=wrapped
  u = ((f32[7,5], f32[7,5]), f32[7], u32[]) async-update(s)
  d = f32[7] async-done(u)
  s2 = ((f32[7]), f32[7]) async-start(d), calls=wrapped2
  ROOT d2 = f32[7] async-done(s2)
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kAsyncStart), 0) << r.text;
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kAsyncUpdate), 0) << r.text;
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kAsyncDone), 0) << r.text;
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kCall), 2) << r.text;
}

// A start whose value is also read elsewhere is not a single line: left.
TEST(AsyncWrapperInliner, LeavesAStartWithOtherUsers) {
  AsyncWrapperInliner pass;
  pass_test::PassResult r = pass_test::RunPassOnly(pass, R"(
HloModule m
wrapped {
  v = f32[7] parameter(0)
  ROOT t = f32[7] tanh(v)
}
ENTRY e {
  p = f32[7] parameter(0)
  s = ((f32[7]), f32[7]) async-start(p), calls=wrapped
  d = f32[7] async-done(s)
  ops = (f32[7]) get-tuple-element(s), index=0
  ROOT t = ((f32[7]), f32[7]) tuple(ops, d)
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_FALSE(r.changed);
}

}  // namespace
}  // namespace xla
