#include "xla/backends/gpu/codegen/host/single_op_fusion.h"

#include "gtest/gtest.h"
#include "xla/backends/gpu/codegen/host/host_fusion_test_util.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/verifier/hlo_verifier.h"

namespace xla::gpu {
namespace {

// Wraps the entry root of `text`, verifies the module and runs the fusion on
// the host against the evaluator (bit-exact: reductions fold sequentially,
// in the evaluator's order; lane_reduce_ir_test covers the lane reductions).
void WrapAndRun(const std::string& text, const std::string& kind) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
  ASSERT_TRUE(m.ok()) << m.status();
  HloInstruction* root = (*m)->entry_computation()->root_instruction();
  const std::string name = root->name();
  absl::StatusOr<HloInstruction*> fusion = WrapInFusion(root);
  ASSERT_TRUE(fusion.ok()) << fusion.status();
  EXPECT_EQ((*fusion)->opcode(), HloOpcode::kFusion);
  EXPECT_EQ((*fusion)->name(), "wrapped_" + name);
  EXPECT_EQ((*m)->entry_computation()->root_instruction(), *fusion);
  absl::Status verified = VerifyModule(**m);
  ASSERT_TRUE(verified.ok()) << verified;
  FusionRunOptions options;
  options.emit.reduction_vector_bytes = 0;
  absl::StatusOr<FusionRun> run = RunFusionOnHost(**m, options);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->info.kind, kind);
  EXPECT_TRUE(run->expected == run->actual) << run->expected.ToString() << "\n"
                                            << run->actual.ToString();
}

TEST(SingleOpFusion, ElementwiseWithRepeatedOperand) {
  WrapAndRun(R"(HloModule m
ENTRY e {
  a = s32[7,9] parameter(0)
  ROOT m = s32[7,9] multiply(a, a)
})", "loop");
}

TEST(SingleOpFusion, ReduceTransposeDynamicSlice) {
  WrapAndRun(R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[9,31] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[9] reduce(a, z), dimensions={1}, to_apply=add
})", "row_reduction");
  WrapAndRun(R"(HloModule m
ENTRY e {
  a = bf16[9,31] parameter(0)
  ROOT t = bf16[31,9] transpose(a), dimensions={1,0}
})", "transpose");
  WrapAndRun(R"(HloModule m
ENTRY e {
  a = f32[9,31] parameter(0)
  i = s32[] parameter(1)
  j = s32[] parameter(2)
  ROOT d = f32[3,5] dynamic-slice(a, i, j), dynamic_slice_sizes={3,5}
})", "loop");
}

TEST(SingleOpFusion, RejectsDot) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(R"(HloModule m
ENTRY e {
  a = f32[4,5] parameter(0)
  b = f32[5,3] parameter(1)
  ROOT d = f32[4,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
  ASSERT_TRUE(m.ok()) << m.status();
  HloInstruction* root = (*m)->entry_computation()->root_instruction();
  EXPECT_FALSE(CanWrapInFusion(*root));
  absl::StatusOr<HloInstruction*> r = WrapInFusion(root);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("dot"), std::string::npos) << r.status();
}

}  // namespace
}  // namespace xla::gpu
