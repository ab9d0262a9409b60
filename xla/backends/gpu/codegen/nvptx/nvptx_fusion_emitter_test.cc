// NVPTX fusion kernels, checked without a GPU: each case emits a fusion,
// links libdevice, compiles for sm_80 and sm_90, requires ptxas to accept
// the PTX (the test FAILS when ptxas is missing, saying where it looked),
// checks the PTX for the instructions the kernel kind is built on, and
// asserts with `ptxas -v` that the kernel does not spill and that no load
// or store is generic (every access names its state space). Numerical
// correctness is NOT checked here (there is no GPU); the elementwise code
// is the shared elemental emitter, tested against the evaluator on the host.
#include "xla/backends/gpu/codegen/nvptx/nvptx_fusion_emitter.h"

#include <algorithm>
#include <iostream>
#include <memory>
#include <random>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "xla/backends/gpu/codegen/fusion_emitter_test_util.h"
#include "xla/backends/gpu/codegen/nvptx/libdevice_math.h"
#include "xla/backends/gpu/codegen/nvptx/nvptx_compiler.h"
#include "xla/backends/gpu/codegen/nvptx/ptxas_resource_usage.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/types/primitive_type.h"

namespace xla::gpu {
namespace {

struct Compiled {
  NvptxKernelInfo info;
  std::string ptx;  // sm_90
};

bool Has(const std::string& ptx, absl::string_view what) {
  return ptx.find(std::string(what)) != std::string::npos;
}

// A load or store without a state space (`ld.f32`, `st.v4.u32`, ...): a
// generic access, which the explicit address spaces must avoid.
bool HasGenericAccess(const std::string& ptx) {
  static const std::regex* const kGeneric =
      new std::regex(R"(\b(ld|st)(\.volatile)?\.(v[24]\.)?[busf](8|16|32|64)\b)");
  return std::regex_search(ptx, *kGeneric);
}

// Emits the entry root fusion of `m` for sm_80 and sm_90, links libdevice,
// runs ptxas (required) and ptxas -v (no spills unless `may_spill`).
Compiled EmitModule(const std::unique_ptr<HloModule>& m, const std::string& kind,
                    NvptxEmitOptions options = {}, bool may_spill = false) {
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
    EXPECT_FALSE(HasGenericAccess(binary->ptx)) << kind << " " << name << ":\n" << binary->ptx;
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

// EmitModule of FusionTestModuleText(fused, entry).
Compiled Emit(const std::string& fused, const std::string& entry, const std::string& kind,
              NvptxEmitOptions options = {}, bool may_spill = false) {
  return EmitModule(ParseFusionTestModule(fused, entry), kind, options, may_spill);
}

// EmitModule of a whole module text.
Compiled EmitText(const std::string& text, const std::string& kind,
                  NvptxEmitOptions options = {}, bool may_spill = false) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status() << "\n" << text.substr(0, 2000);
  if (!m.ok()) return {};
  return EmitModule(*m, kind, options, may_spill);
}

TEST(NvptxFusionEmitter, LoopWithBroadcastIsThreadIndexedScalar) {
  Compiled c = Emit(kFusionTestLoopBroadcast.fused, kFusionTestLoopBroadcast.entry, "loop");
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
  Compiled c =
      Emit(kFusionTestRowSumOfSquares.fused, kFusionTestRowSumOfSquares.entry, "row_reduction");
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
  Compiled c = Emit(kFusionTestRowArgmax.fused, kFusionTestRowArgmax.entry, "row_reduction");
  EXPECT_TRUE(Has(c.ptx, "shfl.sync.bfly.b32")) << c.ptx;
  const FusionTestCaseText sum_and_max = FusionTestRowSumAndMax(1029);
  Compiled two = Emit(sum_and_max.fused, sum_and_max.entry, "row_reduction");
  EXPECT_EQ(two.info.launch.grid_x, 33);
  EXPECT_TRUE(Has(two.ptx, "bar.sync")) << two.ptx;
}

TEST(NvptxFusionEmitter, SoftmaxAndLayerNormAreRowNormalizations) {
  Compiled softmax = Emit(kFusionTestSoftmax.fused, kFusionTestSoftmax.entry, "row_normalization");
  EXPECT_TRUE(softmax.info.choice.warp_per_row);
  EXPECT_TRUE(Has(softmax.ptx, "shfl.sync.bfly.b32")) << softmax.ptx;
  EXPECT_TRUE(Has(softmax.ptx, "ex2.approx")) << softmax.ptx;  // libdevice's expf
  const FusionTestCaseText text = FusionTestLayerNorm(1257);
  Compiled layer_norm = Emit(text.fused, text.entry, "row_normalization");
  EXPECT_FALSE(layer_norm.info.choice.warp_per_row);
  EXPECT_EQ(layer_norm.info.launch.grid_x, 13);
  EXPECT_TRUE(Has(layer_norm.ptx, "bar.sync")) << layer_norm.ptx;
  EXPECT_TRUE(Has(layer_norm.ptx, "shfl.sync.bfly.b32")) << layer_norm.ptx;
}

TEST(NvptxFusionEmitter, ColumnReductionsGoThroughASharedTile) {
  Compiled c =
      Emit(kFusionTestColumnSumAndMax.fused, kFusionTestColumnSumAndMax.entry, "column_reduction");
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
  const FusionTestCaseText product = FusionTestWholeReduction("1", "mul");
  Compiled whole = Emit(product.fused, product.entry, "whole_reduction");
  EXPECT_EQ(whole.info.launch.grid_x, 1);
  EXPECT_EQ(whole.info.launch.block_x, 1024);
  EXPECT_TRUE(Has(whole.ptx, "bar.sync")) << whole.ptx;
  Compiled generic =
      Emit(kFusionTestGenericReduce.fused, kFusionTestGenericReduce.entry, "generic_reduction");
  EXPECT_EQ(generic.info.launch.grid_x, 1);
}

TEST(NvptxFusionEmitter, TransposesUsePaddedSharedTiles) {
  Compiled c = Emit(kFusionTestTranspose.fused, kFusionTestTranspose.entry, "transpose");
  EXPECT_EQ(c.info.launch.grid_x, 5 * 2);  // ceil(129/32) x ceil(37/32) tiles
  EXPECT_EQ(c.info.static_shared_bytes, 32 * 33 * 4);
  EXPECT_TRUE(Has(c.ptx, "st.shared.f32")) << c.ptx;
  EXPECT_TRUE(Has(c.ptx, "ld.shared.f32")) << c.ptx;
  EXPECT_TRUE(Has(c.ptx, "bar.sync")) << c.ptx;
  Compiled three = Emit(kFusionTestTranspose3d.fused, kFusionTestTranspose3d.entry, "transpose");
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

// A scatter with batching dims (take_along_axis's gradient) assembles on
// both paths; its indexing is shared with the host (update_index_ir.h),
// where host_fusion_emitter_test checks it against the evaluator.
TEST(NvptxFusionEmitter, ScatterBatchingDimsAssembles) {
  const char* fused = R"(
  op = f32[3,9] parameter(0)
  idx = s32[3,4,1] parameter(1)
  upd = f32[3,4] parameter(2)
  ROOT s = f32[3,9] scatter(op, idx, upd), update_window_dims={}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, index_vector_dim=2, to_apply=add
)";
  const char* entry = R"(
  op = f32[3,9] parameter(0)
  idx = s32[3,4,1] parameter(1)
  upd = f32[3,4] parameter(2)
  ROOT f = f32[3,9] fusion(op, idx, upd), kind=kInput, calls=fused
)";
  NvptxEmitOptions in_place;
  in_place.output_aliases_operand = {0};
  Compiled atomic = Emit(fused, entry, "scatter_atomic", in_place);
  EXPECT_TRUE(Has(atomic.ptx, "atom.global.add.f32") || Has(atomic.ptx, "red.global.add.f32"))
      << atomic.ptx;
  Emit(fused, entry, "scatter_serial");
}

// A variadic scatter is serial (never atomic, even in place): one thread
// copies both operands and applies the argmax combiner on both arrays.
// host_fusion_emitter_test checks the shared indexing against the evaluator.
TEST(NvptxFusionEmitter, VariadicScatterIsSerial) {
  const FusionTestCase& c = kFusionTestVariadicScatterArgmax;
  NvptxEmitOptions in_place;
  in_place.output_aliases_operand = {0, 1};
  for (const NvptxEmitOptions& o : {NvptxEmitOptions{}, in_place}) {
    Compiled serial = Emit(c.fused, c.entry, "scatter_serial", o);
    EXPECT_EQ(serial.info.launch.grid_x, 1);
    EXPECT_EQ(serial.info.launch.block_x, 1);
    EXPECT_FALSE(Has(serial.ptx, "atom.")) << serial.ptx;
    EXPECT_TRUE(Has(serial.ptx, "selp.b32")) << serial.ptx;  // the combiner picks an id
  }
}

// ---------------------------------------------------------------- windows
// Convolution, gather and reduce-window are loop kernels over the output
// elements with the shared generators (window_gather_ir.h); their numerics
// are the host's, checked against the evaluator in host_window_ops_test.

TEST(NvptxFusionEmitter, ConvolutionIsALoopAccumulatingInF64) {
  Compiled c = Emit(R"(
  x = f32[2,9,7,5] parameter(0)
  w = f32[3,3,5,6] parameter(1)
  ROOT c = f32[2,5,4,6] convolution(x, w), window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
)", R"(
  x = f32[2,9,7,5] parameter(0)
  w = f32[3,3,5,6] parameter(1)
  ROOT f = f32[2,5,4,6] fusion(x, w), kind=kOutput, calls=fused
)", "loop");
  EXPECT_EQ(c.info.launch.grid_x, 1);  // 240 output elements
  EXPECT_EQ(c.info.launch.block_x, 256);
  EXPECT_EQ(c.info.choice.vector_width, 1);
  EXPECT_EQ(c.info.static_shared_bytes, 0);
  EXPECT_TRUE(Has(c.ptx, "ld.global.f32")) << c.ptx;
  EXPECT_TRUE(Has(c.ptx, "cvt.f64.f32")) << c.ptx;     // f64 accumulation
  EXPECT_TRUE(Has(c.ptx, "cvt.rn.f32.f64")) << c.ptx;  // one rounding
  EXPECT_TRUE(Has(c.ptx, "st.global.f32")) << c.ptx;
  EXPECT_FALSE(Has(c.ptx, "fma.rn.f64")) << c.ptx;  // the evaluator does not fuse
}

TEST(NvptxFusionEmitter, GroupedConvolutionWithBiasAndReluIsALoop) {
  Compiled c = Emit(R"(
  x = f32[1,11,6] parameter(0)
  w = f32[3,2,6] parameter(1)
  b = f32[6] parameter(2)
  c = f32[1,11,6] convolution(x, w), window={size=3 pad=1_1}, dim_labels=b0f_0io->b0f, feature_group_count=3
  bb = f32[1,11,6] broadcast(b), dimensions={2}
  s = f32[1,11,6] add(c, bb)
  z = f32[] constant(0)
  zb = f32[1,11,6] broadcast(z), dimensions={}
  ROOT r = f32[1,11,6] maximum(s, zb)
)", R"(
  x = f32[1,11,6] parameter(0)
  w = f32[3,2,6] parameter(1)
  b = f32[6] parameter(2)
  ROOT f = f32[1,11,6] fusion(x, w, b), kind=kOutput, calls=fused
)", "loop");
  EXPECT_EQ(c.info.launch.grid_x, 1);
  ASSERT_EQ(c.info.args.size(), 4u);
  EXPECT_TRUE(Has(c.ptx, "selp.f32")) << c.ptx;  // maximum propagates NaN: selects
  Compiled integer = Emit(R"(
  x = s32[2,9,3] parameter(0)
  w = s32[2,3,5] parameter(1)
  ROOT c = s32[2,10,5] convolution(x, w), window={size=2 pad=1_1}, dim_labels=b0f_0io->b0f
)", R"(
  x = s32[2,9,3] parameter(0)
  w = s32[2,3,5] parameter(1)
  ROOT f = s32[2,10,5] fusion(x, w), kind=kOutput, calls=fused
)", "loop");
  EXPECT_TRUE(Has(integer.ptx, "mul.lo.s64")) << integer.ptx;  // wraps in 64 bits
}

TEST(NvptxFusionEmitter, GathersAreLoops) {
  Compiled c = Emit(R"(
  op = f32[7,5] parameter(0)
  idx = s32[4,2] parameter(1)
  ROOT g = f32[4,2,3] gather(op, idx), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={2,3}
)", R"(
  op = f32[7,5] parameter(0)
  idx = s32[4,2] parameter(1)
  ROOT f = f32[4,2,3] fusion(op, idx), kind=kLoop, calls=fused
)", "loop");
  EXPECT_EQ(c.info.launch.grid_x, 1);
  // The start index pair: one 8-byte load.
  EXPECT_TRUE(Has(c.ptx, "ld.global.v2.u32")) << c.ptx;
  EXPECT_TRUE(Has(c.ptx, "ld.global.f32")) << c.ptx;
  // An embedding lookup of bf16 rows scaled after the gather.
  Compiled embedding = Emit(R"(
  op = bf16[301,6] parameter(0)
  idx = s32[517] parameter(1)
  g = bf16[517,6] gather(op, idx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,6}
  ROOT m = bf16[517,6] multiply(g, g)
)", R"(
  op = bf16[301,6] parameter(0)
  idx = s32[517] parameter(1)
  ROOT f = bf16[517,6] fusion(op, idx), kind=kLoop, calls=fused
)", "loop");
  EXPECT_EQ(embedding.info.launch.grid_x, 13);  // ceil(3102 / 256)
  EXPECT_TRUE(Has(embedding.ptx, "ld.global.u16") || Has(embedding.ptx, "ld.global.b16"))
      << embedding.ptx;
}

TEST(NvptxFusionEmitter, ReduceWindowsAreLoopsVariadicToo) {
  Compiled pool = Emit(R"(
  x = f32[2,9,7,5] parameter(0)
  ninf = f32[] constant(-inf)
  ROOT m = f32[2,5,4,5] reduce-window(x, ninf), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, to_apply=max
)", R"(
  x = f32[2,9,7,5] parameter(0)
  ROOT f = f32[2,5,4,5] fusion(x), kind=kLoop, calls=fused
)", "loop");
  EXPECT_EQ(pool.info.launch.grid_x, 1);  // 200 outputs
  EXPECT_TRUE(Has(pool.ptx, "selp.f32")) << pool.ptx;  // NaN-propagating maximum
  // Average pooling: a non-root reduce-window feeding a divide.
  Compiled average = Emit(R"(
  x = f32[3,17,5] parameter(0)
  z = f32[] constant(0)
  s = f32[3,17,5] reduce-window(x, z), window={size=1x3x1 pad=0_0x1_1x0_0}, to_apply=add
  n = f32[] constant(3)
  nb = f32[3,17,5] broadcast(n), dimensions={}
  ROOT d = f32[3,17,5] divide(s, nb)
)", R"(
  x = f32[3,17,5] parameter(0)
  ROOT f = f32[3,17,5] fusion(x), kind=kLoop, calls=fused
)", "loop");
  EXPECT_EQ(average.info.launch.grid_x, 1);
  // Variadic (argmax over windows): a tuple-shaped root, one output each.
  Compiled argmax = Emit(R"(
  x = f32[3,10] parameter(0)
  i = s32[3,10] iota(), iota_dimension=1
  m = f32[] constant(-inf)
  z = s32[] constant(0)
  ROOT r = (f32[3,4], s32[3,4]) reduce-window(x, i, m, z), window={size=1x4 stride=1x2}, to_apply=argmax
)", R"(
  x = f32[3,10] parameter(0)
  ROOT f = (f32[3,4], s32[3,4]) fusion(x), kind=kLoop, calls=fused
)", "loop");
  ASSERT_EQ(argmax.info.args.size(), 3u);
  EXPECT_TRUE(argmax.info.args[1].is_output);
  EXPECT_TRUE(argmax.info.args[2].is_output);
  EXPECT_EQ(argmax.info.args[2].shape.element_type(), PrimitiveType::S32);
  // A get-tuple-element of a variadic reduce-window inside the fusion.
  Compiled gte = Emit(R"(
  x = f32[3,10] parameter(0)
  i = s32[3,10] iota(), iota_dimension=1
  m = f32[] constant(-inf)
  z = s32[] constant(0)
  r = (f32[3,4], s32[3,4]) reduce-window(x, i, m, z), window={size=1x4 stride=1x2}, to_apply=argmax
  ROOT g = s32[3,4] get-tuple-element(r), index=1
)", R"(
  x = f32[3,10] parameter(0)
  ROOT f = s32[3,4] fusion(x), kind=kLoop, calls=fused
)", "loop");
  EXPECT_EQ(gte.info.args.size(), 2u);
}

// ------------------------------------------------------------------- sort

// The module around a sort fusion: `cmp` then `fused` then `entry`.
std::string SortModule(const std::string& cmp, const std::string& fused,
                       const std::string& entry) {
  return "HloModule m\ncmp {\n" + cmp + "}\nfused {\n" + fused + "}\nENTRY e {\n" + entry +
         "}\n";
}

constexpr const char* kF32TotalOrderLess = R"(
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT, type=TOTALORDER
)";

TEST(NvptxFusionEmitter, SortIsABitonicNetworkInSharedMemory) {
  Compiled c = EmitText(SortModule(kF32TotalOrderLess, R"(
  k = f32[4,1000] parameter(0)
  ROOT s = f32[4,1000] sort(k), dimensions={1}, to_apply=cmp
)", R"(
  k = f32[4,1000] parameter(0)
  ROOT f = f32[4,1000] fusion(k), kind=kLoop, calls=fused
)"), "sort");
  EXPECT_TRUE(c.info.choice.sort_in_shared);
  EXPECT_EQ(c.info.launch.grid_x, 4);     // a block per row
  EXPECT_EQ(c.info.launch.block_x, 512);  // 1024 padded / 2 pairs
  EXPECT_EQ(c.info.static_shared_bytes, 4000 + 4000);  // keys + i32 positions
  EXPECT_TRUE(Has(c.ptx, "ld.global.f32")) << c.ptx;
  EXPECT_TRUE(Has(c.ptx, "st.shared.f32")) << c.ptx;
  EXPECT_TRUE(Has(c.ptx, "ld.shared.f32")) << c.ptx;
  EXPECT_TRUE(Has(c.ptx, "ld.shared.u32") || Has(c.ptx, "ld.shared.b32")) << c.ptx;
  EXPECT_TRUE(Has(c.ptx, "bar.sync")) << c.ptx;
  EXPECT_TRUE(Has(c.ptx, "st.global.f32")) << c.ptx;
}

TEST(NvptxFusionEmitter, VariadicStableSortAndSortAlongDim0) {
  Compiled stable = EmitText(SortModule(R"(
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  ROOT gt = pred[] compare(a, b), direction=GT
)", R"(
  k = s32[5,37] parameter(0)
  v = f32[5,37] parameter(1)
  ROOT s = (s32[5,37], f32[5,37]) sort(k, v), dimensions={1}, is_stable=true, to_apply=cmp
)", R"(
  k = s32[5,37] parameter(0)
  v = f32[5,37] parameter(1)
  ROOT f = (s32[5,37], f32[5,37]) fusion(k, v), kind=kLoop, calls=fused
)"), "sort");
  EXPECT_TRUE(stable.info.choice.sort_in_shared);
  EXPECT_EQ(stable.info.launch.grid_x, 5);
  EXPECT_EQ(stable.info.launch.block_x, 32);
  EXPECT_EQ(stable.info.static_shared_bytes, 152 + 152 + 148);  // 8-byte aligned arrays
  ASSERT_EQ(stable.info.args.size(), 4u);
  EXPECT_TRUE(stable.info.args[3].is_output);
  EXPECT_TRUE(Has(stable.ptx, "st.global.f32")) << stable.ptx;
  // bf16 keys along the major dimension, read through a fused negate.
  Compiled dim0 = EmitText(SortModule(R"(
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT, type=TOTALORDER
)", R"(
  k = bf16[23,3] parameter(0)
  n = bf16[23,3] negate(k)
  ROOT s = bf16[23,3] sort(n), dimensions={0}, to_apply=cmp
)", R"(
  k = bf16[23,3] parameter(0)
  ROOT f = bf16[23,3] fusion(k), kind=kLoop, calls=fused
)"), "sort");
  EXPECT_EQ(dim0.info.launch.grid_x, 3);
  EXPECT_EQ(dim0.info.static_shared_bytes, 48 + 92);
  EXPECT_TRUE(Has(dim0.ptx, "st.shared.u16") || Has(dim0.ptx, "st.shared.b16")) << dim0.ptx;
}

TEST(NvptxFusionEmitter, ArgsortWithFusedIota) {
  Compiled c = EmitText(SortModule(R"(
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT gt = pred[] compare(a, b), direction=GT, type=TOTALORDER
)", R"(
  k = f32[6,129] parameter(0)
  i = s32[6,129] iota(), iota_dimension=1
  ROOT s = (f32[6,129], s32[6,129]) sort(k, i), dimensions={1}, to_apply=cmp
)", R"(
  k = f32[6,129] parameter(0)
  ROOT f = (f32[6,129], s32[6,129]) fusion(k), kind=kLoop, calls=fused
)"), "sort");
  EXPECT_EQ(c.info.launch.grid_x, 6);
  EXPECT_EQ(c.info.launch.block_x, 128);  // 256 padded / 2
  ASSERT_EQ(c.info.args.size(), 3u);
}

TEST(NvptxFusionEmitter, LongSortRowsFallBackToGlobalOddEvenTransposition) {
  Compiled c = EmitText(SortModule(kF32TotalOrderLess, R"(
  k = f32[2,20001] parameter(0)
  ROOT s = f32[2,20001] sort(k), dimensions={1}, to_apply=cmp
)", R"(
  k = f32[2,20001] parameter(0)
  ROOT f = f32[2,20001] fusion(k), kind=kLoop, calls=fused
)"), "sort");
  EXPECT_FALSE(c.info.choice.sort_in_shared);  // 160 KB: over the 48 KB static limit
  EXPECT_EQ(c.info.launch.grid_x, 2);
  EXPECT_EQ(c.info.launch.block_x, 1024);
  EXPECT_EQ(c.info.static_shared_bytes, 0);
  EXPECT_FALSE(Has(c.ptx, ".shared")) << c.ptx;
  EXPECT_TRUE(Has(c.ptx, "bar.sync")) << c.ptx;  // between phases
  EXPECT_TRUE(Has(c.ptx, "ld.global.f32")) << c.ptx;
  EXPECT_TRUE(Has(c.ptx, "st.global.f32")) << c.ptx;
}

// The network EmitSortKernel emits, replayed in C++ with the same pair
// arithmetic: the mirrored-first-step bitonic network, compares past the
// line skipped, ties broken by original position, must sort every length
// (padding-free) into the stable order. A check of the algorithm, not of
// the IR (there is no GPU to run the IR on).
TEST(NvptxFusionEmitter, SortNetworkSortsEveryLengthStably) {
  std::mt19937 rng(7);
  for (int64_t len = 1; len <= 300; ++len) {
    std::vector<std::pair<int, int64_t>> v(len);  // (key with many ties, position)
    for (int64_t j = 0; j < len; ++j) v[j] = {static_cast<int>(rng() % 7), j};
    std::vector<std::pair<int, int64_t>> expected = v;
    std::stable_sort(expected.begin(), expected.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    int64_t log_p = 0;
    while ((int64_t{1} << log_p) < len) ++log_p;
    const int64_t pairs = (int64_t{1} << log_p) / 2;
    for (int64_t s = 1; s <= log_p; ++s) {
      for (int64_t u = 0; u < s; ++u) {
        const int64_t shift = s - 1 - u;
        const int64_t dist = int64_t{1} << shift;
        for (int64_t p = 0; p < pairs; ++p) {
          const int64_t base = (p >> shift) << (shift + 1);
          const int64_t r = p & (dist - 1);
          const int64_t i = base + r;
          const int64_t l = u == 0 ? base + 2 * dist - 1 - r : i + dist;
          if (l >= len) continue;
          const bool swap = v[l].first < v[i].first ||
                            (!(v[i].first < v[l].first) && v[i].second > v[l].second);
          if (swap) std::swap(v[i], v[l]);
        }
      }
    }
    ASSERT_EQ(v, expected) << "length " << len;
  }
}

// Max-pool gradient: one thread, serial in source order (the host's).
TEST(NvptxFusionEmitter, SelectAndScatterIsOneSerialThread) {
  Compiled c = EmitText(FusionTestMaxPoolGradModule(R"(
  x = f32[2,9,7,3] parameter(0)
  g = f32[2,5,4,3] parameter(1)
  z = f32[] constant(0)
  ROOT s = f32[2,9,7,3] select-and-scatter(x, g, z), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, select=ge, scatter=add
)"),
                        "select_and_scatter");
  EXPECT_EQ(c.info.launch.grid_x, 1);
  EXPECT_EQ(c.info.launch.block_x, 1);
  EXPECT_TRUE(Has(c.ptx, "setp.ge.f32")) << c.ptx;  // the select computation
  EXPECT_TRUE(Has(c.ptx, "ld.global.f32")) << c.ptx;
  EXPECT_TRUE(Has(c.ptx, "st.global.f32")) << c.ptx;
  EXPECT_FALSE(Has(c.ptx, "atom.")) << c.ptx;
}

TEST(NvptxFusionEmitter, SortMustBeTheFusedRoot) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(SortModule(kF32TotalOrderLess, R"(
  k = f32[4,9] parameter(0)
  s = f32[4,9] sort(k), dimensions={1}, to_apply=cmp
  ROOT n = f32[4,9] negate(s)
)", R"(
  k = f32[4,9] parameter(0)
  ROOT f = f32[4,9] fusion(k), kind=kLoop, calls=fused
)"));
  ASSERT_TRUE(m.ok()) << m.status();
  llvm::LLVMContext ctx;
  llvm::Module module("x", ctx);
  absl::StatusOr<NvptxKernelInfo> info = EmitNvptxFusionKernel(
      *(*m)->entry_computation()->root_instruction(), "k", NvptxEmitOptions(), &module);
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(info.status().message().find("(sort)"), std::string::npos) << info.status();
  EXPECT_NE(info.status().message().find("fused root"), std::string::npos) << info.status();
}

// A module whose root is one fusion concatenating `n` odd-sized f32[3]
// parameters: a kernel of n + 1 buffer arguments.
std::string WideConcatModule(int n) {
  std::string params, names, entry_params;
  for (int i = 0; i < n; ++i) {
    absl::StrAppend(&params, "  p", i, " = f32[3] parameter(", i, ")\n");
    absl::StrAppend(&names, i == 0 ? "" : ", ", "p", i);
  }
  return absl::StrCat("HloModule wide\nfused {\n", params, "  ROOT c = f32[", 3 * n,
                      "] concatenate(", names, "), dimensions={0}\n}\nENTRY e {\n", params,
                      "  ROOT f = f32[", 3 * n, "] fusion(", names,
                      "), kind=kLoop, calls=fused\n}\n");
}

// The kernel-parameter space of PTX ISA 7.8 is 4352 bytes: 544 pointers.
// Exactly that many are plain parameters (ptxas accepts them); one more and
// the kernel takes a single pointer to a table of them, loaded with
// ld.global.nc (ptxas accepts that too; both compile for sm_80 and sm_90).
TEST(NvptxFusionEmitter, KernelAtTheParameterLimitTakesPlainPointers) {
  const NvptxTarget sm90 = *FindNvptxTarget("sm_90");
  ASSERT_EQ(sm90.max_kernel_param_bytes, 4352);
  const int pointers = static_cast<int>(sm90.max_kernel_param_bytes / 8);
  EXPECT_FALSE(NvptxUsesArgumentTable(pointers, sm90));
  EXPECT_TRUE(NvptxUsesArgumentTable(pointers + 1, sm90));
  Compiled c = EmitText(WideConcatModule(pointers - 1), "loop", {}, /*may_spill=*/true);
  EXPECT_FALSE(c.info.argument_table);
  EXPECT_EQ(c.info.args.size(), static_cast<size_t>(pointers));
  EXPECT_TRUE(Has(c.ptx, absl::StrCat("fusion_kernel_param_", pointers - 1)));
  EXPECT_FALSE(Has(c.ptx, "ld.global.nc.u64"));
}

TEST(NvptxFusionEmitter, OnePointerPastTheLimitGoesThroughTheArgumentTable) {
  const int pointers = static_cast<int>(FindNvptxTarget("sm_90")->max_kernel_param_bytes / 8) + 1;
  Compiled c = EmitText(WideConcatModule(pointers - 1), "loop", {}, /*may_spill=*/true);
  EXPECT_TRUE(c.info.argument_table);
  EXPECT_EQ(c.info.args.size(), static_cast<size_t>(pointers));
  EXPECT_TRUE(Has(c.ptx, ".param .u64 fusion_kernel_param_0")) << c.ptx.substr(0, 2000);
  EXPECT_FALSE(Has(c.ptx, "fusion_kernel_param_1")) << c.ptx.substr(0, 2000);
  // The pointers come from the table, read-only through the non-coherent
  // cache; the last entry (the output's) at byte 8 * 544.
  EXPECT_TRUE(Has(c.ptx, "ld.global.nc.u64")) << c.ptx.substr(0, 4000);
  EXPECT_TRUE(Has(c.ptx, absl::StrCat("+", 8 * (pointers - 1), "]"))) << c.ptx.substr(0, 4000);
}

TEST(NvptxFusionEmitter, AThousandOperandsCompile) {
  Compiled c = EmitText(WideConcatModule(1000), "loop", {}, /*may_spill=*/true);
  EXPECT_TRUE(c.info.argument_table);
  EXPECT_EQ(c.info.args.size(), 1001u);
}

// The check before ptxas: a hand-made kernel one pointer past the limit is
// refused with the numbers, one at the limit passes.
TEST(NvptxFusionEmitter, ParameterSpaceIsCheckedBeforePtxas) {
  const NvptxTarget sm90 = *FindNvptxTarget("sm_90");
  for (int pointers : {544, 545}) {
    llvm::LLVMContext ctx;
    llvm::Module module("space", ctx);
    std::vector<llvm::Type*> params(pointers, llvm::PointerType::get(ctx, 1));
    llvm::Function* f = llvm::Function::Create(
        llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), params, false),
        llvm::Function::ExternalLinkage, "wide", &module);
    f->setCallingConv(llvm::CallingConv::PTX_Kernel);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", f));
    b.CreateRetVoid();
    absl::StatusOr<std::string> ptx = CompileToPtx(module, sm90, 1);
    EXPECT_EQ(KernelParamBytes(*f, module.getDataLayout()), 8 * pointers);
    if (pointers == 544) {
      EXPECT_TRUE(ptx.ok()) << ptx.status();
      continue;
    }
    ASSERT_FALSE(ptx.ok());
    EXPECT_EQ(ptx.status().code(), absl::StatusCode::kInternal);
    EXPECT_TRUE(absl::StrContains(ptx.status().message(),
                                  "kernel 'wide' declares 4360 bytes of parameters (545 "
                                  "parameters), past sm_90's limit of 4352 bytes for PTX ISA 7.8"))
        << ptx.status();
  }
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
