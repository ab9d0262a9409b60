#include "xla/backends/gpu/codegen/fusion_emitter_test_util.h"

#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla::gpu {

const char kFusionTestReducers[] = R"(
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
max {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT m = f32[] maximum(x, y)
}
mul {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] multiply(x, y)
}
add_bf16 {
  x = bf16[] parameter(0)
  y = bf16[] parameter(1)
  ROOT s = bf16[] add(x, y)
}
add_s32 {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT s = s32[] add(x, y)
}
argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  gt = pred[] compare(v1, v0), direction=GT
  v = f32[] select(gt, v1, v0)
  i = s32[] select(gt, i1, i0)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
)";

std::string FusionTestModuleText(const std::string& fused, const std::string& entry) {
  return "HloModule m\n" + std::string(kFusionTestReducers) + "fused {\n" + fused +
         "}\nENTRY e {\n" + entry + "}\n";
}

std::unique_ptr<HloModule> ParseFusionTestModule(const std::string& fused,
                                                 const std::string& entry) {
  const std::string text = FusionTestModuleText(fused, entry);
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status() << "\n" << text;
  return m.ok() ? std::move(*m) : nullptr;
}

const char kFusionTestDusFused[] = R"(
  op = f32[37,129] parameter(0)
  u = f32[5,17] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  e = f32[5,17] exponential(u)
  ROOT d = f32[37,129] dynamic-update-slice(op, e, i, j)
)";
const char kFusionTestDusEntry[] = R"(
  op = f32[37,129] parameter(0)
  u = f32[5,17] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ROOT f = f32[37,129] fusion(op, u, i, j), kind=kLoop, calls=fused
)";

const char kFusionTestScatterFused[] = R"(
  op = f32[11,7] parameter(0)
  idx = s32[6,1] parameter(1)
  upd = f32[6,7] parameter(2)
  u2 = f32[6,7] multiply(upd, upd)
  ROOT s = f32[11,7] scatter(op, idx, u2), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
)";
const char kFusionTestScatterEntry[] = R"(
  op = f32[11,7] parameter(0)
  idx = s32[6,1] parameter(1)
  upd = f32[6,7] parameter(2)
  ROOT f = f32[11,7] fusion(op, idx, upd), kind=kInput, calls=fused
)";

const FusionTestCase kFusionTestRowSumOfSquares = {R"(
  a = f32[37,129] parameter(0)
  e = f32[37,129] multiply(a, a)
  z = f32[] constant(0)
  ROOT r = f32[37] reduce(e, z), dimensions={1}, to_apply=add
)",
                                R"(
  a = f32[37,129] parameter(0)
  ROOT f = f32[37] fusion(a), kind=kInput, calls=fused
)"};

const FusionTestCase kFusionTestRowArgmax = {R"(
  a = f32[37,129] parameter(0)
  i = s32[37,129] iota(), iota_dimension=1
  m = f32[] constant(-inf)
  z = s32[] constant(0)
  ROOT r = (f32[37], s32[37]) reduce(a, i, m, z), dimensions={1}, to_apply=argmax
)",
                                R"(
  a = f32[37,129] parameter(0)
  ROOT f = (f32[37], s32[37]) fusion(a), kind=kInput, calls=fused
)"};

const FusionTestCase kFusionTestVariadicScatterArgmax = {R"(
  v = f32[13,5] parameter(0)
  a = s32[13,5] parameter(1)
  idx = s32[9,2] parameter(2)
  uv = f32[9,3] parameter(3)
  ua = s32[9,3] parameter(4)
  n = f32[9,3] negate(uv)
  ROOT s = (f32[13,5], s32[13,5]) scatter(v, a, idx, n, ua), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply=argmax
)",
                                R"(
  v = f32[13,5] parameter(0)
  a = s32[13,5] parameter(1)
  idx = s32[9,2] parameter(2)
  uv = f32[9,3] parameter(3)
  ua = s32[9,3] parameter(4)
  ROOT f = (f32[13,5], s32[13,5]) fusion(v, a, idx, uv, ua), kind=kInput, calls=fused
)"};

const FusionTestCase kFusionTestColumnSumAndMax = {R"(
  a = f32[129,37] parameter(0)
  z = f32[] constant(0)
  m = f32[] constant(-inf)
  s = f32[37] reduce(a, z), dimensions={0}, to_apply=add
  x = f32[37] reduce(a, m), dimensions={0}, to_apply=max
  ROOT t = (f32[37], f32[37]) tuple(s, x)
)",
                                R"(
  a = f32[129,37] parameter(0)
  ROOT f = (f32[37], f32[37]) fusion(a), kind=kInput, calls=fused
)"};

const FusionTestCase kFusionTestGenericReduce = {R"(
  a = f32[5,6,7] parameter(0)
  z = f32[] constant(0)
  ROOT s = f32[6] reduce(a, z), dimensions={0,2}, to_apply=add
)",
                                R"(
  a = f32[5,6,7] parameter(0)
  ROOT f = f32[6] fusion(a), kind=kInput, calls=fused
)"};

const FusionTestCase kFusionTestSoftmax = {R"(
  a = f32[37,129] parameter(0)
  m = f32[] constant(-inf)
  z = f32[] constant(0)
  mx = f32[37] reduce(a, m), dimensions={1}, to_apply=max
  mb = f32[37,129] broadcast(mx), dimensions={0}
  d = f32[37,129] subtract(a, mb)
  e = f32[37,129] exponential(d)
  s = f32[37] reduce(e, z), dimensions={1}, to_apply=add
  sb = f32[37,129] broadcast(s), dimensions={0}
  ROOT o = f32[37,129] divide(e, sb)
)",
                                R"(
  a = f32[37,129] parameter(0)
  ROOT f = f32[37,129] fusion(a), kind=kInput, calls=fused
)"};

const FusionTestCase kFusionTestTranspose = {R"(
  a = f32[37,129] parameter(0)
  t = f32[129,37] transpose(a), dimensions={1,0}
  ROOT n = f32[129,37] negate(t)
)",
                                R"(
  a = f32[37,129] parameter(0)
  ROOT f = f32[129,37] fusion(a), kind=kLoop, calls=fused
)"};

const FusionTestCase kFusionTestTranspose3d = {R"(
  a = s32[37,3,129] parameter(0)
  ROOT t = s32[129,37,3] transpose(a), dimensions={2,0,1}
)",
                                R"(
  a = s32[37,3,129] parameter(0)
  ROOT f = s32[129,37,3] fusion(a), kind=kLoop, calls=fused
)"};

const FusionTestCase kFusionTestLoopBroadcast = {R"(
  a = f32[37,129] parameter(0)
  b = f32[129] parameter(1)
  bb = f32[37,129] broadcast(b), dimensions={1}
  s = f32[37,129] add(a, bb)
  ROOT m = f32[37,129] multiply(s, a)
)",
                                                 R"(
  a = f32[37,129] parameter(0)
  b = f32[129] parameter(1)
  ROOT f = f32[37,129] fusion(a, b), kind=kLoop, calls=fused
)"};

std::string FusionTestMaxPoolGradModule(const std::string& fused) {
  return absl::StrCat(R"(HloModule m
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
fused {)",
                      fused, R"(}
ENTRY e {
  x = f32[2,9,7,3] parameter(0)
  g = f32[2,5,4,3] parameter(1)
  ROOT f = f32[2,9,7,3] fusion(x, g), kind=kLoop, calls=fused
}
)");
}

namespace {

// `fused` and `entry` with each variable ("$NAME") replaced by its value.
FusionTestCaseText Substitute(const char* fused, const char* entry,
                              const std::vector<std::pair<std::string, std::string>>& vars) {
  return {absl::StrReplaceAll(fused, vars), absl::StrReplaceAll(entry, vars)};
}

}  // namespace

FusionTestCaseText FusionTestLayerNorm(int64_t cols) {
  return Substitute(R"(
  a = f32[13,$C] parameter(0)
  g = f32[$C] parameter(1)
  z = f32[] constant(0)
  n = f32[] constant($C)
  eps = f32[] constant(1e-5)
  s = f32[13] reduce(a, z), dimensions={1}, to_apply=add
  nb = f32[13] broadcast(n), dimensions={}
  mean = f32[13] divide(s, nb)
  mb = f32[13,$C] broadcast(mean), dimensions={0}
  c = f32[13,$C] subtract(a, mb)
  sq = f32[13,$C] multiply(c, c)
  v = f32[13] reduce(sq, z), dimensions={1}, to_apply=add
  var = f32[13] divide(v, nb)
  eb = f32[13] broadcast(eps), dimensions={}
  ve = f32[13] add(var, eb)
  r = f32[13] rsqrt(ve)
  rb = f32[13,$C] broadcast(r), dimensions={0}
  gb = f32[13,$C] broadcast(g), dimensions={1}
  y = f32[13,$C] multiply(c, rb)
  o = f32[13,$C] multiply(y, gb)
  ROOT t = (f32[13,$C], f32[13]) tuple(o, mean)
)",
                  R"(
  a = f32[13,$C] parameter(0)
  g = f32[$C] parameter(1)
  ROOT f = (f32[13,$C], f32[13]) fusion(a, g), kind=kInput, calls=fused
)",
                  {{"$C", absl::StrCat(cols)}});
}

FusionTestCaseText FusionTestWholeReduction(const std::string& init, const std::string& reducer) {
  return Substitute(R"(
  a = f32[1001] parameter(0)
  z = f32[] constant($INIT)
  ROOT s = f32[] reduce(a, z), dimensions={0}, to_apply=$REDUCER
)",
                    R"(
  a = f32[1001] parameter(0)
  ROOT f = f32[] fusion(a), kind=kInput, calls=fused
)",
                    {{"$INIT", init}, {"$REDUCER", reducer}});
}

FusionTestCaseText FusionTestRowSumAndMax(int64_t cols) {
  return Substitute(R"(
  a = f32[3,11,$C] parameter(0)
  z = f32[] constant(0)
  m = f32[] constant(-inf)
  s = f32[3,11] reduce(a, z), dimensions={2}, to_apply=add
  x = f32[3,11] reduce(a, m), dimensions={2}, to_apply=max
  ROOT t = (f32[3,11], f32[3,11]) tuple(s, x)
)",
                  R"(
  a = f32[3,11,$C] parameter(0)
  ROOT f = (f32[3,11], f32[3,11]) fusion(a), kind=kInput, calls=fused
)",
                  {{"$C", absl::StrCat(cols)}});
}

}  // namespace xla::gpu
