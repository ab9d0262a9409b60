// Host fusion kernels for convolution, reduce-window, gather and sort vs the
// reference evaluator, through the real shared object (RunFusionOnHost):
// odd shapes, padding, strides, dilations, feature groups (depthwise), batch
// groups, bf16, clamped gather indices, a stable multi-operand sort
// with ties, and select-and-scatter (max-pool gradient with ties). Convolutions accumulate in f64 in the evaluator's order and
// every other op follows it exactly, so all cases are bit-exact.
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/codegen/fusion_emitter_test_util.h"
#include "xla/backends/gpu/codegen/host/host_fusion_test_util.h"
#include "xla/backends/gpu/codegen/host/single_op_fusion.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla::gpu {
namespace {

// Runs `text` (a whole module whose entry root is a fusion) and checks the
// kind and that the kernel's result equals the evaluator's bit for bit.
// `edit` may change the random inputs first.
void CheckModule(const std::string& text, const std::string& kind,
                 const std::function<void(std::vector<Literal>&)>& edit = nullptr) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
  ASSERT_TRUE(m.ok()) << m.status() << "\n" << text;
  FusionRunOptions options;
  options.emit.target_block_bytes = 256;  // many blocks
  absl::StatusOr<std::vector<Literal>> inputs = MakeRandomInputs(**m, 7);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  if (edit) edit(*inputs);
  options.inputs = std::move(*inputs);
  absl::StatusOr<FusionRun> run = RunFusionOnHost(**m, options);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->info.kind, kind);
  EXPECT_GT(run->info.total_blocks, 0);
  EXPECT_TRUE(run->expected == run->actual)
      << "expected " << run->expected.ToString() << "\nactual " << run->actual.ToString();
}

void Check(const std::string& fused, const std::string& entry, const std::string& kind,
           const std::function<void(std::vector<Literal>&)>& edit = nullptr) {
  CheckModule(FusionTestModuleText(fused, entry), kind, edit);
}

TEST(HostWindowOps, ConvPaddingStrideDilation) {
  Check(R"(
  x = f32[2,11,9,5] parameter(0)
  w = f32[3,2,5,7] parameter(1)
  ROOT c = f32[2,5,9,7] convolution(x, w), window={size=3x2 stride=2x2 pad=2_1x1_0 rhs_dilate=2x1 lhs_dilate=1x2}, dim_labels=b01f_01io->b01f
)", R"(
  x = f32[2,11,9,5] parameter(0)
  w = f32[3,2,5,7] parameter(1)
  ROOT f = f32[2,5,9,7] fusion(x, w), kind=kLoop, calls=fused
)", "convolution");
}

TEST(HostWindowOps, ConvDepthwiseWithFusedProducer) {
  // MobileNet's depthwise 3x3: feature_group_count = features; the input is
  // a fused elementwise producer.
  Check(R"(
  x = f32[3,9,7,6] parameter(0)
  w = f32[3,3,1,6] parameter(1)
  r = f32[3,9,7,6] multiply(x, x)
  ROOT c = f32[3,9,7,6] convolution(r, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=6
)", R"(
  x = f32[3,9,7,6] parameter(0)
  w = f32[3,3,1,6] parameter(1)
  ROOT f = f32[3,9,7,6] fusion(x, w), kind=kLoop, calls=fused
)", "convolution");
}

TEST(HostWindowOps, ConvDepthwiseWindowLoopsStayRolled) {
  // The feature-block kernel's window-tap and input-feature loops carry
  // llvm.loop.unroll.disable (LLVM would otherwise copy the vectorized
  // feature loop once per tap); the feature loop itself carries none, and
  // the result still equals the evaluator's bit for bit.
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(FusionTestModuleText(R"(
  x = f32[2,11,9,13] parameter(0)
  w = f32[3,3,1,13] parameter(1)
  ROOT c = f32[2,6,5,13] convolution(x, w), window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=13
)", R"(
  x = f32[2,11,9,13] parameter(0)
  w = f32[3,3,1,13] parameter(1)
  ROOT f = f32[2,6,5,13] fusion(x, w), kind=kLoop, calls=fused
)"));
  ASSERT_TRUE(m.ok()) << m.status();
  FusionRunOptions options;
  options.emit.target_block_bytes = 256;
  absl::StatusOr<FusionRun> run = RunFusionOnHost(**m, options);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->info.kind, "convolution");
  EXPECT_TRUE(run->expected == run->actual)
      << "expected " << run->expected.ToString() << "\nactual " << run->actual.ToString();
  // Latches are `br i1 %c, label %<loop>.body, label %<loop>.exit[, !llvm.loop !N]`.
  auto latch_has_loop_md = [&](const std::string& loop) -> int {
    int found = 0;
    for (absl::string_view line : absl::StrSplit(run->ir, '\n')) {
      if (!absl::StrContains(line, absl::StrCat("label %", loop, ".body, label %", loop, ".exit"))) {
        continue;
      }
      found = absl::StrContains(line, "!llvm.loop !") ? 1 : -1;
    }
    return found;  // 1: metadata, -1: a latch without it, 0: no latch
  };
  EXPECT_EQ(latch_has_loop_md("tap0"), 1) << run->ir;
  EXPECT_EQ(latch_has_loop_md("tap1"), 1) << run->ir;
  EXPECT_EQ(latch_has_loop_md("conv_i"), 1) << run->ir;
  EXPECT_EQ(latch_has_loop_md("conv_o"), -1) << run->ir;
  EXPECT_TRUE(absl::StrContains(run->ir, "!{!\"llvm.loop.unroll.disable\"}")) << run->ir;
}

TEST(HostWindowOps, ConvGroupsBf16) {
  Check(R"(
  x = bf16[1,13,6] parameter(0)
  w = bf16[4,2,9] parameter(1)
  ROOT c = bf16[1,6,9] convolution(x, w), window={size=4 stride=2 pad=1_0}, dim_labels=b0f_0io->b0f, feature_group_count=3
)", R"(
  x = bf16[1,13,6] parameter(0)
  w = bf16[4,2,9] parameter(1)
  ROOT f = bf16[1,6,9] fusion(x, w), kind=kLoop, calls=fused
)", "convolution");
}

TEST(HostWindowOps, ConvBatchGroupsAndOtherLabels) {
  // A weight-gradient style convolution: batch_group_count, f <-> b swapped
  // labels, window reversal.
  Check(R"(
  x = f32[5,4,8] parameter(0)
  w = f32[5,3,6] parameter(1)
  ROOT c = f32[4,4,6] convolution(x, w), window={size=3 pad=1_1 rhs_reversal=1}, dim_labels=f0b_i0o->0bf, batch_group_count=2
)", R"(
  x = f32[5,4,8] parameter(0)
  w = f32[5,3,6] parameter(1)
  ROOT f = f32[4,4,6] fusion(x, w), kind=kLoop, calls=fused
)", "convolution");
}

TEST(HostWindowOps, ConvS32) {
  Check(R"(
  x = s32[2,7,3] parameter(0)
  w = s32[2,3,5] parameter(1)
  ROOT c = s32[2,8,5] convolution(x, w), window={size=2 pad=1_1}, dim_labels=b0f_0io->b0f
)", R"(
  x = s32[2,7,3] parameter(0)
  w = s32[2,3,5] parameter(1)
  ROOT f = s32[2,8,5] fusion(x, w), kind=kLoop, calls=fused
)", "convolution");
}

TEST(HostWindowOps, ConvManyFeaturesChunkedAndConvInLoopFusion) {
  // 131 output features: two feature chunks (128 + 3) per position.
  Check(R"(
  x = f32[1,5,4,9] parameter(0)
  w = f32[3,3,9,131] parameter(1)
  ROOT c = f32[1,5,4,131] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
)", R"(
  x = f32[1,5,4,9] parameter(0)
  w = f32[3,3,9,131] parameter(1)
  ROOT f = f32[1,5,4,131] fusion(x, w), kind=kLoop, calls=fused
)", "convolution");
  // A convolution consumed by elementwise ops: the element generator.
  Check(R"(
  x = f32[2,7,6,4] parameter(0)
  w = f32[2,2,4,5] parameter(1)
  c = f32[2,4,3,5] convolution(x, w), window={size=2x2 stride=2x2 pad=0_1x0_0}, dim_labels=b01f_01io->b01f
  z = f32[] constant(0)
  zb = f32[2,4,3,5] broadcast(z), dimensions={}
  ROOT r = f32[2,4,3,5] maximum(c, zb)
)", R"(
  x = f32[2,7,6,4] parameter(0)
  w = f32[2,2,4,5] parameter(1)
  ROOT f = f32[2,4,3,5] fusion(x, w), kind=kLoop, calls=fused
)", "loop");
}

TEST(HostWindowOps, MaxPoolAndAvgPoolWithPadding) {
  Check(R"(
  x = f32[2,11,9,3] parameter(0)
  ninf = f32[] constant(-inf)
  ROOT m = f32[2,6,5,3] reduce-window(x, ninf), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, to_apply=max
)", R"(
  x = f32[2,11,9,3] parameter(0)
  ROOT f = f32[2,6,5,3] fusion(x), kind=kLoop, calls=fused
)", "loop");
  Check(R"(
  x = f32[2,9,7,5] parameter(0)
  zero = f32[] constant(0)
  s = f32[2,9,7,5] reduce-window(x, zero), window={size=1x3x3x1 pad=0_0x1_1x1_1x0_0}, to_apply=add
  nine = f32[] constant(9)
  d = f32[2,9,7,5] broadcast(nine), dimensions={}
  ROOT a = f32[2,9,7,5] divide(s, d)
)", R"(
  x = f32[2,9,7,5] parameter(0)
  ROOT f = f32[2,9,7,5] fusion(x), kind=kLoop, calls=fused
)", "loop");
}

TEST(HostWindowOps, ReduceWindowDilatedBf16) {
  Check(R"(
  x = bf16[13,10] parameter(0)
  z = bf16[] constant(0.5)
  ROOT s = bf16[9,11] reduce-window(x, z), window={size=3x2 stride=3x2 pad=1_2x2_3 lhs_dilate=2x2 rhs_dilate=1x2}, to_apply=add_bf16
)", R"(
  x = bf16[13,10] parameter(0)
  ROOT f = bf16[9,11] fusion(x), kind=kLoop, calls=fused
)", "loop");
}

// Gather of rows of a [7,5] operand by s32 [4,3,2] start indices (vector in
// dim 2), slices 2x3; indices include negative and too-large values.
TEST(HostWindowOps, GatherClampsStartIndices) {
  Check(R"(
  op = f32[7,5] parameter(0)
  idx = s32[4,3,2] parameter(1)
  ROOT g = f32[4,2,3,3] gather(op, idx), offset_dims={1,3}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=2, slice_sizes={2,3}
)", R"(
  op = f32[7,5] parameter(0)
  idx = s32[4,3,2] parameter(1)
  ROOT f = f32[4,2,3,3] fusion(op, idx), kind=kLoop, calls=fused
)", "loop", [](std::vector<Literal>& in) {
    const int64_t values[] = {-3, 9, 6, 2, 0, 4, 100, -100, 5, 3, 1, 1,
                              -1, 0, 7, 7, 2, -2, 4, 8, 3, 3, 6, 0};
    for (int64_t i = 0; i < 24; ++i) in[1].SetInt(i, values[i]);
  });
}

TEST(HostWindowOps, GatherCollapsedScalarIndices) {
  // Embedding lookup: collapsed dim 0, index_vector_dim = rank.
  Check(R"(
  op = bf16[9,6] parameter(0)
  idx = s32[5] parameter(1)
  ROOT g = bf16[5,6] gather(op, idx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,6}
)", R"(
  op = bf16[9,6] parameter(0)
  idx = s32[5] parameter(1)
  ROOT f = bf16[5,6] fusion(op, idx), kind=kLoop, calls=fused
)", "loop", [](std::vector<Literal>& in) {
    const int64_t values[] = {3, -1, 8, 12, 0};
    for (int64_t i = 0; i < 5; ++i) in[1].SetInt(i, values[i]);
  });
}

TEST(HostWindowOps, GatherBatchingDims) {
  Check(R"(
  op = f32[3,8,4] parameter(0)
  idx = s32[3,5,1] parameter(1)
  ROOT g = f32[3,5,2,4] gather(op, idx), offset_dims={2,3}, collapsed_slice_dims={}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,2,4}
)", R"(
  op = f32[3,8,4] parameter(0)
  idx = s32[3,5,1] parameter(1)
  ROOT f = f32[3,5,2,4] fusion(op, idx), kind=kLoop, calls=fused
)", "loop");
}

// Sorts keys (few distinct values: many ties) descending with a payload
// that records the original position: a stable sort keeps tied payloads in
// order, which the evaluator's std::stable_sort does too.
// Max-pool gradient: overlapping 3x3 windows with stride 2 and padding,
// so some outputs receive several source values and padded taps are
// skipped; inputs rounded to a few values to force ties (the first tap in
// row-major order wins under GE).
TEST(HostWindowOps, SelectAndScatterMaxPoolGradWithTies) {
  const std::string text = FusionTestMaxPoolGradModule(R"(
  x = f32[2,9,7,3] parameter(0)
  g = f32[2,5,4,3] parameter(1)
  z = f32[] constant(0.25)
  g2 = f32[2,5,4,3] multiply(g, g)
  ROOT s = f32[2,9,7,3] select-and-scatter(x, g2, z), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, select=ge, scatter=add
)");
  CheckModule(text, "select_and_scatter", [](std::vector<Literal>& in) {
    for (int64_t i = 0; i < in[0].element_count(); ++i) {
      in[0].SetDouble(i, static_cast<double>(static_cast<int>(in[0].GetDouble(i) * 3)));
    }
  });
}

// A min selection (LE) with a non-commutative scatter (subtract) on s32,
// odd window without overlap at the edges.
TEST(HostWindowOps, SelectAndScatterMinWithNonCommutativeScatter) {
  const std::string text = std::string("HloModule m\n") + R"(
le {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LE
}
sub {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] subtract(a, b)
}
fused {
  x = s32[11,5] parameter(0)
  g = s32[5,3] parameter(1)
  z = s32[] constant(7)
  ROOT s = s32[11,5] select-and-scatter(x, g, z), window={size=3x2 stride=2x2 pad=0_0x0_1}, select=le, scatter=sub
}
ENTRY e {
  x = s32[11,5] parameter(0)
  g = s32[5,3] parameter(1)
  ROOT f = s32[11,5] fusion(x, g), kind=kLoop, calls=fused
}
)";
  CheckModule(text, "select_and_scatter");
}

TEST(HostWindowOps, SortMultiOperandStableDescending) {
  const std::string text = std::string("HloModule m\n") + R"(
cmp {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  ROOT gt = pred[] compare(a, b), direction=GT
}
fused {
  k = s32[5,37] parameter(0)
  v = f32[5,37] parameter(1)
  ROOT s = (s32[5,37], f32[5,37]) sort(k, v), dimensions={1}, is_stable=true, to_apply=cmp
}
ENTRY e {
  k = s32[5,37] parameter(0)
  v = f32[5,37] parameter(1)
  ROOT f = (s32[5,37], f32[5,37]) fusion(k, v), kind=kLoop, calls=fused
}
)";
  CheckModule(text, "sort");
}

TEST(HostWindowOps, SortSingleF32TotalOrderAlongDim0) {
  const std::string text = std::string("HloModule m\n") + R"(
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT, type=TOTALORDER
}
fused {
  k = f32[23,3] parameter(0)
  n = f32[23,3] negate(k)
  ROOT s = f32[23,3] sort(n), dimensions={0}, to_apply=cmp
}
ENTRY e {
  k = f32[23,3] parameter(0)
  ROOT f = f32[23,3] fusion(k), kind=kLoop, calls=fused
}
)";
  CheckModule(text, "sort");
}

TEST(HostWindowOps, LoneOpsCanBeWrapped) {
  const std::string text = std::string("HloModule m\n") + R"(
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY e {
  k = f32[4,9] parameter(0)
  w = f32[9,3] parameter(1)
  i = s32[2,1] parameter(2)
  ROOT s = f32[4,9] sort(k), dimensions={1}, to_apply=cmp
}
)";
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
  ASSERT_TRUE(m.ok()) << m.status();
  HloInstruction* sort = (*m)->entry_computation()->root_instruction();
  EXPECT_TRUE(CanWrapInFusion(*sort));
  absl::StatusOr<HloInstruction*> fusion = WrapInFusion(sort);
  ASSERT_TRUE(fusion.ok()) << fusion.status();
  FusionRunOptions options;
  absl::StatusOr<FusionRun> run = RunFusionOnHost(**m, options);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->info.kind, "sort");
  EXPECT_TRUE(run->expected == run->actual);
}

}  // namespace
}  // namespace xla::gpu
