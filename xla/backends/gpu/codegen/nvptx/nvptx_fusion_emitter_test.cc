// NVPTX fusion kernels, checked without a GPU: each case emits a fusion,
// links libdevice, compiles for sm_80 and sm_90, requires ptxas to accept
// the PTX (the test FAILS when ptxas is missing, saying where it looked),
// checks the PTX for the instructions the kernel kind is built on, and
// asserts with `ptxas -v` that the kernel does not spill. Numerical
// correctness is NOT checked here (there is no GPU); the elementwise code
// is the shared elemental emitter, tested against the evaluator on the host.
#include "xla/backends/gpu/codegen/nvptx/nvptx_fusion_emitter.h"

#include <iostream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "xla/backends/gpu/codegen/fusion_emitter_test_util.h"
#include "xla/backends/gpu/codegen/nvptx/libdevice_math.h"
#include "xla/backends/gpu/codegen/nvptx/nvptx_compiler.h"
#include "xla/backends/gpu/codegen/nvptx/ptxas_resource_usage.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla::gpu {
namespace {

struct Compiled {
  NvptxKernelInfo info;
  std::string ptx;  // sm_90
};

bool Has(const std::string& ptx, absl::string_view what) {
  return ptx.find(std::string(what)) != std::string::npos;
}

// Emits the entry root fusion for sm_80 and sm_90, links libdevice, runs
// ptxas (required) and ptxas -v (no spills unless `may_spill`).
Compiled Emit(const std::string& fused, const std::string& entry, const std::string& kind,
              NvptxEmitOptions options = {}, bool may_spill = false) {
  std::unique_ptr<HloModule> m = ParseFusionTestModule(fused, entry);
  if (m == nullptr) return {};
  absl::StatusOr<std::string> ptxas = FindPtxas(NvptxCompileOptions());
  EXPECT_TRUE(ptxas.ok()) << "ptxas is required: " << ptxas.status();
  if (!ptxas.ok()) return {};
  const HloInstruction* fusion = m->entry_computation()->root_instruction();
  Compiled result;
  for (const char* name : {"sm_80", "sm_90"}) {
    options.target = *FindNvptxTarget(name);
    llvm::LLVMContext ctx;
    llvm::Module module("fusion", ctx);
    absl::StatusOr<NvptxKernelInfo> info =
        EmitNvptxFusionKernel(*fusion, "fusion_kernel", options, &module);
    EXPECT_TRUE(info.ok()) << info.status();
    if (!info.ok()) return {};
    EXPECT_EQ(info->kind, kind);
    absl::Status linked = LinkLibdevice(module);
    EXPECT_TRUE(linked.ok()) << linked;
    absl::StatusOr<NvptxBinary> binary = CompileNvptx(module, options.target, NvptxCompileOptions());
    EXPECT_TRUE(binary.ok()) << name << ": " << binary.status();
    if (!binary.ok()) return {};
    EXPECT_TRUE(binary->cubin.has_value()) << binary->cubin_skipped_reason;
    EXPECT_TRUE(Has(binary->ptx, ".entry fusion_kernel")) << binary->ptx;
    EXPECT_TRUE(Has(binary->ptx, absl::StrCat(".maxntid ", info->launch.block_x, ", 1, 1")))
        << binary->ptx;
    EXPECT_FALSE(Has(binary->ptx, ".extern")) << binary->ptx;
    absl::StatusOr<std::vector<KernelResourceUsage>> usage =
        PtxasResourceUsage(binary->ptx, options.target, *ptxas);
    EXPECT_TRUE(usage.ok()) << usage.status();
    if (usage.ok() && !usage->empty()) {
      const KernelResourceUsage& u = usage->back();
      std::cout << "[usage] " << kind << " " << name << " grid=" << info->launch.grid_x
                << " block=" << info->launch.block_x << " registers=" << u.registers
                << " spill_stores=" << u.spill_store_bytes << " spill_loads=" << u.spill_load_bytes
                << " stack=" << u.stack_frame_bytes << " smem=" << u.shared_bytes << "\n";
      if (!may_spill) {
        EXPECT_EQ(u.spill_store_bytes, 0) << kind << " " << name;
        EXPECT_EQ(u.spill_load_bytes, 0) << kind << " " << name;
      }
      EXPECT_EQ(u.shared_bytes, info->static_shared_bytes) << kind << " " << name;
    }
    result.info = *info;
    result.ptx = binary->ptx;
  }
  return result;
}

TEST(NvptxFusionEmitter, LoopWithBroadcastIsThreadIndexedScalar) {
  Compiled c = Emit(R"(
  a = f32[37,129] parameter(0)
  b = f32[129] parameter(1)
  bb = f32[37,129] broadcast(b), dimensions={1}
  s = f32[37,129] add(a, bb)
  ROOT m = f32[37,129] multiply(s, a)
)", R"(
  a = f32[37,129] parameter(0)
  b = f32[129] parameter(1)
  ROOT f = f32[37,129] fusion(a, b), kind=kLoop, calls=fused
)", "loop");
  EXPECT_EQ(c.info.launch.grid_x, 19);  // ceil(4773 / 256)
  EXPECT_EQ(c.info.launch.block_x, 256);
  EXPECT_EQ(c.info.choice.vector_width, 1);
  ASSERT_EQ(c.info.args.size(), 3u);
  EXPECT_TRUE(c.info.args[2].is_output);
  // Explicit global pointers: kernel params and loads/stores are .global.
  EXPECT_FALSE(Has(c.ptx, "ld.f32")) << c.ptx;  // no generic loads
  EXPECT_TRUE(Has(c.ptx, "ld.global.f32")) << c.ptx;
  EXPECT_TRUE(Has(c.ptx, "st.global.f32")) << c.ptx;
  EXPECT_FALSE(Has(c.ptx, "ld.global.v4")) << c.ptx;
}

TEST(NvptxFusionEmitter, ElementwiseF32LoopIsVectorizedWithLibdeviceExp) {
  NvptxEmitOptions options;
  options.noalias = {true, true, true};
  Compiled c = Emit(R"(
  a = f32[64,132] parameter(0)
  b = f32[64,132] parameter(1)
  e = f32[64,132] exponential(a)
  m = f32[64,132] multiply(e, b)
  z = f32[] constant(0.5)
  zb = f32[64,132] broadcast(z), dimensions={}
  ROOT s = f32[64,132] add(m, zb)
)", R"(
  a = f32[64,132] parameter(0)
  b = f32[64,132] parameter(1)
  ROOT f = f32[64,132] fusion(a, b), kind=kLoop, calls=fused
)", "loop", options);
  EXPECT_EQ(c.info.choice.vector_width, 4);
  EXPECT_EQ(c.info.launch.grid_x, 9);  // 2112 vectors / 256
  // noalias inputs: read-only non-coherent vector loads.
  EXPECT_TRUE(Has(c.ptx, "ld.global.nc.v4.f32")) << c.ptx;
  EXPECT_TRUE(Has(c.ptx, "st.global.v4.f32")) << c.ptx;
  // Same fusion with vectorization off: scalar accesses only.
  options.vectorize = false;
  Compiled scalar = Emit(R"(
  a = f32[64,132] parameter(0)
  ROOT e = f32[64,132] exponential(a)
)", R"(
  a = f32[64,132] parameter(0)
  ROOT f = f32[64,132] fusion(a), kind=kLoop, calls=fused
)", "loop", options);
  EXPECT_FALSE(Has(scalar.ptx, ".v4.f32")) << scalar.ptx;
  EXPECT_TRUE(Has(scalar.ptx, "ld.global.nc.f32")) << scalar.ptx;
}

TEST(NvptxFusionEmitter, MultiOutputLoopOfDifferentShapes) {
  Compiled c = Emit(R"(
  a = f32[37,129] parameter(0)
  s = f32[37,129] add(a, a)
  t = f32[7,3] slice(a), slice={[0:7], [0:3]}
  c = bf16[7,3] convert(t)
  ROOT r = (f32[37,129], bf16[7,3]) tuple(s, c)
)", R"(
  a = f32[37,129] parameter(0)
  ROOT f = (f32[37,129], bf16[7,3]) fusion(a), kind=kLoop, calls=fused
)", "loop");
  EXPECT_EQ(c.info.args.size(), 3u);
  EXPECT_TRUE(Has(c.ptx, "st.global.u16") || Has(c.ptx, "st.global.b16")) << c.ptx;
}

TEST(NvptxFusionEmitter, ShortRowReductionIsAWarpPerRowWithShuffles) {
  Compiled c = Emit(R"(
  a = f32[37,129] parameter(0)
  e = f32[37,129] multiply(a, a)
  z = f32[] constant(0)
  ROOT r = f32[37] reduce(e, z), dimensions={1}, to_apply=add
)", R"(
  a = f32[37,129] parameter(0)
  ROOT f = f32[37] fusion(a), kind=kInput, calls=fused
)", "row_reduction");
  EXPECT_TRUE(c.info.choice.warp_per_row);
  EXPECT_EQ(c.info.launch.grid_x, 5);
  EXPECT_EQ(c.info.launch.block_x, 256);
  EXPECT_TRUE(Has(c.ptx, "shfl.sync.bfly.b32")) << c.ptx;
  EXPECT_FALSE(Has(c.ptx, "bar.sync")) << c.ptx;  // warps are independent
}

TEST(NvptxFusionEmitter, LongRowReductionUsesSharedMemoryAcrossWarps) {
  Compiled c = Emit(R"(
  a = f32[7,3001] parameter(0)
  m = f32[] constant(-inf)
  ROOT r = f32[7] reduce(a, m), dimensions={1}, to_apply=max
)", R"(
  a = f32[7,3001] parameter(0)
  ROOT f = f32[7] fusion(a), kind=kInput, calls=fused
)", "row_reduction");
  EXPECT_FALSE(c.info.choice.warp_per_row);
  EXPECT_EQ(c.info.launch.grid_x, 7);
  EXPECT_EQ(c.info.launch.block_x, 512);  // ceil(3001 / 4) -> 768, capped
  EXPECT_EQ(c.info.static_shared_bytes, 16 * 4);
  EXPECT_TRUE(Has(c.ptx, "shfl.sync.bfly.b32")) << c.ptx;
  EXPECT_TRUE(Has(c.ptx, "st.shared.f32")) << c.ptx;
  EXPECT_TRUE(Has(c.ptx, "ld.shared.f32")) << c.ptx;
  EXPECT_TRUE(Has(c.ptx, "bar.sync")) << c.ptx;
}

TEST(NvptxFusionEmitter, VariadicArgmaxAndMultiOutputRowReductions) {
  Compiled c = Emit(R"(
  a = f32[37,129] parameter(0)
  i = s32[37,129] iota(), iota_dimension=1
  m = f32[] constant(-inf)
  z = s32[] constant(0)
  ROOT r = (f32[37], s32[37]) reduce(a, i, m, z), dimensions={1}, to_apply=argmax
)", R"(
  a = f32[37,129] parameter(0)
  ROOT f = (f32[37], s32[37]) fusion(a), kind=kInput, calls=fused
)", "row_reduction");
  EXPECT_TRUE(Has(c.ptx, "shfl.sync.bfly.b32")) << c.ptx;
  Compiled two = Emit(R"(
  a = f32[3,11,1029] parameter(0)
  z = f32[] constant(0)
  m = f32[] constant(-inf)
  s = f32[3,11] reduce(a, z), dimensions={2}, to_apply=add
  x = f32[3,11] reduce(a, m), dimensions={2}, to_apply=max
  ROOT t = (f32[3,11], f32[3,11]) tuple(s, x)
)", R"(
  a = f32[3,11,1029] parameter(0)
  ROOT f = (f32[3,11], f32[3,11]) fusion(a), kind=kInput, calls=fused
)", "row_reduction");
  EXPECT_EQ(two.info.launch.grid_x, 33);
  EXPECT_TRUE(Has(two.ptx, "bar.sync")) << two.ptx;
}

TEST(NvptxFusionEmitter, SoftmaxAndLayerNormAreRowNormalizations) {
  Compiled softmax = Emit(R"(
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
)", R"(
  a = f32[37,129] parameter(0)
  ROOT f = f32[37,129] fusion(a), kind=kInput, calls=fused
)", "row_normalization");
  EXPECT_TRUE(softmax.info.choice.warp_per_row);
  EXPECT_TRUE(Has(softmax.ptx, "shfl.sync.bfly.b32")) << softmax.ptx;
  EXPECT_TRUE(Has(softmax.ptx, "ex2.approx")) << softmax.ptx;  // libdevice's expf
  Compiled layer_norm = Emit(R"(
  a = f32[13,1257] parameter(0)
  g = f32[1257] parameter(1)
  z = f32[] constant(0)
  n = f32[] constant(1257)
  eps = f32[] constant(1e-5)
  s = f32[13] reduce(a, z), dimensions={1}, to_apply=add
  nb = f32[13] broadcast(n), dimensions={}
  mean = f32[13] divide(s, nb)
  mb = f32[13,1257] broadcast(mean), dimensions={0}
  c = f32[13,1257] subtract(a, mb)
  sq = f32[13,1257] multiply(c, c)
  v = f32[13] reduce(sq, z), dimensions={1}, to_apply=add
  var = f32[13] divide(v, nb)
  eb = f32[13] broadcast(eps), dimensions={}
  ve = f32[13] add(var, eb)
  r = f32[13] rsqrt(ve)
  rb = f32[13,1257] broadcast(r), dimensions={0}
  gb = f32[13,1257] broadcast(g), dimensions={1}
  y = f32[13,1257] multiply(c, rb)
  o = f32[13,1257] multiply(y, gb)
  ROOT t = (f32[13,1257], f32[13]) tuple(o, mean)
)", R"(
  a = f32[13,1257] parameter(0)
  g = f32[1257] parameter(1)
  ROOT f = (f32[13,1257], f32[13]) fusion(a, g), kind=kInput, calls=fused
)", "row_normalization");
  EXPECT_FALSE(layer_norm.info.choice.warp_per_row);
  EXPECT_EQ(layer_norm.info.launch.grid_x, 13);
  EXPECT_TRUE(Has(layer_norm.ptx, "bar.sync")) << layer_norm.ptx;
  EXPECT_TRUE(Has(layer_norm.ptx, "shfl.sync.bfly.b32")) << layer_norm.ptx;
}

TEST(NvptxFusionEmitter, ColumnReductionsGoThroughASharedTile) {
  Compiled c = Emit(R"(
  a = f32[129,37] parameter(0)
  z = f32[] constant(0)
  m = f32[] constant(-inf)
  s = f32[37] reduce(a, z), dimensions={0}, to_apply=add
  x = f32[37] reduce(a, m), dimensions={0}, to_apply=max
  ROOT t = (f32[37], f32[37]) tuple(s, x)
)", R"(
  a = f32[129,37] parameter(0)
  ROOT f = (f32[37], f32[37]) fusion(a), kind=kInput, calls=fused
)", "column_reduction");
  EXPECT_EQ(c.info.launch.grid_x, 2);
  EXPECT_EQ(c.info.launch.block_x, 256);
  EXPECT_EQ(c.info.static_shared_bytes, 2 * 8 * 33 * 4);
  EXPECT_TRUE(Has(c.ptx, "st.shared.f32")) << c.ptx;
  EXPECT_TRUE(Has(c.ptx, "ld.shared.f32")) << c.ptx;
  EXPECT_TRUE(Has(c.ptx, "bar.sync")) << c.ptx;
  Compiled batched = Emit(R"(
  a = s32[5,33,19] parameter(0)
  z = s32[] constant(0)
  ROOT s = s32[5,19] reduce(a, z), dimensions={1}, to_apply=add_s32
)", R"(
  a = s32[5,33,19] parameter(0)
  ROOT f = s32[5,19] fusion(a), kind=kInput, calls=fused
)", "column_reduction");
  EXPECT_EQ(batched.info.launch.grid_x, 5);
  EXPECT_TRUE(Has(batched.ptx, "ld.shared.u32") || Has(batched.ptx, "ld.shared.b32"))
      << batched.ptx;
}

TEST(NvptxFusionEmitter, WholeAndGenericReductions) {
  Compiled whole = Emit(R"(
  a = f32[1001] parameter(0)
  z = f32[] constant(1)
  ROOT s = f32[] reduce(a, z), dimensions={0}, to_apply=mul
)", R"(
  a = f32[1001] parameter(0)
  ROOT f = f32[] fusion(a), kind=kInput, calls=fused
)", "whole_reduction");
  EXPECT_EQ(whole.info.launch.grid_x, 1);
  EXPECT_EQ(whole.info.launch.block_x, 1024);
  EXPECT_TRUE(Has(whole.ptx, "bar.sync")) << whole.ptx;
  Compiled generic = Emit(R"(
  a = f32[5,6,7] parameter(0)
  z = f32[] constant(0)
  ROOT s = f32[6] reduce(a, z), dimensions={0,2}, to_apply=add
)", R"(
  a = f32[5,6,7] parameter(0)
  ROOT f = f32[6] fusion(a), kind=kInput, calls=fused
)", "generic_reduction");
  EXPECT_EQ(generic.info.launch.grid_x, 1);
}

TEST(NvptxFusionEmitter, TransposesUsePaddedSharedTiles) {
  Compiled c = Emit(R"(
  a = f32[37,129] parameter(0)
  t = f32[129,37] transpose(a), dimensions={1,0}
  ROOT n = f32[129,37] negate(t)
)", R"(
  a = f32[37,129] parameter(0)
  ROOT f = f32[129,37] fusion(a), kind=kLoop, calls=fused
)", "transpose");
  EXPECT_EQ(c.info.launch.grid_x, 5 * 2);  // ceil(129/32) x ceil(37/32) tiles
  EXPECT_EQ(c.info.static_shared_bytes, 32 * 33 * 4);
  EXPECT_TRUE(Has(c.ptx, "st.shared.f32")) << c.ptx;
  EXPECT_TRUE(Has(c.ptx, "ld.shared.f32")) << c.ptx;
  EXPECT_TRUE(Has(c.ptx, "bar.sync")) << c.ptx;
  Compiled three = Emit(R"(
  a = s32[37,3,129] parameter(0)
  ROOT t = s32[129,37,3] transpose(a), dimensions={2,0,1}
)", R"(
  a = s32[37,3,129] parameter(0)
  ROOT f = s32[129,37,3] fusion(a), kind=kLoop, calls=fused
)", "transpose");
  EXPECT_EQ(three.info.launch.grid_x, 37 * 5 * 1);
  EXPECT_TRUE(Has(three.ptx, "bar.sync")) << three.ptx;
}

TEST(NvptxFusionEmitter, DynamicUpdateSliceInPlaceIteratesOverTheUpdate) {
  const char* fused = kFusionTestDusFused;
  const char* entry = kFusionTestDusEntry;
  NvptxEmitOptions in_place;
  in_place.output_aliases_operand = {0};
  Compiled c = Emit(fused, entry, "dus_in_place", in_place);
  EXPECT_EQ(c.info.launch.grid_x, 1);  // 85 update elements
  Compiled copy = Emit(fused, entry, "loop");
  EXPECT_EQ(copy.info.launch.grid_x, 19);  // every output element
}

constexpr const char* kScatter = kFusionTestScatterFused;
constexpr const char* kScatterEntry = kFusionTestScatterEntry;

TEST(NvptxFusionEmitter, ScatterAddInPlaceIsAtomicElseSerial) {
  NvptxEmitOptions in_place;
  in_place.output_aliases_operand = {0};
  Compiled atomic = Emit(kScatter, kScatterEntry, "scatter_atomic", in_place);
  EXPECT_EQ(atomic.info.launch.grid_x, 1);
  EXPECT_EQ(atomic.info.launch.block_x, 256);
  EXPECT_TRUE(Has(atomic.ptx, "atom.global.add.f32") || Has(atomic.ptx, "red.global.add.f32"))
      << atomic.ptx;
  Compiled serial = Emit(kScatter, kScatterEntry, "scatter_serial");
  EXPECT_EQ(serial.info.launch.grid_x, 1);
  EXPECT_EQ(serial.info.launch.block_x, 1);
  EXPECT_FALSE(Has(serial.ptx, "atom.")) << serial.ptx;
}

TEST(NvptxFusionEmitter, Errors) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(R"(
HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  ROOT n = f32[4] negate(a)
}
)");
  ASSERT_TRUE(m.ok()) << m.status();
  llvm::LLVMContext ctx;
  llvm::Module module("x", ctx);
  absl::StatusOr<NvptxKernelInfo> info = EmitNvptxFusionKernel(
      *(*m)->entry_computation()->root_instruction(), "k", NvptxEmitOptions(), &module);
  ASSERT_FALSE(info.ok());
  EXPECT_NE(info.status().message().find("not a fusion"), std::string::npos) << info.status();
}

}  // namespace
}  // namespace xla::gpu
