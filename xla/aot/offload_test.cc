// Host offloading end to end: a JAX-like program that offloads an
// activation with custom-call MoveToHost and reads it back with
// MoveToDevice compiles for host and sm_90; the artifact keeps the
// offloaded buffer in a host-memory temp allocation and copies it on a
// stream of its own; the host run matches the reference evaluator; on the
// fake CUDA driver the buffer is cuMemHostAlloc memory and the copies are
// device-to-host and host-to-device on the offload stream. Also the
// --device_memory refusal and allocation failures naming the buffer.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/aot/compile.h"
#include "xla/aot/executable.h"
#include "xla/aot/literal_execution.h"
#include "xla/backends/gpu/runtime/checksum.h"
#include "xla/backends/gpu/runtime/memory_report.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/stream_executor/cuda/cuda_platform.h"
#include "xla/stream_executor/cuda/fake_cuda_driver.h"
#include "xla/stream_executor/host/host_executor.h"
#include "xla/util/proto_util.h"

namespace xla::aot {
namespace {

namespace se = ::stream_executor;

// Forward: h = tanh(x . w1) is offloaded; y = exp(h . w2) is computed
// meanwhile; h comes back and the "backward" product (h . w2) scales y.
constexpr char kOffload[] = R"(
HloModule offload_fwd

ENTRY main {
  x = f32[7,5] parameter(0)
  w1 = f32[5,3] parameter(1)
  w2 = f32[3,5] parameter(2)
  h = f32[7,3] dot(x, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[7,3] tanh(h)
  off = f32[7,3] custom-call(t), custom_call_target="MoveToHost"
  y = f32[7,5] dot(t, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  z = f32[7,5] exponential(y)
  back = f32[7,3] custom-call(off), custom_call_target="MoveToDevice"
  g = f32[7,5] dot(back, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = f32[7,5] multiply(z, g)
}
)";

CompileOptions Options(const std::string& target) {
  CompileOptions options;
  options.target = target;
  options.opt_level = 1;
  options.host_cpu_variants.clear();
  options.production_date = "2026-12-02T00:00:00Z";
  return options;
}

Literal Values(std::vector<int64_t> dims, double scale, double shift) {
  Literal l(Shape::Array(PrimitiveType::F32, dims));
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  for (int64_t i = 0; i < n; ++i) l.SetDouble(i, scale * static_cast<double>((i * 7) % 11) + shift);
  return l;
}

// The host-memory allocations of `payload`.
std::vector<int64_t> HostAllocations(const gpu::GpuExecutablePayloadProto& payload) {
  std::vector<int64_t> out;
  for (const gpu::BufferAllocationProto& a : payload.allocations()) {
    if (a.memory_space() == 5) out.push_back(a.index());
  }
  return out;
}

// Every async_start of the top level, with its nested copy.
std::vector<const gpu::ThunkProto*> AsyncStarts(const gpu::GpuExecutablePayloadProto& payload) {
  std::vector<const gpu::ThunkProto*> out;
  for (const gpu::ThunkProto& t : payload.thunks()) {
    if (t.has_async_start()) out.push_back(&t);
  }
  return out;
}

TEST(OffloadTest, ArtifactKeepsTheActivationInHostMemoryAndCopiesOnItsOwnStream) {
  for (const char* target : {"host", "sm_90"}) {
    SCOPED_TRACE(target);
    absl::StatusOr<gpu::GpuExecutableProto> proto = CompileToProto(kOffload, Options(target));
    ASSERT_TRUE(proto.ok()) << proto.status();
    const gpu::GpuExecutablePayloadProto& p = proto->payload();
    const std::vector<int64_t> host = HostAllocations(p);
    ASSERT_EQ(host.size(), 1u);
    const gpu::BufferAllocationProto& h = p.allocations(host[0]);
    EXPECT_TRUE(h.is_temp());
    EXPECT_GE(h.size(), 7 * 3 * 4);
    EXPECT_EQ(p.num_streams(), 3);
    const std::vector<const gpu::ThunkProto*> starts = AsyncStarts(p);
    ASSERT_EQ(starts.size(), 2u);
    // MoveToHost copies device -> host, MoveToDevice host -> device.
    for (int k = 0; k < 2; ++k) {
      const gpu::AsyncStartThunkProto& s = starts[k]->async_start();
      EXPECT_EQ(starts[k]->execution_stream_id(), 0);
      EXPECT_EQ(s.stream_id(), 2);
      ASSERT_EQ(s.thunks().thunks_size(), 1);
      const gpu::ThunkProto& copy = s.thunks().thunks(0);
      ASSERT_TRUE(copy.has_copy());
      EXPECT_EQ(copy.execution_stream_id(), 2);
      EXPECT_EQ(copy.copy().source().size(), 7 * 3 * 4);
      const bool to_host = starts[k]->profile_annotation() == "off";
      EXPECT_EQ(copy.copy().destination().allocation() == host[0], to_host);
      EXPECT_EQ(copy.copy().source().allocation() == host[0], !to_host);
    }
    // Each start is joined by an async_done on the compute stream.
    int dones = 0;
    for (const gpu::ThunkProto& t : p.thunks()) dones += t.has_async_done() ? 1 : 0;
    EXPECT_EQ(dones, 2);
    const gpu::MemoryReport report = gpu::ComputeMemoryReport(p);
    EXPECT_EQ(report.host_offloaded_bytes, 256);  // 84 bytes, aligned
    // No device temp holds the host buffer's bytes.
    EXPECT_EQ(report.parameter_bytes, (35 + 15 + 15) * 4);
    EXPECT_EQ(report.output_bytes, 35 * 4);
  }
}

TEST(OffloadTest, HostRunMatchesTheEvaluator) {
  absl::StatusOr<CompiledArtifact> compiled = Compile(kOffload, Options("host"));
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(compiled->bytes);
  ASSERT_TRUE(exe.ok()) << exe.status();
  const std::vector<Literal> args = {Values({7, 5}, 0.13, -0.6), Values({5, 3}, -0.21, 0.9),
                                     Values({3, 5}, 0.17, -0.8)};
  se::StreamExecutor* executor = gpu::testing::HostExecutor();
  auto* host = static_cast<se::host::HostExecutor*>(executor);
  const uint64_t before = host->host_allocation_count();
  absl::StatusOr<std::vector<Literal>> out = ExecuteOnLiterals(**exe, executor, args);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(host->host_allocation_count(), before + 1);  // the host temp block
  EXPECT_EQ(host->host_allocated_bytes(), 0u);           // freed after the run
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kOffload);
  ASSERT_TRUE(module.ok()) << module.status();
  HloEvaluator evaluator;
  absl::StatusOr<Literal> want = evaluator.Evaluate(**module, args);
  ASSERT_TRUE(want.ok()) << want.status();
  ASSERT_EQ(out->size(), 1u);
  double largest = 0;
  for (int64_t i = 0; i < 35; ++i) largest = std::max(largest, std::abs(want->GetDouble(i)));
  EXPECT_GT(largest, 0.1);  // not a test on zeros
  EXPECT_TRUE(CompareOutputLeaf(*want, (*out)[0]).ok()) << CompareOutputLeaf(*want, (*out)[0]);
}

// Only copies (no kernels: the fake driver does not run PTX): the value
// goes to pinned host memory and back into the result.
constexpr char kRoundTrip[] = R"(
HloModule offload_round_trip

ENTRY main {
  p = f32[7,3] parameter(0)
  off = f32[7,3] custom-call(p), custom_call_target="MoveToHost"
  ROOT back = f32[7,3] custom-call(off), custom_call_target="MoveToDevice"
}
)";

TEST(OffloadTest, FakeCudaDriverUsesPinnedMemoryAndAsyncCopiesOnTheOffloadStream) {
  absl::StatusOr<CompiledArtifact> compiled = Compile(kRoundTrip, Options("sm_80"));
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  se::cuda::FakeCudaDriver driver;
  se::cuda::CudaPlatform platform(&driver.api());
  absl::StatusOr<se::StreamExecutor*> gpu = platform.GetDevice(0);
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(compiled->bytes);
  ASSERT_TRUE(exe.ok()) << exe.status();
  const Literal x = Values({7, 3}, 0.37, -1.1);
  absl::StatusOr<std::vector<Literal>> out = ExecuteOnLiterals(**exe, *gpu, {x});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  for (int64_t i = 0; i < 21; ++i) EXPECT_EQ((*out)[0].GetDouble(i), x.GetDouble(i)) << i;
  EXPECT_EQ(driver.calls("cuMemHostAlloc"), 1);
  EXPECT_EQ(driver.calls("cuMemFreeHost"), 1);
  EXPECT_EQ(driver.live_host_allocations(), 0);
  // The argument upload and result download are htod/dtoh on the main
  // stream; the offload pair is dtoh into pinned memory, then htod out of
  // it, both on one other stream.
  std::vector<se::cuda::FakeCopy> offload;
  CUstream main_stream = nullptr;
  for (const se::cuda::FakeCopy& c : driver.copies()) {
    if (c.dst_pinned || c.src_pinned) {
      offload.push_back(c);
    } else if (main_stream == nullptr && c.kind == "htod") {
      main_stream = c.stream;
    }
  }
  ASSERT_EQ(offload.size(), 2u);
  EXPECT_EQ(offload[0].kind, "dtoh");
  EXPECT_TRUE(offload[0].dst_pinned);
  EXPECT_EQ(offload[0].size, 84u);
  EXPECT_EQ(offload[1].kind, "htod");
  EXPECT_TRUE(offload[1].src_pinned);
  EXPECT_EQ(offload[0].stream, offload[1].stream);
  EXPECT_NE(offload[0].stream, main_stream);
}

// The loader accepts memory space 0 and 5 (host, temporaries only) and
// refuses anything else, naming the field.
TEST(OffloadTest, LoaderChecksTheMemorySpace) {
  absl::StatusOr<gpu::GpuExecutableProto> proto = CompileToProto(kOffload, Options("host"));
  ASSERT_TRUE(proto.ok()) << proto.status();
  const int64_t host = HostAllocations(proto->payload())[0];
  int64_t output = -1;
  for (const gpu::BufferAllocationProto& a : proto->payload().allocations()) {
    if (a.is_output()) output = a.index();
  }
  ASSERT_GE(output, 0);
  struct Case {
    int64_t allocation;
    int64_t memory_space;
    std::string error;  // "" when the artifact loads
  };
  const Case cases[] = {
      {host, 5, ""},
      {host, 0, ""},
      {host, 7, absl::StrCat("allocations[", host, "].memory_space: 7 is not a memory space")},
      {output, 5, absl::StrCat("allocations[", output,
                               "].memory_space: 5 (host) is allowed only on temporaries")},
  };
  for (const Case& c : cases) {
    gpu::GpuExecutableProto changed = *proto;
    changed.mutable_payload()->mutable_allocations(c.allocation)->set_memory_space(c.memory_space);
    gpu::SealArtifact(&changed);
    absl::StatusOr<std::unique_ptr<Executable>> exe =
        Executable::LoadFromBytes(SerializeDeterministically(changed));
    if (c.error.empty()) {
      EXPECT_TRUE(exe.ok()) << exe.status();
      continue;
    }
    ASSERT_FALSE(exe.ok()) << c.memory_space;
    EXPECT_EQ(exe.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StrContains(exe.status().message(), c.error)) << exe.status();
  }
}

TEST(OffloadTest, DeviceMemoryLimitRefusesWithEveryPart) {
  absl::StatusOr<gpu::GpuExecutableProto> proto = CompileToProto(kOffload, Options("host"));
  ASSERT_TRUE(proto.ok()) << proto.status();
  const gpu::MemoryReport r = gpu::ComputeMemoryReport(proto->payload());
  CompileOptions fits = Options("host");
  fits.device_memory_bytes = r.peak_bytes;
  EXPECT_TRUE(Compile(kOffload, fits).ok());
  CompileOptions tight = Options("host");
  tight.source_name = "offload.hlo";
  tight.device_memory_bytes = r.peak_bytes - 1;
  absl::StatusOr<CompiledArtifact> refused = Compile(kOffload, tight);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  for (const char* part : {"offload.hlo: needs", "parameters 260 bytes", "outputs 140 bytes",
                           "temporaries", "constants 0 bytes", "host-offloaded 256 bytes",
                           "the device has"}) {
    EXPECT_TRUE(absl::StrContains(refused.status().message(), part))
        << part << "\n" << refused.status().message();
  }
}

// A temporary of 200000 x 200000 f32 (160 GB: more than the machine's
// memory; the opt-barrier keeps the broadcast from fusing into the reduce)
// fails the run cleanly, naming the allocation and its size.
constexpr char kHugeTemp[] = R"(
HloModule huge_temp

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  a = f32[200000] parameter(0)
  e = f32[200000] exponential(a)
  big = f32[200000,200000] broadcast(e), dimensions={0}
  kept = f32[200000,200000] opt-barrier(big)
  zero = f32[] constant(0)
  ROOT m = f32[] reduce(kept, zero), dimensions={0,1}, to_apply=add
}
)";

TEST(OffloadTest, AnAllocationThatCannotBeHadNamesTheBuffer) {
  absl::StatusOr<gpu::GpuExecutableProto> proto = CompileToProto(kHugeTemp, Options("host"));
  ASSERT_TRUE(proto.ok()) << proto.status();
  int64_t temp = -1;
  for (const gpu::BufferAllocationProto& a : proto->payload().allocations()) {
    if (a.is_temp()) temp = a.index();
  }
  ASSERT_GE(temp, 0);
  ASSERT_GE(proto->payload().allocations(temp).size(), int64_t{160000000000});
  absl::StatusOr<std::unique_ptr<Executable>> exe =
      Executable::LoadFromBytes(SerializeDeterministically(*proto));
  ASSERT_TRUE(exe.ok()) << exe.status();
  const std::vector<Literal> args = {Values({200000}, 0.5, -1)};
  absl::StatusOr<std::vector<Literal>> out =
      ExecuteOnLiterals(**exe, gpu::testing::HostExecutor(), args);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted) << out.status();
  const std::string want = absl::StrCat("allocation ", temp, " (temp, ",
                                        proto->payload().allocations(temp).size(), " bytes)");
  EXPECT_TRUE(absl::StrContains(out.status().message(), want)) << want << "\n" << out.status();
  EXPECT_TRUE(absl::StrContains(out.status().message(), "huge_temp")) << out.status();
}

}  // namespace
}  // namespace xla::aot
