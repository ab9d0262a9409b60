#include "xla/hlo/transforms/async_copy_converter.h"

#include "gtest/gtest.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::CountOpcode;

TEST(AsyncCopyConverter, PairBecomesCopy) {
  AsyncCopyConverter pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
ENTRY entry {
  p = f32[33,5] parameter(0)
  n = f32[33,5] negate(p)
  s = (f32[33,5], f32[33,5], u32[]) copy-start(n)
  d = f32[33,5] copy-done(s)
  ROOT a = f32[33,5] add(d, p)
})");
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kCopyStart), 0);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kCopyDone), 0);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kCopy), 1);
}

TEST(AsyncCopyConverter, LeavesStartWithOtherUsersAlone) {
  AsyncCopyConverter pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
ENTRY entry {
  p = f32[7] parameter(0)
  s = (f32[7], f32[7], u32[]) copy-start(p)
  d = f32[7] copy-done(s)
  g = f32[7] get-tuple-element(s), index=1
  ROOT a = f32[7] add(d, g)
})");
  EXPECT_FALSE(r.changed);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kCopyDone), 1);
}

}  // namespace
}  // namespace xla
