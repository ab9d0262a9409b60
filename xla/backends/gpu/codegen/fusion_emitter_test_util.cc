#include "xla/backends/gpu/codegen/fusion_emitter_test_util.h"

#include <utility>

#include "absl/status/statusor.h"
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

}  // namespace xla::gpu
