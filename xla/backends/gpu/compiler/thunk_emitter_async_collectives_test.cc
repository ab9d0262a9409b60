// Async collectives on the communication stream (issue 12), end to end:
// compiled with --emit_collectives, loaded, and run on 2 host devices (one
// thread per replica, as xla/aot/replicated_execution.h does, but with a
// ThunkTracer per replica).
//
//  * Overlap: replica 1 reaches the collective late (a while loop whose trip
//    count is its argument), so replica 0's collective waits on the
//    communication stream; the kernel scheduled between -start and -done
//    must finish on the compute stream before that collective does. With
//    the old synchronous form the kernel ran after it.
//  * Fallback: a synchronous all-reduce, or a read of the start's result,
//    between -start and -done makes the emitter join the pair at once.
//  * Values are checked against hand-computed results in every case, and
//    `xla_aot inspect` shows the collective on stream 1.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/aot/executable.h"
#include "xla/backends/gpu/compiler/host_compiler.h"
#include "xla/backends/gpu/compiler/thunk_emitter.h"
#include "xla/backends/gpu/runtime/collectives/collective_context.h"
#include "xla/backends/gpu/runtime/collectives/in_process_communicator.h"
#include "xla/backends/gpu/runtime/thunk_trace.h"
#include "xla/stream_executor/host/host_executor.h"
#include "xla/tools/inspect_command.h"

namespace xla::gpu {
namespace {

namespace se = ::stream_executor;

// Replica r's trip count of the delay loop: replica 1 arrives late.
constexpr int32_t kLateTrips = 800;

// The permute operand is x + n (n trips of +1); the kernel `k` between
// -start and -done squares the start's element 0 (the operand's copy), which
// does not depend on the exchange. No control edge: the scheduler puts the
// -start first and the -done last (list_scheduler.h), so `k` lands between
// them.
constexpr char kOverlapHlo[] = R"(
HloModule overlap, replica_count=2
cond {
  p = (s32[], s32[], f32[7]{0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] get-tuple-element(p), index=1
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], s32[], f32[7]{0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] get-tuple-element(p), index=1
  v = f32[7]{0} get-tuple-element(p), index=2
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  onef = f32[] constant(1)
  ones = f32[7]{0} broadcast(onef), dimensions={}
  v1 = f32[7]{0} add(v, ones)
  ROOT r = (s32[], s32[], f32[7]{0}) tuple(i1, n, v1)
}
ENTRY main {
  x = f32[7]{0} parameter(0)
  n = s32[] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], s32[], f32[7]{0}) tuple(zero, n, x)
  loop = (s32[], s32[], f32[7]{0}) while(init), condition=cond, body=body
  w = f32[7]{0} get-tuple-element(loop), index=2
  cps = (f32[7]{0}, f32[7]{0}) collective-permute-start(w), source_target_pairs={{0,1},{1,0}}
  w0 = f32[7]{0} get-tuple-element(cps), index=0
  k = f32[7]{0} multiply(w0, w0)
  cpd = f32[7]{0} collective-permute-done(cps)
  ROOT t = (f32[7]{0}, f32[7]{0}) tuple(k, cpd)
}
)";

float X(int r, int i) { return 0.5f + 1.25f * static_cast<float>(i) - 3.0f * static_cast<float>(r); }

struct Compiled {
  GpuExecutableProto artifact;
  // Two host devices; they outlive the executable initialized on them.
  std::vector<std::unique_ptr<se::host::HostExecutor>> devices;
  std::unique_ptr<aot::Executable> exe;
};

std::unique_ptr<Compiled> Compile(const std::string& hlo) {
  HostCompilerOptions options;
  options.thunks.emit_collectives = true;
  absl::StatusOr<GpuExecutableProto> artifact = CompileHloToHostArtifactProto(hlo, options);
  EXPECT_TRUE(artifact.ok()) << artifact.status();
  if (!artifact.ok()) return nullptr;
  auto out = std::make_unique<Compiled>();
  out->artifact = *artifact;
  for (int r = 0; r < 2; ++r) {
    out->devices.push_back(std::make_unique<se::host::HostExecutor>());
  }
  absl::StatusOr<std::unique_ptr<aot::Executable>> exe =
      aot::Executable::LoadFromProto(std::make_unique<GpuExecutableProto>(*artifact));
  EXPECT_TRUE(exe.ok()) << exe.status();
  if (!exe.ok()) return nullptr;
  out->exe = std::move(*exe);
  return out;
}

// One replica's arguments, as host buffers of its device.
struct HostArgs {
  std::vector<std::vector<char>> bytes;
};

// Runs `c.exe` on its two host devices with run id `run_id`; replica r
// gets args[r] and its trace goes to traces[r]. Returns each replica's
// outputs as float vectors (one per result leaf), or fails the test.
std::vector<std::vector<std::vector<float>>> RunTwo(Compiled& c, const std::vector<HostArgs>& args,
                                                    int64_t run_id, ThunkTracer* traces) {
  constexpr int kN = 2;
  aot::Executable& exe = *c.exe;
  InProcessCliques cliques(absl::Seconds(60));
  std::vector<std::unique_ptr<se::host::HostExecutor>>& devices = c.devices;
  std::vector<CollectiveContext> contexts(kN);
  for (int r = 0; r < kN; ++r) {
    contexts[r].replica_id = r;
    contexts[r].run_id = run_id;
    contexts[r].replica_devices = {0, 1};
    contexts[r].communicator = [&cliques](const CliqueKey& key, int64_t device) {
      return cliques.GetForStream(key, device);
    };
  }
  std::vector<std::vector<std::vector<float>>> results(kN);
  std::vector<absl::Status> status(kN);
  std::vector<std::thread> threads;
  for (int r = 0; r < kN; ++r) {
    threads.emplace_back([&, r] {
      se::StreamExecutor* device = devices[r].get();
      status[r] = exe.Initialize(device);
      if (!status[r].ok()) return;
      std::vector<se::DeviceMemoryBase> memory;
      std::vector<aot::ExecutionArgument> arguments;
      for (const std::vector<char>& b : args[r].bytes) {
        absl::StatusOr<se::DeviceMemoryBase> m = device->Allocate(b.size());
        if (!m.ok()) {
          status[r] = m.status();
          return;
        }
        std::memcpy(m->opaque, b.data(), b.size());
        memory.push_back(*m);
        arguments.push_back(aot::ExecutionArgument::Borrow(*m));
      }
      ExecuteOptions options;
      options.tracer = &traces[r];
      options.collectives = &contexts[r];
      absl::StatusOr<std::vector<se::OwningDeviceMemory>> out =
          exe.Execute(device, std::move(arguments), options);
      for (se::DeviceMemoryBase m : memory) (void)device->Deallocate(m);
      if (!out.ok()) {
        status[r] = out.status();
        return;
      }
      for (const se::OwningDeviceMemory& o : *out) {
        std::vector<float> leaf(o.get().size / sizeof(float));
        std::memcpy(leaf.data(), o.get().opaque, leaf.size() * sizeof(float));
        results[r].push_back(std::move(leaf));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int r = 0; r < kN; ++r) EXPECT_TRUE(status[r].ok()) << "replica " << r << ": " << status[r];
  return results;
}

template <typename T>
std::vector<char> Bytes(const std::vector<T>& values) {
  std::vector<char> out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

std::vector<float> XOf(int r) {
  std::vector<float> x(7);
  for (int i = 0; i < 7; ++i) x[i] = X(r, i);
  return x;
}

// Position of the first top-level thunk with `kind` set after `from`, or -1.
int Find(const GpuExecutablePayloadProto& p, ThunkProto::KindCase kind, int from = 0) {
  for (int i = from; i < p.thunks_size(); ++i) {
    if (p.thunks(i).kind_case() == kind) return i;
  }
  return -1;
}

TEST(AsyncCollectives, ArtifactPutsTheCollectiveOnItsOwnStream) {
  std::unique_ptr<Compiled> c = Compile(kOverlapHlo);
  ASSERT_NE(c, nullptr);
  const GpuExecutablePayloadProto& p = c->artifact.payload();
  EXPECT_EQ(p.num_streams(), 2);
  const int start = Find(p, ThunkProto::kAsyncStart);
  ASSERT_GE(start, 0);
  const int done = Find(p, ThunkProto::kAsyncDone, start);
  ASSERT_GT(done, start);
  const ThunkProto& s = p.thunks(start);
  EXPECT_EQ(s.execution_stream_id(), 0);
  EXPECT_EQ(s.async_start().stream_id(), kCollectiveStream);
  EXPECT_EQ(p.thunks(done).async_done().async_id(), s.async_start().async_id());
  ASSERT_EQ(s.async_start().thunks().thunks_size(), 1);
  const ThunkProto& collective = s.async_start().thunks().thunks(0);
  EXPECT_TRUE(collective.has_collective());
  EXPECT_EQ(collective.execution_stream_id(), kCollectiveStream);
  // The square runs on the compute stream while the permute is in flight.
  const int kernel = Find(p, ThunkProto::kKernel, start);
  EXPECT_GT(kernel, start);
  EXPECT_LT(kernel, done);
  EXPECT_EQ(p.thunks(kernel).execution_stream_id(), 0);
  // Both features are required (old runtimes refuse the artifact by name).
  const auto& features = c->artifact.header().required_runtime_features();
  EXPECT_NE(std::find(features.begin(), features.end(), "collectives"), features.end());
  EXPECT_NE(std::find(features.begin(), features.end(), "async_streams"), features.end());

  // `xla_aot inspect` shows the stream assignment.
  const std::string path = absl::StrCat(::testing::TempDir(), "/overlap.xaot");
  {
    std::string bytes;
    ASSERT_TRUE(c->artifact.SerializeToString(&bytes));
    FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
  }
  std::ostringstream out, err;
  ASSERT_EQ(::xla::cli::RunInspect({path}, out, err), 0) << err.str();
  EXPECT_TRUE(absl::StrContains(out.str(), "streams: 2")) << out.str();
  EXPECT_TRUE(absl::StrContains(out.str(), "\"cps\" id=0 on stream 1")) << out.str();
  EXPECT_TRUE(absl::StrContains(out.str(), "collective [stream 1] \"cps\"")) << out.str();
}

TEST(AsyncCollectives, KernelBetweenStartAndDoneOverlapsALateCollective) {
  std::unique_ptr<Compiled> c = Compile(kOverlapHlo);
  ASSERT_NE(c, nullptr);
  std::vector<HostArgs> args(2);
  const int32_t trips[2] = {0, kLateTrips};
  for (int r = 0; r < 2; ++r) {
    args[r].bytes.push_back(Bytes(XOf(r)));
    args[r].bytes.push_back(Bytes(std::vector<int32_t>{trips[r]}));
  }
  ThunkTracer traces[2];
  std::vector<std::vector<std::vector<float>>> out = RunTwo(*c, args, /*run_id=*/1, traces);
  ASSERT_EQ(out.size(), 2u);
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(out[r].size(), 2u) << r;
    for (int i = 0; i < 7; ++i) {
      const float mine = X(r, i) + static_cast<float>(trips[r]);
      const float theirs = X(1 - r, i) + static_cast<float>(trips[1 - r]);
      EXPECT_EQ(out[r][0][i], mine * mine) << "k, replica " << r << " i " << i;
      EXPECT_EQ(out[r][1][i], theirs) << "cpd, replica " << r << " i " << i;
    }
  }
  // Replica 0: the kernel enqueued between async_start and async_done (on
  // stream 0) ends before the collective (on stream 1) does, which waited
  // for replica 1's loop.
  const std::deque<ThunkTraceEvent>& events = traces[0].events();
  int64_t start = -1, done = -1, collective = -1, kernel = -1;
  for (size_t i = 0; i < events.size(); ++i) {
    const ThunkTraceEvent& e = events[i];
    if (e.kind == Thunk::Kind::kAsyncStart && start < 0) start = static_cast<int64_t>(i);
    if (e.kind == Thunk::Kind::kCollective) collective = static_cast<int64_t>(i);
    if (e.kind == Thunk::Kind::kAsyncDone && start >= 0 && done < 0) done = static_cast<int64_t>(i);
    if (e.kind == Thunk::Kind::kKernel && start >= 0 && done < 0 && e.depth == 0) {
      kernel = static_cast<int64_t>(i);
    }
  }
  ASSERT_GE(start, 0);
  ASSERT_GT(done, start);
  ASSERT_GE(collective, 0);
  ASSERT_GE(kernel, 0);
  const ThunkTraceEvent& c_event = events[collective];
  const ThunkTraceEvent& k_event = events[kernel];
  EXPECT_EQ(c_event.stream_id, kCollectiveStream);
  EXPECT_EQ(k_event.stream_id, 0);
  ASSERT_GE(k_event.end_ns, 0);
  ASSERT_GE(c_event.end_ns, 0);
  EXPECT_LT(k_event.end_ns, c_event.end_ns)
      << "the kernel between -start and -done did not overlap the collective: kernel ["
      << k_event.start_ns << ", " << k_event.end_ns << "], collective [" << c_event.start_ns
      << ", " << c_event.end_ns << "]";
  // How long replica 0's collective waited, and how much the kernel gained.
  std::printf("collective waited %.3f ms; kernel ended %.3f ms before it\n",
              (c_event.end_ns - c_event.start_ns) / 1e6, (c_event.end_ns - k_event.end_ns) / 1e6);
}

// A synchronous collective between -start and -done would run on the
// compute stream concurrently with the communication stream, and the
// communicator matches ops in arrival order: the pair is joined at once.
// So is a pair whose result is read before the -done.
TEST(AsyncCollectives, UnsafePairsAreJoinedAtOnceAndStayCorrect) {
  std::unique_ptr<Compiled> c = Compile(R"(
HloModule fallback, replica_count=2
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[7]{0} parameter(0)
  cps = (f32[7]{0}, f32[7]{0}) collective-permute-start(x), source_target_pairs={{0,1},{1,0}}
  x0 = f32[7]{0} get-tuple-element(cps), index=0
  ar = f32[7]{0} all-reduce(x0), replica_groups={{0,1}}, to_apply=sum
  cpd = f32[7]{0} collective-permute-done(cps), control-predecessors={ar}
  ags = (f32[7]{0}, f32[14]{0}) all-gather-start(x), dimensions={0}, replica_groups={{0,1}}
  early = f32[14]{0} get-tuple-element(ags), index=1
  neg = f32[14]{0} negate(early)
  agd = f32[14]{0} all-gather-done(ags), control-predecessors={neg}
  ROOT t = (f32[7]{0}, f32[7]{0}, f32[14]{0}, f32[14]{0}) tuple(ar, cpd, neg, agd)
}
)");
  ASSERT_NE(c, nullptr);
  const GpuExecutablePayloadProto& p = c->artifact.payload();
  int pairs = 0;
  for (int i = Find(p, ThunkProto::kAsyncStart); i >= 0; i = Find(p, ThunkProto::kAsyncStart, i + 1)) {
    ++pairs;
    ASSERT_LT(i + 1, p.thunks_size());
    EXPECT_TRUE(p.thunks(i + 1).has_async_done()) << "pair " << p.thunks(i).profile_annotation()
                                                  << " is not joined at once";
  }
  EXPECT_EQ(pairs, 2);
  std::vector<HostArgs> args(2);
  for (int r = 0; r < 2; ++r) args[r].bytes.push_back(Bytes(XOf(r)));
  ThunkTracer traces[2];
  std::vector<std::vector<std::vector<float>>> out = RunTwo(*c, args, /*run_id=*/2, traces);
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(out[r].size(), 4u) << r;
    for (int i = 0; i < 7; ++i) {
      EXPECT_EQ(out[r][0][i], X(0, i) + X(1, i)) << "ar r" << r << " i" << i;
      EXPECT_EQ(out[r][1][i], X(1 - r, i)) << "cpd r" << r << " i" << i;
      for (int q = 0; q < 2; ++q) {
        EXPECT_EQ(out[r][2][q * 7 + i], -X(q, i)) << "neg r" << r;
        EXPECT_EQ(out[r][3][q * 7 + i], X(q, i)) << "agd r" << r;
      }
    }
  }
}

}  // namespace
}  // namespace xla::gpu
