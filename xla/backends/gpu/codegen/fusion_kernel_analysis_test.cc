// AnalyzeFusionKernel and CollectOutputLeaves on small fusions, one per
// kind, plus the cases where ClassifyFusion (xla/service/fusion) differs,
// asserted on both so the documented differences stay true.
#include "xla/backends/gpu/codegen/fusion_kernel_analysis.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/service/fusion/fusion_analysis.h"

namespace xla::gpu {
namespace {

constexpr char kAdd[] = R"(
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
)";

struct Analyzed {
  std::unique_ptr<HloModule> module;
  std::vector<OutputLeaf> leaves;
  FusionKernelAnalysis analysis;
  std::string service_kind;  // ClassifyFusion's name
};

Analyzed Analyze(const std::string& fused, const std::string& entry,
                 std::vector<int64_t> aliases = {}) {
  Analyzed r;
  const std::string text = std::string("HloModule m\n") + kAdd + "fused {\n" + fused +
                           "}\nENTRY e {\n" + entry + "}\n";
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status() << "\n" << text;
  if (!m.ok()) return r;
  r.module = std::move(*m);
  const HloInstruction& fusion = *r.module->entry_computation()->root_instruction();
  const HloComputation& body = *fusion.GetComputation(AttrId::kCalls);
  absl::StatusOr<std::vector<OutputLeaf>> leaves = CollectOutputLeaves("test", fusion, body);
  EXPECT_TRUE(leaves.ok()) << leaves.status();
  if (!leaves.ok()) return r;
  r.leaves = *leaves;
  r.analysis = AnalyzeFusionKernel(body, r.leaves, CollectReduces(body), aliases);
  absl::StatusOr<FusionKindAnalysis> service = ClassifyFusion(fusion);
  EXPECT_TRUE(service.ok()) << service.status();
  if (service.ok()) r.service_kind = std::string(FusionKindName(service->kind));
  return r;
}

std::string Kind(const Analyzed& a) { return std::string(FusionKernelKindName(a.analysis.kind)); }

TEST(FusionKernelAnalysis, LoopAndTranspose) {
  Analyzed loop = Analyze(R"(
  a = f32[37,129] parameter(0)
  ROOT n = f32[37,129] negate(a)
)", R"(
  a = f32[37,129] parameter(0)
  ROOT f = f32[37,129] fusion(a), kind=kLoop, calls=fused
)");
  EXPECT_EQ(Kind(loop), "loop");
  Analyzed t = Analyze(R"(
  a = s32[37,3,129] parameter(0)
  ROOT t = s32[129,37,3] transpose(a), dimensions={2,0,1}
)", R"(
  a = s32[37,3,129] parameter(0)
  ROOT f = s32[129,37,3] fusion(a), kind=kLoop, calls=fused
)");
  EXPECT_EQ(Kind(t), "transpose");
  EXPECT_EQ(t.analysis.transpose_dim, 0);
}

TEST(FusionKernelAnalysis, RowColumnWholeGeneric) {
  Analyzed row = Analyze(R"(
  a = f32[3,11,129] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[3,11] reduce(a, z), dimensions={2}, to_apply=add
)", R"(
  a = f32[3,11,129] parameter(0)
  ROOT f = f32[3,11] fusion(a), kind=kInput, calls=fused
)");
  EXPECT_EQ(Kind(row), "row_reduction");
  EXPECT_EQ(row.analysis.kept_dims, 2);
  EXPECT_EQ(row.analysis.reduce_input_dims, (std::vector<int64_t>{3, 11, 129}));
  Analyzed col = Analyze(R"(
  a = f32[5,129,37] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[5,37] reduce(a, z), dimensions={1}, to_apply=add
)", R"(
  a = f32[5,129,37] parameter(0)
  ROOT f = f32[5,37] fusion(a), kind=kInput, calls=fused
)");
  EXPECT_EQ(Kind(col), "column_reduction");
  Analyzed whole = Analyze(R"(
  a = f32[7,9] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(a, z), dimensions={0,1}, to_apply=add
)", R"(
  a = f32[7,9] parameter(0)
  ROOT f = f32[] fusion(a), kind=kInput, calls=fused
)");
  EXPECT_EQ(Kind(whole), "whole_reduction");
  Analyzed generic = Analyze(R"(
  a = f32[5,6,7] parameter(0)
  z = f32[] constant(0)
  ROOT s = f32[6] reduce(a, z), dimensions={0,2}, to_apply=add
)", R"(
  a = f32[5,6,7] parameter(0)
  ROOT f = f32[6] fusion(a), kind=kInput, calls=fused
)");
  EXPECT_EQ(Kind(generic), "generic_reduction");
}

// A row reduction that also writes a full-row-shaped output: ClassifyFusion
// lumps it with plain row reductions (every reduce is a root); the kernels
// must write the full output per element, so it is row_normalization here.
TEST(FusionKernelAnalysis, DiffersFromClassifyFusionOnFullRowOutputs) {
  Analyzed a = Analyze(R"(
  a = f32[37,129] parameter(0)
  z = f32[] constant(0)
  e = f32[37,129] exponential(a)
  r = f32[37] reduce(a, z), dimensions={1}, to_apply=add
  ROOT t = (f32[37], f32[37,129]) tuple(r, e)
)", R"(
  a = f32[37,129] parameter(0)
  ROOT f = (f32[37], f32[37,129]) fusion(a), kind=kInput, calls=fused
)");
  EXPECT_EQ(a.leaves.size(), 2u);
  EXPECT_EQ(Kind(a), "row_normalization");
  EXPECT_EQ(a.service_kind, "row_reduction");
}

// A non-root reduce feeding only row-shaped outputs: row_normalization for
// ClassifyFusion, a plain row reduction for the kernels.
TEST(FusionKernelAnalysis, DiffersFromClassifyFusionOnNonRootReduce) {
  Analyzed a = Analyze(R"(
  a = f32[37,129] parameter(0)
  z = f32[] constant(0)
  r = f32[37] reduce(a, z), dimensions={1}, to_apply=add
  ROOT n = f32[37] negate(r)
)", R"(
  a = f32[37,129] parameter(0)
  ROOT f = f32[37] fusion(a), kind=kInput, calls=fused
)");
  EXPECT_EQ(Kind(a), "row_reduction");
  EXPECT_EQ(a.service_kind, "row_normalization");
}

// Dynamic-update-slice in place only with the alias; ClassifyFusion does not
// know about buffers.
TEST(FusionKernelAnalysis, InPlaceNeedsTheAlias) {
  const std::string fused = R"(
  op = f32[37,129] parameter(0)
  u = f32[5,17] parameter(1)
  i = s32[] parameter(2)
  ROOT d = f32[37,129] dynamic-update-slice(op, u, i, i)
)";
  const std::string entry = R"(
  op = f32[37,129] parameter(0)
  u = f32[5,17] parameter(1)
  i = s32[] parameter(2)
  ROOT f = f32[37,129] fusion(op, u, i), kind=kLoop, calls=fused
)";
  Analyzed aliased = Analyze(fused, entry, {0});
  EXPECT_EQ(Kind(aliased), "dus_in_place");
  Analyzed copy = Analyze(fused, entry);
  EXPECT_EQ(Kind(copy), "loop");
  EXPECT_EQ(copy.service_kind, "dynamic_update_slice_in_place");
}

TEST(FusionKernelAnalysis, OutputLeavesOfAVariadicReduceAndErrors) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(R"(
HloModule m
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
fused {
  a = f32[37,129] parameter(0)
  i = s32[37,129] iota(), iota_dimension=1
  m = f32[] constant(-inf)
  z = s32[] constant(0)
  ROOT r = (f32[37], s32[37]) reduce(a, i, m, z), dimensions={1}, to_apply=argmax
}
ENTRY e {
  a = f32[37,129] parameter(0)
  ROOT f = (f32[37], s32[37]) fusion(a), kind=kInput, calls=fused
}
)");
  ASSERT_TRUE(m.ok()) << m.status();
  const HloInstruction& fusion = *(*m)->entry_computation()->root_instruction();
  const HloComputation& body = *fusion.GetComputation(AttrId::kCalls);
  absl::StatusOr<std::vector<OutputLeaf>> leaves = CollectOutputLeaves("test", fusion, body);
  ASSERT_TRUE(leaves.ok()) << leaves.status();
  ASSERT_EQ(leaves->size(), 2u);
  EXPECT_EQ((*leaves)[1].value, 1);
  EXPECT_EQ((*leaves)[1].shape.element_type(), PrimitiveType::S32);
  const std::vector<const HloInstruction*> reduces = CollectReduces(body);
  EXPECT_EQ(FusionKernelKindName(AnalyzeFusionKernel(body, *leaves, reduces, {}).kind),
            "row_reduction");
  const absl::Status bad =
      FusionEmitterUnimplemented("test", *body.root_instruction(), "because");
  EXPECT_EQ(bad.code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(bad.message().find("test fusion emitter: r (reduce): because"), std::string::npos)
      << bad;
}

}  // namespace
}  // namespace xla::gpu
