// KernelReuseKey: fusions that differ only in names and provenance share a
// key; any difference a kernel emitter reads (structure, shapes, layouts,
// constants, attributes, called computations, aliasing) separates them.
#include "xla/backends/gpu/compiler/kernel_reuse.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla::gpu {
namespace {

constexpr char kModule[] = R"(
HloModule m

add_a {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

add_b {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT t = f32[] add(p, q), metadata={op_name="other"}
}

max_c {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT m = f32[] maximum(x, y)
}

fused_1 {
  a = f32[37,5]{1,0} parameter(0)
  c = f32[] constant(2.5)
  b = f32[37,5]{1,0} broadcast(c), dimensions={}
  m = f32[37,5]{1,0} multiply(a, b), metadata={op_name="first"}
  z = f32[] constant(0)
  ROOT r = f32[37]{0} reduce(m, z), dimensions={1}, to_apply=add_a
}

fused_2 {
  p0 = f32[37,5]{1,0} parameter(0)
  k = f32[] constant(2.5)
  bb = f32[37,5]{1,0} broadcast(k), dimensions={}
  mm = f32[37,5]{1,0} multiply(p0, bb), metadata={op_name="second"}
  zero = f32[] constant(0)
  ROOT rr = f32[37]{0} reduce(mm, zero), dimensions={1}, to_apply=add_b
}

fused_other_constant {
  a = f32[37,5]{1,0} parameter(0)
  c = f32[] constant(3.5)
  b = f32[37,5]{1,0} broadcast(c), dimensions={}
  m = f32[37,5]{1,0} multiply(a, b)
  z = f32[] constant(0)
  ROOT r = f32[37]{0} reduce(m, z), dimensions={1}, to_apply=add_a
}

fused_other_reducer {
  a = f32[37,5]{1,0} parameter(0)
  c = f32[] constant(2.5)
  b = f32[37,5]{1,0} broadcast(c), dimensions={}
  m = f32[37,5]{1,0} multiply(a, b)
  z = f32[] constant(0)
  ROOT r = f32[37]{0} reduce(m, z), dimensions={1}, to_apply=max_c
}

fused_other_layout {
  a = f32[37,5]{0,1} parameter(0)
  c = f32[] constant(2.5)
  b = f32[37,5]{0,1} broadcast(c), dimensions={}
  m = f32[37,5]{0,1} multiply(a, b)
  z = f32[] constant(0)
  ROOT r = f32[37]{0} reduce(m, z), dimensions={1}, to_apply=add_a
}

fused_swapped_operands {
  a = f32[37,5]{1,0} parameter(0)
  c = f32[] constant(2.5)
  b = f32[37,5]{1,0} broadcast(c), dimensions={}
  m = f32[37,5]{1,0} multiply(b, a)
  z = f32[] constant(0)
  ROOT r = f32[37]{0} reduce(m, z), dimensions={1}, to_apply=add_a
}

fused_elided {
  a = f32[37,5]{1,0} parameter(0)
  c = f32[37,5]{1,0} constant({...})
  ROOT m = f32[37,5]{1,0} multiply(a, c)
}

fused_elided_again {
  a = f32[37,5]{1,0} parameter(0)
  c = f32[37,5]{1,0} constant({...})
  ROOT m = f32[37,5]{1,0} multiply(a, c)
}

ENTRY main {
  x = f32[37,5]{1,0} parameter(0)
  xt = f32[37,5]{0,1} parameter(1)
  f1 = f32[37]{0} fusion(x), kind=kInput, calls=fused_1
  f2 = f32[37]{0} fusion(x), kind=kInput, calls=fused_2
  f3 = f32[37]{0} fusion(x), kind=kInput, calls=fused_other_constant
  f4 = f32[37]{0} fusion(x), kind=kInput, calls=fused_other_reducer
  f5 = f32[37]{0} fusion(xt), kind=kInput, calls=fused_other_layout
  f6 = f32[37]{0} fusion(x), kind=kInput, calls=fused_swapped_operands
  f7 = f32[37]{0} fusion(x), kind=kLoop, calls=fused_1
  e1 = f32[37,5]{1,0} fusion(x), kind=kLoop, calls=fused_elided
  e2 = f32[37,5]{1,0} fusion(x), kind=kLoop, calls=fused_elided_again
  e3 = f32[37,5]{1,0} fusion(x), kind=kLoop, calls=fused_elided
  ROOT t = (f32[37]{0}, f32[37]{0}, f32[37]{0}, f32[37]{0}, f32[37]{0}, f32[37]{0}, f32[37]{0}, f32[37,5]{1,0}, f32[37,5]{1,0}, f32[37,5]{1,0}) tuple(f1, f2, f3, f4, f5, f6, f7, e1, e2, e3)
}
)";

class KernelReuseKeyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(kModule);
    ASSERT_TRUE(m.ok()) << m.status();
    module_ = std::move(*m);
    aliasing_.noalias = {true, true};
    aliasing_.output_aliases_operand = {-1};
  }

  std::string Key(const std::string& name) const {
    const HloComputation* entry = module_->entry_computation();
    for (const auto& instr : entry->instructions()) {
      if (instr->name() == name) return KernelReuseKey(*instr, aliasing_);
    }
    ADD_FAILURE() << "no instruction " << name;
    return "";
  }

  std::unique_ptr<HloModule> module_;
  KernelArgAliasing aliasing_;
};

TEST_F(KernelReuseKeyTest, NamesAndMetadataDoNotMatter) {
  EXPECT_EQ(Key("f1"), Key("f2"));
}

TEST_F(KernelReuseKeyTest, WhatTheEmitterReadsSeparates) {
  const std::string base = Key("f1");
  EXPECT_NE(base, Key("f3")) << "constant value";
  EXPECT_NE(base, Key("f4")) << "called computation (add vs maximum)";
  EXPECT_NE(base, Key("f5")) << "operand and fused layouts";
  EXPECT_NE(base, Key("f6")) << "operand order";
  EXPECT_NE(base, Key("f7")) << "fusion kind";
}

// Two elided constants may hold different values, so computations that
// differ only there never share; one computation called twice does.
TEST_F(KernelReuseKeyTest, ElidedConstantsMatchOnlyThemselves) {
  EXPECT_NE(Key("e1"), Key("e2"));
  EXPECT_EQ(Key("e1"), Key("e3"));
}

TEST_F(KernelReuseKeyTest, AliasingSeparates) {
  const std::string base = Key("f1");
  aliasing_.noalias = {false, true};
  EXPECT_NE(base, Key("f1"));
  aliasing_.noalias = {true, true};
  aliasing_.output_aliases_operand = {0};
  EXPECT_NE(base, Key("f1"));
}

TEST(KernelReuseCacheTest, FirstEntryWinsAndHitsAreCounted) {
  KernelReuseCache cache;
  EXPECT_FALSE(cache.Find("k").has_value());
  ReusableKernel first;
  first.kernel_index = 3;
  first.kernel.symbol = "first";
  cache.Add("k", first);
  ReusableKernel second;
  second.kernel_index = 7;
  cache.Add("k", second);
  std::optional<ReusableKernel> found = cache.Find("k");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->kernel_index, 3);
  EXPECT_EQ(found->kernel.symbol, "first");
  EXPECT_EQ(cache.hits(), 1);
  EXPECT_EQ(cache.emitted(), 1);
}

}  // namespace
}  // namespace xla::gpu
