// Scan stacks in host memory end to end (issue 25, --offload_scan_stacks):
// a 5-trip scan stacks f32[33] activations through MoveToHost into an
// f32[5,33] stack, and a second loop reads the rows back in reverse
// through MoveToDevice (the form of the Llama 3 8B offloading step, by
// hand). With the flag the stack lives in the host temp allocation and
// its rows move by copies with dynamic offsets; without it, or for a
// runtime older than the feature, nothing changes. Both run on the host
// and match the reference evaluator.
#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla/aot/compile.h"
#include "xla/aot/executable.h"
#include "xla/aot/literal_execution.h"
#include "xla/backends/gpu/runtime/memory_report.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/literal_compare.h"

namespace xla::aot {
namespace {

constexpr char kScan[] = R"(
HloModule scan_offload

fwd_cond {
  p = (s32[], f32[33], f32[5,33], f32[5,33]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}

fwd_body {
  p = (s32[], f32[33], f32[5,33], f32[5,33]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  c = f32[33] get-tuple-element(p), index=1
  ws = f32[5,33] get-tuple-element(p), index=2
  stack = f32[5,33] get-tuple-element(p), index=3
  zero = s32[] constant(0)
  wrow = f32[1,33] dynamic-slice(ws, i, zero), dynamic_slice_sizes={1,33}
  w = f32[33] reshape(wrow)
  cw = f32[33] multiply(c, w)
  h = f32[33] sine(cw)
  off = f32[33] custom-call(h), custom_call_target="MoveToHost"
  row = f32[1,33] reshape(off)
  stack2 = f32[5,33] dynamic-update-slice(stack, row, i, zero)
  half = f32[] constant(0.5)
  halfs = f32[33] broadcast(half), dimensions={}
  t = f32[33] tanh(h)
  th = f32[33] multiply(t, halfs)
  c2 = f32[33] add(th, c)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT r = (s32[], f32[33], f32[5,33], f32[5,33]) tuple(i2, c2, ws, stack2)
}

bwd_cond {
  p = (s32[], f32[33], f32[5,33], f32[5,33]) parameter(0)
  j = s32[] get-tuple-element(p), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(j, n), direction=LT
}

bwd_body {
  p = (s32[], f32[33], f32[5,33], f32[5,33]) parameter(0)
  j = s32[] get-tuple-element(p), index=0
  g = f32[33] get-tuple-element(p), index=1
  ws = f32[5,33] get-tuple-element(p), index=2
  stack = f32[5,33] get-tuple-element(p), index=3
  four = s32[] constant(4)
  idx = s32[] subtract(four, j)
  zero = s32[] constant(0)
  srow = f32[1,33] dynamic-slice(stack, idx, zero), dynamic_slice_sizes={1,33}
  sq = f32[33] reshape(srow)
  h = f32[33] custom-call(sq), custom_call_target="MoveToDevice"
  wrow = f32[1,33] dynamic-slice(ws, idx, zero), dynamic_slice_sizes={1,33}
  w = f32[33] reshape(wrow)
  ch = f32[33] cosine(h)
  gw = f32[33] multiply(g, w)
  g2a = f32[33] multiply(gw, ch)
  g2 = f32[33] add(g2a, h)
  one = s32[] constant(1)
  j2 = s32[] add(j, one)
  ROOT r = (s32[], f32[33], f32[5,33], f32[5,33]) tuple(j2, g2, ws, stack)
}

ENTRY main {
  x = f32[33] parameter(0)
  ws = f32[5,33] parameter(1)
  zero = s32[] constant(0)
  z = f32[] constant(0)
  init = f32[5,33] broadcast(z), dimensions={}
  t = (s32[], f32[33], f32[5,33], f32[5,33]) tuple(zero, x, ws, init)
  fw = (s32[], f32[33], f32[5,33], f32[5,33]) while(t), condition=fwd_cond, body=fwd_body
  c = f32[33] get-tuple-element(fw), index=1
  stack = f32[5,33] get-tuple-element(fw), index=3
  g0 = f32[33] multiply(c, c)
  t2 = (s32[], f32[33], f32[5,33], f32[5,33]) tuple(zero, g0, ws, stack)
  bw = (s32[], f32[33], f32[5,33], f32[5,33]) while(t2), condition=bwd_cond, body=bwd_body
  g = f32[33] get-tuple-element(bw), index=1
  ROOT out = (f32[33], f32[33]) tuple(c, g)
}
)";

CompileOptions Options(const std::string& target, bool offload) {
  CompileOptions options;
  options.target = target;
  options.opt_level = 1;
  options.host_cpu_variants.clear();
  options.production_date = "2026-12-03T00:00:00Z";
  options.offload_scan_stacks = offload;
  return options;
}

Literal Values(std::vector<int64_t> dims, double scale, double shift) {
  Literal l(Shape::Array(PrimitiveType::F32, dims));
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  for (int64_t i = 0; i < n; ++i) l.SetDouble(i, scale * static_cast<double>((i * 7) % 13) + shift);
  return l;
}

// The copies with a dynamic offset anywhere in `thunks`.
void DynamicCopies(const google::protobuf::RepeatedPtrField<gpu::ThunkProto>& thunks,
                   std::vector<const gpu::CopyThunkProto*>* out) {
  for (const gpu::ThunkProto& t : thunks) {
    if (t.has_copy() && t.copy().has_dynamic_offset()) out->push_back(&t.copy());
    if (t.has_while_()) {
      DynamicCopies(t.while_().condition().thunks(), out);
      DynamicCopies(t.while_().body().thunks(), out);
    }
    if (t.has_async_start()) DynamicCopies(t.async_start().thunks().thunks(), out);
    if (t.has_sequential()) DynamicCopies(t.sequential().thunks(), out);
  }
}

std::vector<const gpu::CopyThunkProto*> DynamicCopies(const gpu::GpuExecutableProto& artifact) {
  std::vector<const gpu::CopyThunkProto*> out;
  DynamicCopies(artifact.payload().thunks(), &out);
  return out;
}

bool RequiresFeature(const gpu::GpuExecutableProto& artifact, const std::string& feature) {
  for (const std::string& f : artifact.header().required_runtime_features()) {
    if (f == feature) return true;
  }
  return false;
}

TEST(ScanOffloadTest, TheStackLivesInHostMemoryAndItsRowsMoveByDynamicCopies) {
  for (const char* target : {"host", "sm_90"}) {
    SCOPED_TRACE(target);
    absl::StatusOr<gpu::GpuExecutableProto> on = CompileToProto(kScan, Options(target, true));
    ASSERT_TRUE(on.ok()) << on.status();
    const std::vector<const gpu::CopyThunkProto*> copies = DynamicCopies(*on);
    ASSERT_EQ(copies.size(), 2u);
    // The push: the device row into host row i; the pop: host row 4 - i.
    const gpu::CopyThunkProto& push = *copies[0];
    const gpu::CopyThunkProto& pop = *copies[1];
    const int64_t host = push.destination().allocation();
    EXPECT_EQ(on->payload().allocations(host).memory_space(), 5);
    EXPECT_GE(on->payload().allocations(host).size(), 5 * 33 * 4);
    EXPECT_EQ(push.source().size(), 33 * 4);
    EXPECT_NE(on->payload().allocations(push.source().allocation()).memory_space(), 5);
    EXPECT_EQ(push.dynamic_offset().destination_base(), 0);
    EXPECT_EQ(push.dynamic_offset().destination_stride(), 33 * 4);
    EXPECT_EQ(push.dynamic_offset().source_stride(), 0);
    EXPECT_EQ(pop.source().allocation(), host);
    EXPECT_EQ(pop.dynamic_offset().source_base(), 4 * 33 * 4);
    EXPECT_EQ(pop.dynamic_offset().source_stride(), -33 * 4);
    EXPECT_TRUE(RequiresFeature(*on, "copy_thunk.dynamic_offset"));
    // Off: the stack is a device temporary, as before.
    absl::StatusOr<gpu::GpuExecutableProto> off = CompileToProto(kScan, Options(target, false));
    ASSERT_TRUE(off.ok()) << off.status();
    EXPECT_TRUE(DynamicCopies(*off).empty());
    EXPECT_FALSE(RequiresFeature(*off, "copy_thunk.dynamic_offset"));
    const gpu::MemoryReport before = gpu::ComputeMemoryReport(off->payload());
    const gpu::MemoryReport after = gpu::ComputeMemoryReport(on->payload());
    EXPECT_LT(after.temp_bytes, before.temp_bytes);
    EXPECT_GT(after.host_offloaded_bytes, before.host_offloaded_bytes);
  }
}

// A runtime from before the feature gets the legacy form: the stack on
// the device.
TEST(ScanOffloadTest, AnOlderTargetRuntimeKeepsTheStackOnTheDevice) {
  CompileOptions options = Options("host", true);
  options.target_runtime = "2026-12-02";
  absl::StatusOr<gpu::GpuExecutableProto> old = CompileToProto(kScan, options);
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_TRUE(DynamicCopies(*old).empty());
  EXPECT_FALSE(RequiresFeature(*old, "copy_thunk.dynamic_offset"));
  options.target_runtime = "2026-12-03";
  absl::StatusOr<gpu::GpuExecutableProto> now = CompileToProto(kScan, options);
  ASSERT_TRUE(now.ok()) << now.status();
  EXPECT_EQ(DynamicCopies(*now).size(), 2u);
}

TEST(ScanOffloadTest, HostRunsMatchTheEvaluatorWithTheFlagOnAndOff) {
  const std::vector<Literal> args = {Values({33}, 0.11, -0.7), Values({5, 33}, -0.09, 0.8)};
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kScan);
  ASSERT_TRUE(module.ok()) << module.status();
  HloEvaluator evaluator;
  absl::StatusOr<Literal> want = evaluator.Evaluate(**module, args);
  ASSERT_TRUE(want.ok()) << want.status();
  double largest = 0;
  for (int64_t i = 0; i < 33; ++i) largest = std::max(largest, std::abs(want->tuple_elements()[1].GetDouble(i)));
  EXPECT_GT(largest, 0.1);  // not a test on zeros
  for (bool offload : {true, false}) {
    SCOPED_TRACE(offload ? "offload_scan_stacks" : "default");
    absl::StatusOr<CompiledArtifact> compiled = Compile(kScan, Options("host", offload));
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(compiled->bytes);
    ASSERT_TRUE(exe.ok()) << exe.status();
    absl::StatusOr<std::vector<Literal>> out =
        ExecuteOnLiterals(**exe, gpu::testing::HostExecutor(), args);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 2u);
    for (int k = 0; k < 2; ++k) {
      absl::Status same = CompareOutputLeaf(want->tuple_elements()[k], (*out)[k]);
      EXPECT_TRUE(same.ok()) << "output " << k << ": " << same;
    }
  }
}

}  // namespace
}  // namespace xla::aot
