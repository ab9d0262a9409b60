// ReshapesToBitcasts on hand-written modules, each through RunPassAndCheck
// (the result verifies and computes what the input computed, evaluator,
// random inputs).
#include "xla/service/fusion/reshapes_to_bitcasts.h"

#include "gtest/gtest.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::CountOpcode;
using pass_test::PassResult;
using pass_test::RunPassAndCheck;

PassResult RunPass(const char* hlo) {
  ReshapesToBitcasts pass;
  PassResult r = RunPassAndCheck(pass, hlo);
  if (r.module != nullptr && r.changed) {
    absl::StatusOr<bool> again = pass.Run(r.module.get());
    EXPECT_TRUE(again.ok() && !*again) << "second run changed the module";
  }
  return r;
}

TEST(ReshapesToBitcasts, RowMajorReshapeBecomesBitcast) {
  PassResult r = RunPass(R"(
HloModule m
ENTRY e {
  p = f32[3,5,7]{2,1,0} parameter(0)
  r = f32[15,7]{1,0} reshape(p)
  ROOT n = f32[15,7]{1,0} negate(r)
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kReshape), 0) << r.text;
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kBitcast), 1) << r.text;
}

TEST(ReshapesToBitcasts, ReshapeOnlyFusionBecomesBitcast) {
  PassResult r = RunPass(R"(
HloModule m
fused_reshape {
  q = f32[3,3,5,2]{3,2,1,0} parameter(0)
  ROOT r = f32[45,2]{1,0} reshape(q)
}
ENTRY e {
  p = f32[3,3,5,2]{3,2,1,0} parameter(0)
  f = f32[45,2]{1,0} fusion(p), kind=kLoop, calls=fused_reshape
  ROOT n = f32[45,2]{1,0} negate(f)
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kFusion), 0) << r.text;
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kBitcast), 1) << r.text;
}

TEST(ReshapesToBitcasts, FusionThatComputesIsKept) {
  PassResult r = RunPass(R"(
HloModule m
fused {
  q = f32[3,5]{1,0} parameter(0)
  r = f32[15]{0} reshape(q)
  ROOT n = f32[15]{0} negate(r)
}
ENTRY e {
  p = f32[3,5]{1,0} parameter(0)
  f = f32[15]{0} fusion(p), kind=kLoop, calls=fused
  ROOT a = f32[15]{0} add(f, f)
})");
  EXPECT_FALSE(r.changed) << r.text;
}

TEST(ReshapesToBitcasts, ColumnMajorIsKept) {
  PassResult r = RunPass(R"(
HloModule m
ENTRY e {
  p = f32[3,5]{0,1} parameter(0)
  r = f32[15]{0} reshape(p)
  ROOT n = f32[15]{0} negate(r)
})");
  EXPECT_FALSE(r.changed) << r.text;
}

TEST(ReshapesToBitcasts, RootAndRootOperandsAreKept) {
  PassResult r = RunPass(R"(
HloModule m
ENTRY e {
  p = f32[3,5]{1,0} parameter(0)
  a = f32[15]{0} reshape(p)
  b = f32[5,3]{1,0} reshape(p)
  ROOT t = (f32[15]{0}, f32[5,3]{1,0}) tuple(a, b)
})");
  EXPECT_FALSE(r.changed) << r.text;
  PassResult root = RunPass(R"(
HloModule m
ENTRY e {
  p = f32[3,5]{1,0} parameter(0)
  ROOT a = f32[15]{0} reshape(p)
})");
  EXPECT_FALSE(root.changed) << root.text;
}

TEST(ReshapesToBitcasts, ElementTypeChangeIsNotAReshape) {
  PassResult r = RunPass(R"(
HloModule m
ENTRY e {
  p = s32[4,6]{1,0} parameter(0)
  c = f32[4,6]{1,0} convert(p)
  r = f32[24]{0} reshape(c)
  ROOT n = f32[24]{0} negate(r)
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kConvert), 1) << r.text;
}

}  // namespace
}  // namespace xla
