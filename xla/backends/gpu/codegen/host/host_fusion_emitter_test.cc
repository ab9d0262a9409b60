// Host fusion kernels vs the reference evaluator: one case per kernel kind,
// odd shapes, several element types, blocks run in uneven ranges in reverse
// order. The f32 reduction cases run with Sequential() options (the
// evaluator's order) and are bit-exact, as are bf16 and variadic reduces
// with the default options (they always fold sequentially); softmax and
// layer norm use the default lane reductions (lane_reduce_ir.h) and exp
// approximation (host_math_emitter.h), so they are compared with a
// tolerance.
#include "xla/backends/gpu/codegen/host/host_fusion_emitter.h"

#include <chrono>
#include <cstring>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "xla/backends/gpu/codegen/fusion_emitter_test_util.h"
#include "xla/backends/gpu/codegen/host/host_fusion_test_util.h"
#include "xla/backends/gpu/codegen/llvm_backend/llvm_backend.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/stream_executor/host/host_kernel_module.h"

namespace xla::gpu {
namespace {

std::unique_ptr<HloModule> Parse(const std::string& fused, const std::string& entry) {
  return ParseFusionTestModule(fused, entry);
}

// Options whose reductions fold sequentially in the evaluator's order
// (bit-exact); the default lane reductions are tested in
// lane_reduce_ir_test.cc.
FusionRunOptions Sequential() {
  FusionRunOptions options;
  options.emit.reduction_vector_bytes = 0;
  return options;
}

// Runs the fusion and checks the kind and the result: bit-exact when
// `exact`, else within CompareLiterals' default tolerance, or with
// `output_scale` within CompareOutputLeaf's (relative to the output's
// largest element: for outputs that cancel to near zero, such as x - mean).
FusionRun Check(const std::string& fused, const std::string& entry, const std::string& kind,
                bool exact, FusionRunOptions options = {}, bool output_scale = false) {
  std::unique_ptr<HloModule> m = Parse(fused, entry);
  if (m == nullptr) return {};
  absl::StatusOr<FusionRun> run = RunFusionOnHost(*m, options);
  EXPECT_TRUE(run.ok()) << run.status();
  if (!run.ok()) return {};
  EXPECT_EQ(run->info.kind, kind);
  EXPECT_GT(run->info.total_blocks, 0);
  if (exact) {
    EXPECT_TRUE(run->expected == run->actual) << "expected " << run->expected.ToString()
                                              << "\nactual " << run->actual.ToString();
  } else if (output_scale) {
    for (size_t k = 0; k < run->expected.tuple_elements().size(); ++k) {
      absl::Status st =
          CompareOutputLeaf(run->expected.tuple_elements()[k], run->actual.tuple_elements()[k]);
      EXPECT_TRUE(st.ok()) << "output " << k << ": " << st;
    }
    if (run->expected.tuple_elements().empty()) {
      absl::Status st = CompareOutputLeaf(run->expected, run->actual);
      EXPECT_TRUE(st.ok()) << st;
    }
  } else {
    absl::Status st = CompareLiterals(run->expected, run->actual);
    EXPECT_TRUE(st.ok()) << st;
  }
  return std::move(*run);
}

TEST(HostFusionEmitter, LoopF32WithBroadcastAndManyBlocks) {
  FusionRunOptions small_blocks;
  small_blocks.emit.target_block_bytes = 512;  // 128 f32: several blocks per row
  for (bool small : {false, true}) {
    const FusionRunOptions o = small ? small_blocks : FusionRunOptions{};
    FusionRun run =
        Check(kFusionTestLoopBroadcast.fused, kFusionTestLoopBroadcast.entry, "loop", true, o);
    if (small) {
      EXPECT_EQ(run.info.total_blocks, 37 * 2);
    }
    ASSERT_EQ(run.info.args.size(), 3u);
    EXPECT_FALSE(run.info.args[1].is_output);
    EXPECT_TRUE(run.info.args[2].is_output);
  }
}

TEST(HostFusionEmitter, LoopBf16ConcatenatePadSlice) {
  Check(R"(
  a = bf16[7,13] parameter(0)
  b = bf16[7,4] parameter(1)
  c = bf16[7,17] concatenate(a, b), dimensions={1}
  z = bf16[] constant(1.5)
  p = bf16[9,20] pad(c, z), padding=1_1x2_1
  s = bf16[9,9] slice(p), slice={[0:9], [3:20:2]}
  ROOT n = bf16[9,9] multiply(s, s)
)", R"(
  a = bf16[7,13] parameter(0)
  b = bf16[7,4] parameter(1)
  ROOT f = bf16[9,9] fusion(a, b), kind=kLoop, calls=fused
)", "loop", true);
}

TEST(HostFusionEmitter, LoopS32IotaSelectReverse) {
  Check(R"(
  a = s32[5,11,3] parameter(0)
  i = s32[5,11,3] iota(), iota_dimension=1
  r = s32[5,11,3] reverse(a), dimensions={1,2}
  c = pred[5,11,3] compare(i, r), direction=LT
  d = s32[5,11,3] subtract(i, r)
  ROOT s = s32[5,11,3] select(c, d, a)
)", R"(
  a = s32[5,11,3] parameter(0)
  ROOT f = s32[5,11,3] fusion(a), kind=kLoop, calls=fused
)", "loop", true);
}

TEST(HostFusionEmitter, MultiOutputLoop) {
  FusionRun run = Check(R"(
  a = f32[37,129] parameter(0)
  b = f32[37,129] parameter(1)
  s = f32[37,129] add(a, b)
  d = f32[37,129] subtract(a, b)
  c = bf16[37,129] convert(d)
  ROOT t = (f32[37,129], bf16[37,129]) tuple(s, c)
)", R"(
  a = f32[37,129] parameter(0)
  b = f32[37,129] parameter(1)
  ROOT f = (f32[37,129], bf16[37,129]) fusion(a, b), kind=kLoop, calls=fused
)", "loop", true);
  EXPECT_EQ(run.info.args.size(), 4u);
}

TEST(HostFusionEmitter, RowReductionF32Bf16AndMultiOutput) {
  Check(kFusionTestRowSumOfSquares.fused, kFusionTestRowSumOfSquares.entry, "row_reduction", true,
        Sequential());
  Check(R"(
  a = bf16[37,129] parameter(0)
  z = bf16[] constant(0)
  ROOT r = bf16[37] reduce(a, z), dimensions={1}, to_apply=add_bf16
)", R"(
  a = bf16[37,129] parameter(0)
  ROOT f = bf16[37] fusion(a), kind=kInput, calls=fused
)", "row_reduction", true);
  const FusionTestCaseText sum_and_max = FusionTestRowSumAndMax(129);
  Check(sum_and_max.fused, sum_and_max.entry, "row_reduction", true, Sequential());
}

TEST(HostFusionEmitter, VariadicArgmaxRowReduction) {
  Check(kFusionTestRowArgmax.fused, kFusionTestRowArgmax.entry, "row_reduction", true);
}

TEST(HostFusionEmitter, ColumnReductions) {
  FusionRunOptions narrow;
  narrow.emit.column_chunk = 16;  // several column chunks, a ragged last one
  FusionRun run = Check(kFusionTestColumnSumAndMax.fused, kFusionTestColumnSumAndMax.entry,
                        "column_reduction", true, narrow);
  EXPECT_EQ(run.info.total_blocks, 3);
  Check(R"(
  a = s32[5,33,19] parameter(0)
  z = s32[] constant(3)
  ROOT s = s32[5,19] reduce(a, z), dimensions={1}, to_apply=add_s32
)", R"(
  a = s32[5,33,19] parameter(0)
  ROOT f = s32[5,19] fusion(a), kind=kInput, calls=fused
)", "column_reduction", true, narrow);
}

TEST(HostFusionEmitter, WholeAndGenericReductions) {
  const FusionTestCaseText sum = FusionTestWholeReduction("0", "add");
  FusionRun whole = Check(sum.fused, sum.entry, "whole_reduction", true, Sequential());
  EXPECT_EQ(whole.info.total_blocks, 1);
  Check(kFusionTestGenericReduce.fused, kFusionTestGenericReduce.entry, "generic_reduction", true);
}

TEST(HostFusionEmitter, SoftmaxIsOneRowNormalizationKernel) {
  FusionRun run =
      Check(kFusionTestSoftmax.fused, kFusionTestSoftmax.entry, "row_normalization", false);
  // Each reduction is computed once per row: one (lane) reduction loop per
  // reduce (vr.body) plus the output loop, not a reduction inside the
  // output loop.
  size_t loops = 0;
  size_t start = 0;
  while (start < run.ir.size()) {
    size_t end = run.ir.find('\n', start);
    if (end == std::string::npos) end = run.ir.size();
    if (run.ir.compare(start, 7, "vr.body") == 0) ++loops;  // a block label
    start = end + 1;
  }
  EXPECT_EQ(loops, 2u) << run.ir;
}

TEST(HostFusionEmitter, LayerNormIsOneRowNormalizationKernel) {
  const FusionTestCaseText layer_norm = FusionTestLayerNorm(257);
  Check(layer_norm.fused, layer_norm.entry, "row_normalization", false, {}, /*output_scale=*/true);
}

TEST(HostFusionEmitter, TransposeOfOddShapes) {
  FusionRunOptions small_tiles;
  small_tiles.emit.transpose_tile = 8;
  FusionRun run =
      Check(kFusionTestTranspose.fused, kFusionTestTranspose.entry, "transpose", true, small_tiles);
  EXPECT_EQ(run.info.total_blocks, 17 * 5);
  Check(kFusionTestTranspose3d.fused, kFusionTestTranspose3d.entry, "transpose", true, small_tiles);
}

constexpr const char* kDusFused = kFusionTestDusFused;
constexpr const char* kDusEntry = kFusionTestDusEntry;

Literal S32(int32_t v) {
  Literal l(Shape::Scalar(PrimitiveType::S32));
  l.SetInt(0, v);
  return l;
}

TEST(HostFusionEmitter, DynamicUpdateSliceInPlaceAndNot) {
  std::unique_ptr<HloModule> m = Parse(kDusFused, kDusEntry);
  ASSERT_NE(m, nullptr);
  absl::StatusOr<std::vector<Literal>> random = MakeRandomInputs(*m, 3);
  ASSERT_TRUE(random.ok()) << random.status();
  // In range, clamped high (125 -> 112) and clamped low (-4 -> 0).
  for (auto [i, j] : {std::pair{20, 40}, std::pair{36, 125}, std::pair{-4, 0}}) {
    FusionRunOptions in_place;
    in_place.inputs = *random;
    in_place.inputs[2] = S32(i);
    in_place.inputs[3] = S32(j);
    in_place.emit.output_aliases_operand = {0};
    FusionRun run = Check(kDusFused, kDusEntry, "dus_in_place", false, in_place);
    EXPECT_EQ(run.info.total_blocks, 1);  // 85 elements fit one block
    FusionRunOptions copy = in_place;
    copy.emit.output_aliases_operand = {};
    Check(kDusFused, kDusEntry, "loop", false, copy);
  }
}

constexpr const char* kScatter = kFusionTestScatterFused;
constexpr const char* kScatterEntry = kFusionTestScatterEntry;

TEST(HostFusionEmitter, ScatterWithDuplicatesAndOutOfRange) {
  std::unique_ptr<HloModule> m = Parse(kScatter, kScatterEntry);
  ASSERT_NE(m, nullptr);
  absl::StatusOr<std::vector<Literal>> random = MakeRandomInputs(*m, 5);
  ASSERT_TRUE(random.ok()) << random.status();
  FusionRunOptions o;
  o.inputs = *random;
  const int32_t indices[] = {3, 10, 3, -1, 11, 3};  // duplicates, negative, too large
  for (int k = 0; k < 6; ++k) o.inputs[1].SetInt(k, indices[k]);
  FusionRun run = Check(kScatter, kScatterEntry, "scatter", true, o);
  EXPECT_EQ(run.info.total_blocks, 1);
  // Row 3 got three updates; rows 0 and 5 none.
  EXPECT_NE(run.actual.GetDouble(3 * 7), o.inputs[0].GetDouble(3 * 7));
  EXPECT_EQ(run.actual.GetDouble(5 * 7), o.inputs[0].GetDouble(5 * 7));
  o.emit.output_aliases_operand = {0};
  Check(kScatter, kScatterEntry, "scatter", true, o);
}

// Scatters with batching dims (jax's take_along_axis gradient, e.g. a
// cross-entropy's): the operand's batching dim takes the update's own
// coordinate. The second case pairs the operand's dim 0 with the indices'
// dim 1 and keeps a window dim; random indices in [0, 8) on a dim of 7 also
// skip some windows, as the evaluator does.
TEST(HostFusionEmitter, ScatterBatchingDims) {
  for (bool in_place : {false, true}) {
    FusionRunOptions o;
    if (in_place) o.emit.output_aliases_operand = {0};
    Check(R"(
  op = f32[3,9] parameter(0)
  idx = s32[3,4,1] parameter(1)
  upd = f32[3,4] parameter(2)
  ROOT s = f32[3,9] scatter(op, idx, upd), update_window_dims={}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, index_vector_dim=2, to_apply=add
)", R"(
  op = f32[3,9] parameter(0)
  idx = s32[3,4,1] parameter(1)
  upd = f32[3,4] parameter(2)
  ROOT f = f32[3,9] fusion(op, idx, upd), kind=kInput, calls=fused
)", "scatter", true, o);
    Check(R"(
  op = f32[2,7,3] parameter(0)
  idx = s32[5,2,1] parameter(1)
  upd = f32[5,2,3] parameter(2)
  ROOT s = f32[2,7,3] scatter(op, idx, upd), update_window_dims={2}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={1}, index_vector_dim=2, to_apply=add
)", R"(
  op = f32[2,7,3] parameter(0)
  idx = s32[5,2,1] parameter(1)
  upd = f32[5,2,3] parameter(2)
  ROOT f = f32[2,7,3] fusion(op, idx, upd), kind=kInput, calls=fused
)", "scatter", true, o);
  }
}

// A variadic scatter (argmax over a score and an id array): the combiner
// takes both old values and both updates. Random indices hit the same
// target several times and skip windows that do not fit (column 3 or 4 of
// a 3-wide window), as the evaluator does; hand-set duplicates make sure.
TEST(HostFusionEmitter, VariadicScatterArgmax) {
  const FusionTestCase& c = kFusionTestVariadicScatterArgmax;
  std::unique_ptr<HloModule> m = Parse(c.fused, c.entry);
  ASSERT_NE(m, nullptr);
  absl::StatusOr<std::vector<Literal>> random = MakeRandomInputs(*m, 7);
  ASSERT_TRUE(random.ok()) << random.status();
  for (bool in_place : {false, true}) {
    FusionRunOptions o;
    o.inputs = *random;
    if (in_place) o.emit.output_aliases_operand = {0, 1};
    FusionRun run = Check(c.fused, c.entry, "scatter", true, o);
    ASSERT_EQ(run.actual.tuple_elements().size(), 2u);
    const int32_t rows[] = {4, 4, 4, 12, -1, 0, 4, 2, 13};
    const int32_t cols[] = {1, 1, 2, 0, 0, 3, 1, 2, 0};
    for (int k = 0; k < 9; ++k) {
      o.inputs[2].SetInt(2 * k, rows[k]);
      o.inputs[2].SetInt(2 * k + 1, cols[k]);
    }
    run = Check(c.fused, c.entry, "scatter", true, o);
    ASSERT_EQ(run.actual.tuple_elements().size(), 2u);
    // Row 0 (its only window starts at column 3: skipped) keeps its ids.
    EXPECT_EQ(run.actual.tuple_elements()[1].GetInt(0), o.inputs[1].GetInt(0));
  }
}

TEST(HostFusionEmitter, AttributesNoaliasAlignAndErrors) {
  std::unique_ptr<HloModule> m = Parse(R"(
  a = f32[37,129] parameter(0)
  ROOT n = f32[37,129] negate(a)
)", R"(
  a = f32[37,129] parameter(0)
  ROOT f = f32[37,129] fusion(a), kind=kLoop, calls=fused
)");
  ASSERT_NE(m, nullptr);
  const HloInstruction* fusion = m->entry_computation()->root_instruction();
  llvm::LLVMContext ctx;
  llvm::Module module("t", ctx);
  HostEmitOptions o;
  o.noalias = {true, false};
  o.alignment = {64, 4};
  ASSERT_TRUE(EmitHostFusionKernel(*fusion, "k", o, &module).ok());
  std::string ir;
  llvm::raw_string_ostream os(ir);
  module.print(os, nullptr);
  os.flush();
  EXPECT_NE(ir.find("ptr noalias nocapture align 64 dereferenceable(19092)"), std::string::npos)
      << ir;
  EXPECT_NE(ir.find("ptr nocapture align 16 dereferenceable(19092)"), std::string::npos) << ir;

  absl::StatusOr<HostKernelInfo> dup = EmitHostFusionKernel(*fusion, "k", o, &module);
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.status().message().find("already exists"), std::string::npos);
  absl::StatusOr<HostKernelInfo> not_fusion =
      EmitHostFusionKernel(*fusion->operand(0), "k2", o, &module);
  EXPECT_EQ(not_fusion.status().code(), absl::StatusCode::kInvalidArgument);

  std::unique_ptr<HloModule> dot = Parse(R"(
  a = f32[4,5] parameter(0)
  b = f32[5,3] parameter(1)
  ROOT d = f32[4,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
)", R"(
  a = f32[4,5] parameter(0)
  b = f32[5,3] parameter(1)
  ROOT f = f32[4,3] fusion(a, b), kind=kLoop, calls=fused
)");
  ASSERT_NE(dot, nullptr);
  llvm::Module module2("t2", ctx);
  absl::StatusOr<HostKernelInfo> r =
      EmitHostFusionKernel(*dot->entry_computation()->root_instruction(), "k", o, &module2);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented) << r.status();
}

std::unique_ptr<llvm::TargetMachine> HostMachine() {
  InitializeLlvmTargets();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget("x86_64-unknown-linux-gnu", error);
  if (target == nullptr) return nullptr;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      "x86_64-unknown-linux-gnu", "x86-64-v2", "", llvm::TargetOptions(), llvm::Reloc::PIC_,
      std::nullopt, CodeGenOptLevel(3)));
}

constexpr char kBigFused[] = R"(
  a = f32[1024,4096] parameter(0)
  b = f32[1024,4096] parameter(1)
  s = f32[1024,4096] add(a, b)
  ROOT m = f32[1024,4096] multiply(s, a)
)";
constexpr char kBigEntry[] = R"(
  a = f32[1024,4096] parameter(0)
  b = f32[1024,4096] parameter(1)
  ROOT f = f32[1024,4096] fusion(a, b), kind=kLoop, calls=fused
)";

TEST(HostFusionEmitter, ElementwiseLoopVectorizesAtO3) {
  std::unique_ptr<HloModule> m = Parse(kBigFused, kBigEntry);
  ASSERT_NE(m, nullptr);
  llvm::LLVMContext ctx;
  llvm::Module module("vec", ctx);
  HostEmitOptions o;
  o.noalias = {true, true, true};
  ASSERT_TRUE(EmitHostFusionKernel(*m->entry_computation()->root_instruction(), "k", o, &module)
                  .ok());
  std::unique_ptr<llvm::TargetMachine> machine = HostMachine();
  ASSERT_NE(machine, nullptr);
  std::unique_ptr<llvm::Module> clone = llvm::CloneModule(module);
  clone->setTargetTriple(machine->getTargetTriple().str());
  clone->setDataLayout(machine->createDataLayout());
  OptimizeLlvmModule(*clone, *machine, 3);
  std::string ir;
  llvm::raw_string_ostream os(ir);
  clone->print(os, nullptr);
  os.flush();
  EXPECT_NE(ir.find("<4 x float>"), std::string::npos) << ir;
}

// The optimized IR of kBigFused's kernel emitted with `o`.
std::string OptimizedBigIr(const HostEmitOptions& o) {
  std::unique_ptr<HloModule> m = Parse(kBigFused, kBigEntry);
  if (m == nullptr) return "";
  llvm::LLVMContext ctx;
  llvm::Module module("vec", ctx);
  if (!EmitHostFusionKernel(*m->entry_computation()->root_instruction(), "k", o, &module).ok()) {
    return "";
  }
  std::unique_ptr<llvm::TargetMachine> machine = HostMachine();
  if (machine == nullptr) return "";
  module.setTargetTriple(machine->getTargetTriple().str());
  module.setDataLayout(machine->createDataLayout());
  OptimizeLlvmModule(module, *machine, 3);
  std::string ir;
  llvm::raw_string_ostream os(ir);
  module.print(os, nullptr);
  os.flush();
  return ir;
}

// An output that is operand 1's buffer (buffer assignment's in-place
// element-wise fusion) is written through operand 1's pointer: the loop
// vectorizes with no runtime overlap check. Before, LLVM guarded the vector
// loop with a check that the output is at least a vector away from each
// input, which fails when they are equal, so in-place kernels always ran
// the scalar loop (the MLP's GELU kernels: 4x slower). Numerics in place
// are checked against the evaluator by the test below.
TEST(HostFusionEmitter, InPlaceElementwiseLoopVectorizesWithoutOverlapChecks) {
  HostEmitOptions in_place;
  in_place.output_aliases_operand = {1};
  in_place.noalias = {true, true, false};
  const std::string ir = OptimizedBigIr(in_place);
  ASSERT_FALSE(ir.empty());
  EXPECT_NE(ir.find("store <4 x float>"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("diff.check"), std::string::npos) << ir;
  // Control: the same kernel with separate, possibly overlapping buffers
  // keeps the runtime check.
  HostEmitOptions separate;
  const std::string checked = OptimizedBigIr(separate);
  ASSERT_FALSE(checked.empty());
  EXPECT_NE(checked.find("diff.check"), std::string::npos) << checked;
}

TEST(HostFusionEmitter, InPlaceElementwiseMatchesTheEvaluator) {
  for (int64_t operand : {0, 1}) {
    FusionRunOptions o;
    o.emit.output_aliases_operand = {operand};
    o.emit.noalias = {true, true, false};
    Check(R"(
  a = f32[37,129] parameter(0)
  b = f32[37,129] parameter(1)
  s = f32[37,129] add(a, b)
  ROOT m = f32[37,129] multiply(s, a)
)", R"(
  a = f32[37,129] parameter(0)
  b = f32[37,129] parameter(1)
  ROOT f = f32[37,129] fusion(a, b), kind=kLoop, calls=fused
)", "loop", true, o);
  }
}

// Measured, not asserted beyond sanity: GB/s of the kernel on one thread vs a
// plain C++ loop over the same 2 x 16 MiB in, 16 MiB out.
TEST(HostFusionEmitter, ElementwiseThroughputVsPlainLoop) {
  std::unique_ptr<HloModule> m = Parse(kBigFused, kBigEntry);
  ASSERT_NE(m, nullptr);
  llvm::LLVMContext ctx;
  auto module = std::make_unique<llvm::Module>("bw", ctx);
  HostEmitOptions o;
  o.noalias = {true, true, true};
  absl::StatusOr<HostKernelInfo> info =
      EmitHostFusionKernel(*m->entry_computation()->root_instruction(), "k", o, module.get());
  ASSERT_TRUE(info.ok()) << info.status();
  absl::StatusOr<std::string> so = CompileHostSharedObject(*module, HostCompileOptions());
  ASSERT_TRUE(so.ok()) << so.status();
  auto loaded = stream_executor::host::HostKernelModule::Load("bw", *so);
  ASSERT_TRUE(loaded.ok());
  auto kernel = (*loaded)->GetKernel("k");
  ASSERT_TRUE(kernel.ok());
  auto fn = dynamic_cast<stream_executor::host::HostKernel*>(kernel->get())->function();
  const size_t n = 1024 * 4096;
  std::vector<float> a(n + 64), b(n + 64), out(n + 64), ref(n + 64);
  auto align = [](std::vector<float>& v) {
    uintptr_t p = reinterpret_cast<uintptr_t>(v.data());
    return reinterpret_cast<float*>((p + 255) / 256 * 256);
  };
  float *pa = align(a), *pb = align(b), *po = align(out), *pr = align(ref);
  for (size_t i = 0; i < n; ++i) {
    pa[i] = static_cast<float>(i % 1000) * 0.001f;
    pb[i] = static_cast<float>(i % 37) - 3.0f;
  }
  void* buffers[] = {pa, pb, po};
  auto time = [](const std::function<void()>& f) {
    f();
    double best = 1e9;
    for (int rep = 0; rep < 5; ++rep) {
      auto t0 = std::chrono::steady_clock::now();
      f();
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
  };
  const double t_kernel = time([&] { fn(buffers, 3, 0, info->total_blocks); });
  const double t_plain = time([&] {
    for (size_t i = 0; i < n; ++i) pr[i] = (pa[i] + pb[i]) * pa[i];
  });
  ASSERT_EQ(std::memcmp(po, pr, n * sizeof(float)), 0);
  // libc's memcpy (optimized, unlike this -O0 test binary) as the machine's
  // bandwidth reference: 16 MiB in + 16 MiB out.
  const double t_copy = time([&] { std::memcpy(pr, pa, n * sizeof(float)); });
  const double bytes = 3.0 * n * sizeof(float);
  std::printf(
      "elementwise f32[1024,4096]: kernel %.2f GB/s, plain C++ loop (test build flags) %.2f "
      "GB/s, memcpy %.2f GB/s (%lld blocks)\n",
      bytes / t_kernel * 1e-9, bytes / t_plain * 1e-9, 2.0 * n * sizeof(float) / t_copy * 1e-9,
      static_cast<long long>(info->total_blocks));
  EXPECT_LT(t_kernel, 4 * t_plain);
}

}  // namespace
}  // namespace xla::gpu
