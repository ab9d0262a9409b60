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
#include "xla/util/subprocess.h"

namespace xla::aot {
namespace {

// A 5-trip scan that stacks f32[33] rows through MoveToHost into
// f32[5,33], and a second loop that reads them back in reverse through
// MoveToDevice (shared with the other scan_offload_test).
const std::string& ScanText() {
  static const std::string* text = [] {
    absl::StatusOr<std::string> bytes =
        ReadFileBytes("xla/service/buffer_assignment/testdata/scan_offload.hlo");
    if (!bytes.ok()) ADD_FAILURE() << bytes.status() << " (a data dependency of this test)";
    return new std::string(bytes.value_or(""));
  }();
  return *text;
}

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

// Kernel thunks at the top level of `artifact` (outside loops).
int TopLevelKernels(const gpu::GpuExecutableProto& artifact) {
  int n = 0;
  for (const gpu::ThunkProto& t : artifact.payload().thunks()) n += t.has_kernel() ? 1 : 0;
  return n;
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
    absl::StatusOr<gpu::GpuExecutableProto> on = CompileToProto(ScanText(), Options(target, true));
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
    absl::StatusOr<gpu::GpuExecutableProto> off = CompileToProto(ScanText(), Options(target, false));
    ASSERT_TRUE(off.ok()) << off.status();
    EXPECT_TRUE(DynamicCopies(*off).empty());
    EXPECT_FALSE(RequiresFeature(*off, "copy_thunk.dynamic_offset"));
    const gpu::MemoryReport before = gpu::ComputeMemoryReport(off->payload());
    const gpu::MemoryReport after = gpu::ComputeMemoryReport(on->payload());
    EXPECT_LT(after.temp_bytes, before.temp_bytes);
    EXPECT_GT(after.host_offloaded_bytes, before.host_offloaded_bytes);
    // The scan writes every row before the second loop reads any, so the
    // stack's init (a broadcast of 0) writes nothing: one kernel fewer
    // outside the loops, and none left in the kernel table for it.
    EXPECT_EQ(TopLevelKernels(*on), TopLevelKernels(*off) - 1);
    EXPECT_LT(on->payload().kernels_size(), off->payload().kernels_size());
  }
}

// A runtime from before the feature gets the legacy form: the stack on
// the device.
TEST(ScanOffloadTest, AnOlderTargetRuntimeKeepsTheStackOnTheDevice) {
  CompileOptions options = Options("host", true);
  options.target_runtime = "2026-12-02";
  absl::StatusOr<gpu::GpuExecutableProto> old = CompileToProto(ScanText(), options);
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_TRUE(DynamicCopies(*old).empty());
  EXPECT_FALSE(RequiresFeature(*old, "copy_thunk.dynamic_offset"));
  options.target_runtime = "2026-12-03";
  absl::StatusOr<gpu::GpuExecutableProto> now = CompileToProto(ScanText(), options);
  ASSERT_TRUE(now.ok()) << now.status();
  EXPECT_EQ(DynamicCopies(*now).size(), 2u);
}

TEST(ScanOffloadTest, HostRunsMatchTheEvaluatorWithTheFlagOnAndOff) {
  const std::vector<Literal> args = {Values({33}, 0.11, -0.7), Values({5, 33}, -0.09, 0.8)};
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(ScanText());
  ASSERT_TRUE(module.ok()) << module.status();
  HloEvaluator evaluator;
  absl::StatusOr<Literal> want = evaluator.Evaluate(**module, args);
  ASSERT_TRUE(want.ok()) << want.status();
  double largest = 0;
  for (int64_t i = 0; i < 33; ++i) largest = std::max(largest, std::abs(want->tuple_elements()[1].GetDouble(i)));
  EXPECT_GT(largest, 0.1);  // not a test on zeros
  for (bool offload : {true, false}) {
    SCOPED_TRACE(offload ? "offload_scan_stacks" : "default");
    absl::StatusOr<CompiledArtifact> compiled = Compile(ScanText(), Options("host", offload));
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
