// End to end: HLO with collectives compiled for the host target (with
// emit_collectives), run on 2, 4 and 8 host devices, checked against values
// computed here from each replica's inputs (collective-broadcast: against
// the replicated reference evaluator).
#include "xla/aot/replicated_execution.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/compiler/gpu_compiler.h"
#include "xla/backends/gpu/compiler/host_compiler.h"
#include "xla/stream_executor/cuda/cuda_platform.h"
#include "xla/stream_executor/cuda/fake_cuda_driver.h"
#include "xla/stream_executor/cuda/fake_nccl.h"
#include "xla/stream_executor/cuda/nccl_api.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/evaluator/replicated_evaluator.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/literal_compare.h"

namespace xla::aot {
namespace {

namespace se = ::stream_executor;

std::unique_ptr<Executable> Compile(const std::string& hlo) {
  gpu::HostCompilerOptions options;
  options.thunks.emit_collectives = true;
  absl::StatusOr<std::string> bytes = gpu::CompileHloToHostArtifact(hlo, options);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  if (!bytes.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(*bytes);
  EXPECT_TRUE(exe.ok()) << exe.status();
  return exe.ok() ? std::move(*exe) : nullptr;
}

// "{{a,b},{c,d}}".
std::string Groups(const std::vector<std::vector<int64_t>>& groups) {
  std::vector<std::string> parts;
  for (const auto& g : groups) parts.push_back(absl::StrCat("{", absl::StrJoin(g, ","), "}"));
  return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
}

constexpr int kSum = 7;  // odd sizes

// One module exercising every collective on n replicas:
//   0: all-reduce sum f32[7] over all replicas (explicit list)
//   1: all-reduce max s32[5] over pairs {0,1},{2,3},...
//   2: all-gather f32[3,2] along dimension 1 over all replicas in reverse order
//   3: reduce-scatter sum s32[2*2,3] along 0 over pairs listed {1,0},{3,2},...
//   4: collective-permute f32[3,2], ring r -> r+1 without the wrap
//   5: all-to-all f32[n,3] along 0 over all replicas
//   6: replica-id
std::string Module(int n, std::vector<int64_t>* reversed) {
  std::vector<int64_t> all;
  for (int r = 0; r < n; ++r) all.push_back(r);
  reversed->assign(all.rbegin(), all.rend());
  std::vector<std::vector<int64_t>> pairs, swapped;
  for (int r = 0; r < n; r += 2) {
    pairs.push_back({r, r + 1});
    swapped.push_back({r + 1, r});
  }
  std::vector<std::vector<int64_t>> ring;
  for (int r = 0; r + 1 < n; ++r) ring.push_back({r, r + 1});
  return absl::StrCat(R"(
HloModule collectives, replica_count=)", n, R"(
sum_f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
sum_i {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
max_i {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT m = s32[] maximum(a, b)
}
ENTRY main {
  x = f32[7]{0} parameter(0)
  y = s32[5]{0} parameter(1)
  g = f32[3,2]{1,0} parameter(2)
  z = s32[4,3]{1,0} parameter(3)
  w = f32[)", n, R"(,3]{1,0} parameter(4)
  ar = f32[7]{0} all-reduce(x), replica_groups=)", Groups({all}), R"(, to_apply=sum_f
  mx = s32[5]{0} all-reduce(y), replica_groups=)", Groups(pairs), R"(, to_apply=max_i
  ag = f32[3,)", 2 * n, R"(]{1,0} all-gather(g), dimensions={1}, replica_groups=)",
                      Groups({*reversed}), R"(
  rs = s32[2,3]{1,0} reduce-scatter(z), dimensions={0}, replica_groups=)", Groups(swapped),
                      R"(, to_apply=sum_i
  cp = f32[3,2]{1,0} collective-permute(g), source_target_pairs=)", Groups(ring), R"(
  aa = f32[)", n, R"(,3]{1,0} all-to-all(w), dimensions={0}, replica_groups=)", Groups({all}), R"(
  id = u32[] replica-id()
  ROOT t = (f32[7]{0}, s32[5]{0}, f32[3,)", 2 * n, R"(]{1,0}, s32[2,3]{1,0}, f32[3,2]{1,0}, f32[)",
                      n, R"(,3]{1,0}, u32[]) tuple(ar, mx, ag, rs, cp, aa, id)
}
)");
}

float X(int r, int i) { return 0.25f * r + 1.5f * i - 3.1f; }
int32_t Y(int r, int i) { return (i % 2 == 0 ? 1 : -1) * (13 * r + i) + 4; }
float G(int r, int i) { return 10.0f * r + i + 0.5f; }  // i = row * 2 + column
int32_t Z(int r, int i) { return 100 * r - 7 * i; }      // i = row * 3 + column
float W(int r, int i) { return 1000.0f * r + i; }        // i = row * 3 + column

Literal Make(PrimitiveType type, std::vector<int64_t> dims, const std::function<double(int)>& f) {
  Literal l(Shape::Array(type, dims));
  for (int64_t i = 0; i < l.element_count(); ++i) l.SetDouble(i, f(static_cast<int>(i)));
  return l;
}

// Checks the outputs of Module(n) run on `args` (EveryCollectiveArgs)
// against hand-computed values.
void ExpectEveryCollective(const std::vector<std::vector<Literal>>& out, int n,
                           const std::vector<int64_t>& reversed) {
  ASSERT_EQ(out.size(), static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) {
    const std::vector<Literal>& o = out[r];
    ASSERT_EQ(o.size(), 7u);
    for (int i = 0; i < kSum; ++i) {
      float want = X(0, i);
      for (int k = 1; k < n; ++k) want += X(k, i);
      EXPECT_EQ(static_cast<float>(o[0].GetDouble(i)), want) << "all-reduce r" << r << " i" << i;
    }
    const int partner = r ^ 1;
    for (int i = 0; i < 5; ++i) {
      EXPECT_EQ(o[1].GetInt(i), std::max(Y(r, i), Y(partner, i))) << "max r" << r << " i" << i;
    }
    for (int row = 0; row < 3; ++row) {
      for (int p = 0; p < n; ++p) {
        for (int c = 0; c < 2; ++c) {
          EXPECT_EQ(o[2].GetDouble(row * 2 * n + p * 2 + c), G(reversed[p], row * 2 + c))
              << "all-gather r" << r;
        }
      }
    }
    // Group {r|1, r&~1}: position 0 is the odd replica, 1 the even one.
    const int position = r % 2 == 1 ? 0 : 1;
    for (int row = 0; row < 2; ++row) {
      for (int c = 0; c < 3; ++c) {
        const int i = (position * 2 + row) * 3 + c;
        EXPECT_EQ(o[3].GetInt(row * 3 + c), Z(r, i) + Z(partner, i)) << "reduce-scatter r" << r;
      }
    }
    for (int i = 0; i < 6; ++i) {
      EXPECT_EQ(o[4].GetDouble(i), r == 0 ? 0.0 : G(r - 1, i)) << "permute r" << r;
    }
    for (int j = 0; j < n; ++j) {
      for (int c = 0; c < 3; ++c) {
        EXPECT_EQ(o[5].GetDouble(j * 3 + c), W(j, r * 3 + c)) << "all-to-all r" << r;
      }
    }
    EXPECT_EQ(o[6].GetInt(0), r);
  }
}

// Module(n)'s arguments for each of n replicas.
std::vector<std::vector<Literal>> EveryCollectiveArgs(int n) {
  std::vector<std::vector<Literal>> args(n);
  for (int r = 0; r < n; ++r) {
    args[r].push_back(Make(PrimitiveType::F32, {kSum}, [r](int i) { return X(r, i); }));
    args[r].push_back(Make(PrimitiveType::S32, {5}, [r](int i) { return Y(r, i); }));
    args[r].push_back(Make(PrimitiveType::F32, {3, 2}, [r](int i) { return G(r, i); }));
    args[r].push_back(Make(PrimitiveType::S32, {4, 3}, [r](int i) { return Z(r, i); }));
    args[r].push_back(Make(PrimitiveType::F32, {n, 3}, [r](int i) { return W(r, i); }));
  }
  return args;
}

class ReplicatedExecutionTest : public ::testing::TestWithParam<int> {};

// A replicated executor of `exe` on `n` host devices, with a collective
// timeout long enough for a loaded machine.
absl::StatusOr<std::unique_ptr<ReplicatedExecutor>> MakeExecutor(Executable& exe, int n) {
  ReplicatedExecutionOptions options;
  options.num_replicas = n;
  options.collective_timeout = absl::Seconds(30);
  return ReplicatedExecutor::Create(exe, options);
}

TEST_P(ReplicatedExecutionTest, EveryCollectiveMatchesHandComputedValues) {
  const int n = GetParam();
  std::vector<int64_t> reversed;
  std::unique_ptr<Executable> exe = Compile(Module(n, &reversed));
  ASSERT_NE(exe, nullptr);
  absl::StatusOr<std::unique_ptr<ReplicatedExecutor>> exec = MakeExecutor(*exe, n);
  ASSERT_TRUE(exec.ok()) << exec.status();
  const std::vector<std::vector<Literal>> args = EveryCollectiveArgs(n);
  std::vector<std::vector<Literal>> first;
  for (int run = 0; run < 2; ++run) {  // twice: bit-identical, cliques reused
    absl::StatusOr<std::vector<std::vector<Literal>>> out = (*exec)->RunOnLiterals(args);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectEveryCollective(*out, n, reversed);
    for (int r = 0; r < n; ++r) {
      const std::vector<Literal>& o = (*out)[r];
      if (run == 1) {
        for (size_t k = 0; k < o.size(); ++k) {
          EXPECT_TRUE(o[k].data() == first[r][k].data()) << "run 2 differs, r" << r << " leaf " << k;
        }
      }
    }
    if (run == 0) first = std::move(*out);
  }
  // all (1) + pairs (n/2) + reversed (same members as all) + swapped pairs
  // (same members as pairs) + ring (all n): cliques by member set; with 2
  // replicas the pair is everyone.
  EXPECT_EQ((*exec)->num_cliques(), n == 2 ? 1 : 1 + n / 2);
}

INSTANTIATE_TEST_SUITE_P(Devices, ReplicatedExecutionTest, ::testing::Values(2, 4, 8));

// The same module compiled for sm_80 and run on n fake GPUs (the fake
// driver runs each stream's work on a thread over host memory) through
// NcclCommunicator and the fake NCCL, which folds reductions in rank order
// like the host path: the hand-computed values hold bit for bit. This
// covers NCCL all-reduce, the re-packed all-gather (dimension 1, reversed
// group) and reduce-scatter (groups listed out of rank order), grouped
// send/recv for all-to-all and collective-permute, and replica-id as a
// device memset.
class CudaReplicatedExecutionTest : public ::testing::TestWithParam<int> {
 protected:
  static se::cuda::FakeCudaDriver::Options DriverOptions() {
    se::cuda::FakeCudaDriver::Options options;
    options.device_count = 4;
    options.memory_size = size_t{16} << 20;
    return options;
  }
  void TearDown() override { se::cuda::SetNcclApiForTesting(nullptr); }

  std::unique_ptr<Executable> CompileForGpu(const std::string& hlo) {
    gpu::GpuCompilerOptions options;
    options.emit_collectives = true;
    absl::StatusOr<std::string> bytes = gpu::CompileHloToGpuArtifact(hlo, "sm_80", options);
    EXPECT_TRUE(bytes.ok()) << bytes.status();
    if (!bytes.ok()) return nullptr;
    absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(*bytes);
    EXPECT_TRUE(exe.ok()) << exe.status();
    return exe.ok() ? std::move(*exe) : nullptr;
  }
  absl::StatusOr<std::unique_ptr<ReplicatedExecutor>> MakeGpuExecutor(Executable& exe, int n) {
    se::cuda::SetNcclApiForTesting(&nccl_.api());
    ReplicatedExecutionOptions options;
    options.num_replicas = n;
    options.collective_timeout = absl::Seconds(30);
    options.cuda_platform = &platform_;
    return ReplicatedExecutor::Create(exe, options);
  }

  se::cuda::FakeCudaDriver driver_{DriverOptions()};
  se::cuda::FakeNccl nccl_{driver_.api()};
  se::cuda::CudaPlatform platform_{&driver_.api()};
};

TEST_P(CudaReplicatedExecutionTest, EveryCollectiveThroughNcclMatchesHandComputedValues) {
  const int n = GetParam();
  std::vector<int64_t> reversed;
  std::unique_ptr<Executable> exe = CompileForGpu(Module(n, &reversed));
  ASSERT_NE(exe, nullptr);
  absl::StatusOr<std::unique_ptr<ReplicatedExecutor>> exec = MakeGpuExecutor(*exe, n);
  ASSERT_TRUE(exec.ok()) << exec.status();
  const int comms = nccl_.live_comms();
  const std::vector<std::vector<Literal>> args = EveryCollectiveArgs(n);
  for (int run = 0; run < 2; ++run) {  // communicators are created once, in Create
    absl::StatusOr<std::vector<std::vector<Literal>>> out = (*exec)->RunOnLiterals(args);
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectEveryCollective(*out, n, reversed);
  }
  EXPECT_EQ(nccl_.live_comms(), comms);
  EXPECT_GT(nccl_.calls("ncclAllReduce"), 0);
  EXPECT_GT(nccl_.calls("ncclAllGather"), 0);
  EXPECT_GT(nccl_.calls("ncclReduceScatter"), 0);
  EXPECT_GT(nccl_.calls("ncclSend"), 0);
  EXPECT_TRUE(nccl_.errors().empty());
  exec->reset();
  EXPECT_EQ(nccl_.live_comms(), 0);
}

INSTANTIATE_TEST_SUITE_P(Gpus, CudaReplicatedExecutionTest, ::testing::Values(2, 4));

TEST_F(CudaReplicatedExecutionTest, MoreReplicasThanGpusIsAClearError) {
  std::vector<int64_t> reversed;
  std::unique_ptr<Executable> exe = CompileForGpu(Module(8, &reversed));
  ASSERT_NE(exe, nullptr);
  absl::StatusOr<std::unique_ptr<ReplicatedExecutor>> exec = MakeGpuExecutor(*exe, 8);
  ASSERT_FALSE(exec.ok());
  EXPECT_EQ(exec.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(exec.status().message(), "needs 8 GPUs")) << exec.status();
  EXPECT_TRUE(absl::StrContains(exec.status().message(), "this machine has 4")) << exec.status();
}

// A participant that fails before its collectives (here: arguments of the
// wrong shape) would leave its peers waiting inside NCCL forever; it aborts
// the communicators instead, the run reports its own error at once (the
// fake NCCL's own timeout is 20 s), and the executor refuses later runs.
TEST_F(CudaReplicatedExecutionTest, AFailedParticipantAbortsNcclInsteadOfHanging) {
  std::vector<int64_t> reversed;
  std::unique_ptr<Executable> exe = CompileForGpu(Module(2, &reversed));
  ASSERT_NE(exe, nullptr);
  absl::StatusOr<std::unique_ptr<ReplicatedExecutor>> exec = MakeGpuExecutor(*exe, 2);
  ASSERT_TRUE(exec.ok()) << exec.status();
  std::vector<std::vector<Literal>> args = EveryCollectiveArgs(2);
  args[1][0] = Make(PrimitiveType::F32, {kSum + 1}, [](int i) { return i; });
  const absl::Time start = absl::Now();
  absl::StatusOr<std::vector<std::vector<Literal>>> out = (*exec)->RunOnLiterals(args);
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(absl::StrContains(out.status().message(), "replica 1: argument 0 has shape"))
      << out.status();
  EXPECT_TRUE(absl::StrContains(out.status().message(), "NCCL communicators were aborted"))
      << out.status();
  absl::StatusOr<std::vector<std::vector<Literal>>> again =
      (*exec)->RunOnLiterals(EveryCollectiveArgs(2));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(again.status().message(), "create a new executor"))
      << again.status();
  exec->reset();
  EXPECT_EQ(nccl_.live_comms(), 0);
}

TEST_F(CudaReplicatedExecutionTest, MissingNcclIsAClearError) {
  std::vector<int64_t> reversed;
  std::unique_ptr<Executable> exe = CompileForGpu(Module(2, &reversed));
  ASSERT_NE(exe, nullptr);
  ReplicatedExecutionOptions options;
  options.num_replicas = 2;
  options.cuda_platform = &platform_;
  se::cuda::SetNcclApiForTesting(nullptr);  // the real loader; BUILD points it nowhere
  absl::StatusOr<std::unique_ptr<ReplicatedExecutor>> exec = ReplicatedExecutor::Create(*exe, options);
  ASSERT_FALSE(exec.ok());
  EXPECT_EQ(exec.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(exec.status().message(), "NCCL not found")) << exec.status();
  EXPECT_TRUE(absl::StrContains(exec.status().message(), "--target=host")) << exec.status();
}

// The async forms: each -start runs the collective on the communication
// stream, its -done joins it and yields the output. Start results are also used directly (the all-gather-start's
// element 0 is its operand).
std::string AsyncModule(int n) {
  std::vector<int64_t> all;
  for (int r = 0; r < n; ++r) all.push_back(r);
  std::vector<std::vector<int64_t>> pairs;
  for (int r = 0; r < n; r += 2) pairs.push_back({r, r + 1});
  std::vector<std::vector<int64_t>> ring;
  for (int r = 0; r < n; ++r) ring.push_back({r, (r + 1) % n});
  return absl::StrCat(R"(
HloModule async_collectives, replica_count=)", n, R"(
sum_f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[7]{0} parameter(0)
  g = f32[3,2]{1,0} parameter(1)
  ars = f32[7]{0} all-reduce-start(x), replica_groups=)", Groups(pairs), R"(, to_apply=sum_f
  ard = f32[7]{0} all-reduce-done(ars)
  ags = (f32[3,2]{1,0}, f32[3,)", 2 * n, R"(]{1,0}) all-gather-start(g), dimensions={1}, replica_groups=)",
                      Groups({all}), R"(
  agd = f32[3,)", 2 * n, R"(]{1,0} all-gather-done(ags)
  ag0 = f32[3,2]{1,0} get-tuple-element(ags), index=0
  cps = (f32[3,2]{1,0}, f32[3,2]{1,0}) collective-permute-start(g), source_target_pairs=)",
                      Groups(ring), R"(
  cpd = f32[3,2]{1,0} collective-permute-done(cps)
  ROOT t = (f32[7]{0}, f32[3,)", 2 * n, R"(]{1,0}, f32[3,2]{1,0}, f32[3,2]{1,0}) tuple(ard, agd, cpd, ag0)
}
)");
}

class AsyncCollectivesTest : public ::testing::TestWithParam<int> {};

TEST_P(AsyncCollectivesTest, StartDonePairsMatchHandComputedValues) {
  const int n = GetParam();
  std::unique_ptr<Executable> exe = Compile(AsyncModule(n));
  ASSERT_NE(exe, nullptr);
  absl::StatusOr<std::unique_ptr<ReplicatedExecutor>> exec = MakeExecutor(*exe, n);
  ASSERT_TRUE(exec.ok()) << exec.status();
  std::vector<std::vector<Literal>> args(n);
  for (int r = 0; r < n; ++r) {
    args[r].push_back(Make(PrimitiveType::F32, {kSum}, [r](int i) { return X(r, i); }));
    args[r].push_back(Make(PrimitiveType::F32, {3, 2}, [r](int i) { return G(r, i); }));
  }
  for (int run = 0; run < 2; ++run) {
    absl::StatusOr<std::vector<std::vector<Literal>>> out = (*exec)->RunOnLiterals(args);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), static_cast<size_t>(n));
    for (int r = 0; r < n; ++r) {
      const std::vector<Literal>& o = (*out)[r];
      ASSERT_EQ(o.size(), 4u);
      const int partner = r ^ 1;
      for (int i = 0; i < kSum; ++i) {
        EXPECT_EQ(static_cast<float>(o[0].GetDouble(i)), X(r, i) + X(partner, i))
            << "all-reduce-done r" << r << " i" << i;
      }
      for (int row = 0; row < 3; ++row) {
        for (int p = 0; p < n; ++p) {
          for (int c = 0; c < 2; ++c) {
            EXPECT_EQ(o[1].GetDouble(row * 2 * n + p * 2 + c), G(p, row * 2 + c))
                << "all-gather-done r" << r;
          }
        }
      }
      const int source = (r + n - 1) % n;
      for (int i = 0; i < 6; ++i) {
        EXPECT_EQ(o[2].GetDouble(i), G(source, i)) << "collective-permute-done r" << r;
        EXPECT_EQ(o[3].GetDouble(i), G(r, i)) << "all-gather-start element 0, r" << r;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, AsyncCollectivesTest, ::testing::Values(2, 4));

// The minimal pair as the program's result (no layouts written): the
// done's value is the entry output.
TEST_P(AsyncCollectivesTest, AllReduceDoneAsTheResult) {
  const int n = GetParam();
  std::unique_ptr<Executable> exe = Compile(absl::StrCat(R"(
HloModule ar_done, replica_count=)", n, R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[7] parameter(0)
  ar = f32[7] all-reduce-start(x), replica_groups={{0,1}}, to_apply=add
  ROOT d = f32[7] all-reduce-done(ar)
}
)"));
  if (n != 2) {  // replicas 2.. are in no group
    ASSERT_NE(exe, nullptr);
    ReplicatedExecutionOptions options;
    options.num_replicas = n;
    EXPECT_FALSE(ReplicatedExecutor::Create(*exe, options).ok());
    return;
  }
  ASSERT_NE(exe, nullptr);
  ReplicatedExecutionOptions options;
  options.num_replicas = n;
  absl::StatusOr<std::unique_ptr<ReplicatedExecutor>> exec = ReplicatedExecutor::Create(*exe, options);
  ASSERT_TRUE(exec.ok()) << exec.status();
  std::vector<std::vector<Literal>> args(n);
  for (int r = 0; r < n; ++r) {
    args[r].push_back(Make(PrimitiveType::F32, {kSum}, [r](int i) { return X(r, i); }));
  }
  absl::StatusOr<std::vector<std::vector<Literal>>> out = (*exec)->RunOnLiterals(args);
  ASSERT_TRUE(out.ok()) << out.status();
  for (int r = 0; r < n; ++r) {
    ASSERT_EQ((*out)[r].size(), 1u);
    for (int i = 0; i < kSum; ++i) {
      EXPECT_EQ(static_cast<float>((*out)[r][0].GetDouble(i)), X(0, i) + X(1, i)) << r << " " << i;
    }
  }
}

// collective-broadcast on n replicas: f32[5,3] over pairs listed {1,0},
// {3,2}, ... (roots 1, 3, ...), s32[7] over every replica in reverse order
// (root n-1), and a kernel consuming a broadcast result.
std::string BroadcastModule(int n) {
  std::vector<int64_t> all;
  for (int r = n - 1; r >= 0; --r) all.push_back(r);
  std::vector<std::vector<int64_t>> swapped;
  for (int r = 0; r < n; r += 2) swapped.push_back({r + 1, r});
  return absl::StrCat(R"(
HloModule broadcasts, replica_count=)", n, R"(
ENTRY main {
  x = f32[5,3]{1,0} parameter(0)
  y = s32[7]{0} parameter(1)
  bx = f32[5,3]{1,0} collective-broadcast(x), replica_groups=)", Groups(swapped), R"(
  by = s32[7]{0} collective-broadcast(y), replica_groups=)", Groups({all}), R"(
  sum = f32[5,3]{1,0} add(bx, x)
  ROOT t = (f32[5,3]{1,0}, s32[7]{0}, f32[5,3]{1,0}) tuple(bx, by, sum)
}
)");
}

class CollectiveBroadcastTest : public ::testing::TestWithParam<int> {};

TEST_P(CollectiveBroadcastTest, MatchesTheReplicatedEvaluator) {
  const int n = GetParam();
  const std::string hlo = BroadcastModule(n);
  std::unique_ptr<Executable> exe = Compile(hlo);
  ASSERT_NE(exe, nullptr);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<std::vector<Literal>> args;
  for (int r = 0; r < n; ++r) {
    absl::StatusOr<std::vector<Literal>> in = MakeRandomInputs(**module, /*seed=*/41 + r);
    ASSERT_TRUE(in.ok()) << in.status();
    args.push_back(std::move(*in));
  }
  // Different replicas must have different inputs, or a wrong root would
  // go unnoticed.
  ASSERT_FALSE(args[0][1].data() == args[1][1].data());
  ReplicatedEvaluatorOptions eval_options;
  eval_options.timeout_seconds = 30;
  absl::StatusOr<std::vector<Literal>> want = EvaluateReplicated(**module, args, eval_options);
  ASSERT_TRUE(want.ok()) << want.status();
  absl::StatusOr<std::unique_ptr<ReplicatedExecutor>> exec = MakeExecutor(*exe, n);
  ASSERT_TRUE(exec.ok()) << exec.status();
  absl::StatusOr<std::vector<std::vector<Literal>>> got = (*exec)->RunOnLiterals(args);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) {
    const std::vector<Literal>& w = (*want)[r].tuple_elements();
    ASSERT_EQ(w.size(), 3u);
    ASSERT_EQ((*got)[r].size(), 3u);
    for (int k = 0; k < 3; ++k) {
      absl::Status same = CompareLiterals(w[k], (*got)[r][k]);
      EXPECT_TRUE(same.ok()) << "replica " << r << " leaf " << k << ": " << same;
    }
    // A broadcast is a copy: bit-identical to the root's argument.
    const int root_x = r % 2 == 0 ? r + 1 : r;
    EXPECT_TRUE((*got)[r][0].data() == args[root_x][0].data()) << "replica " << r;
    EXPECT_TRUE((*got)[r][1].data() == args[n - 1][1].data()) << "replica " << r;
  }
  // Pairs (n/2 cliques; with 2 replicas the pair is everyone) + all.
  EXPECT_EQ((*exec)->num_cliques(), n == 2 ? 1 : 1 + n / 2);
}

INSTANTIATE_TEST_SUITE_P(Devices, CollectiveBroadcastTest, ::testing::Values(2, 4));

constexpr char kAllReduce4[] = R"(
HloModule ar4, replica_count=4
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[5]{0} parameter(0)
  ROOT ar = f32[5]{0} all-reduce(x), replica_groups={{0,1,2,3}}, to_apply=sum
}
)";

TEST(ReplicatedExecutionErrorsTest, DeviceCountMismatch) {
  std::unique_ptr<Executable> exe = Compile(kAllReduce4);
  ASSERT_NE(exe, nullptr);
  ReplicatedExecutionOptions options;
  options.num_replicas = 2;
  absl::Status fewer = ReplicatedExecutor::Create(*exe, options).status();
  EXPECT_EQ(fewer.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(fewer.message(), "all-reduce 'ar' names replica 2 but only 2 "
                                                 "replicas run"))
      << fewer;
  options.num_replicas = 8;
  absl::Status more = ReplicatedExecutor::Create(*exe, options).status();
  EXPECT_TRUE(absl::StrContains(more.message(), "replica 4 of 8 is in no replica group")) << more;
  options.num_replicas = 0;
  EXPECT_FALSE(ReplicatedExecutor::Create(*exe, options).ok());
  options.num_replicas = 4;
  absl::StatusOr<std::unique_ptr<ReplicatedExecutor>> exec = ReplicatedExecutor::Create(*exe, options);
  ASSERT_TRUE(exec.ok()) << exec.status();
  std::vector<std::vector<Literal>> three(3);
  absl::Status wrong = (*exec)->RunOnLiterals(three).status();
  EXPECT_TRUE(absl::StrContains(wrong.message(), "on 4 devices got arguments for 3 replicas"))
      << wrong;
}

TEST(ReplicatedExecutionErrorsTest, MissingParticipantTimesOutNamingIt) {
  std::unique_ptr<Executable> exe = Compile(kAllReduce4);
  ASSERT_NE(exe, nullptr);
  ReplicatedExecutionOptions options;
  options.num_replicas = 4;
  options.collective_timeout = absl::Milliseconds(400);
  absl::StatusOr<std::unique_ptr<ReplicatedExecutor>> exec = ReplicatedExecutor::Create(*exe, options);
  ASSERT_TRUE(exec.ok()) << exec.status();
  std::vector<std::vector<Literal>> args(4);
  for (int r = 0; r < 4; ++r) {
    if (r == 2) continue;  // replica 2 gets no arguments: it fails before the all-reduce
    args[r].push_back(Make(PrimitiveType::F32, {5}, [r](int i) { return r + i; }));
  }
  absl::Status s = (*exec)->RunOnLiterals(args).status();
  ASSERT_FALSE(s.ok());
  // The failing replica's own error first, then a peer's timeout naming it.
  EXPECT_TRUE(absl::StrContains(s.message(), "replica 2: the program takes 1 arguments, got 0"))
      << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "ranks [2] never arrived")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "all-reduce #0")) << s;
}

TEST(ReplicatedExecutionIdsTest, PartitionIdIsZero) {
  std::unique_ptr<Executable> exe = Compile(R"(
HloModule pid, replica_count=2
ENTRY main {
  x = u32[] parameter(0)
  pid = u32[] partition-id()
  ROOT a = u32[] add(x, pid)
}
)");
  ASSERT_NE(exe, nullptr);
  ReplicatedExecutionOptions options;
  options.num_replicas = 2;
  absl::StatusOr<std::unique_ptr<ReplicatedExecutor>> exec = ReplicatedExecutor::Create(*exe, options);
  ASSERT_TRUE(exec.ok()) << exec.status();
  std::vector<std::vector<Literal>> args(2);
  for (int r = 0; r < 2; ++r) args[r].push_back(Make(PrimitiveType::U32, {}, [r](int) { return 7 + r; }));
  absl::StatusOr<std::vector<std::vector<Literal>>> out = (*exec)->RunOnLiterals(args);
  ASSERT_TRUE(out.ok()) << out.status();
  for (int r = 0; r < 2; ++r) EXPECT_EQ((*out)[r][0].GetInt(0), 7 + r);
}

// A program with a constant allocation (XLA's RNG state, which a kernel
// advances in place, uploaded per device at Initialize): each replica's
// device has its own state from XLA's initial 0x7012395, successive runs
// continue it, and the executor may be destroyed before the executable (it
// releases the executable's state on its devices first; before, the
// executable's destructor freed the state through the dead devices).
TEST(ReplicatedExecutionIdsTest, RngStatePerReplicaAndExecutorDiesFirst) {
  std::unique_ptr<Executable> exe = Compile(R"(
HloModule rng, replica_count=2
ENTRY main {
  rid = u32[] replica-id()
  s = u64[2] rng-get-and-update-state(), delta=5
  ROOT t = (u32[], u64[2]) tuple(rid, s)
}
)");
  ASSERT_NE(exe, nullptr);
  ReplicatedExecutionOptions options;
  options.num_replicas = 2;
  absl::StatusOr<std::unique_ptr<ReplicatedExecutor>> exec = ReplicatedExecutor::Create(*exe, options);
  ASSERT_TRUE(exec.ok()) << exec.status();
  for (uint64_t run = 0; run < 2; ++run) {
    absl::StatusOr<std::vector<std::vector<Literal>>> out =
        (*exec)->RunOnLiterals(std::vector<std::vector<Literal>>(2));
    ASSERT_TRUE(out.ok()) << out.status();
    for (int r = 0; r < 2; ++r) {
      EXPECT_EQ((*out)[r][0].GetInt(0), r);
      EXPECT_EQ((*out)[r][1].GetBits(0), 0x7012395u + 5 * run) << "replica " << r << " run " << run;
      EXPECT_EQ((*out)[r][1].GetBits(1), 0u);
    }
  }
  exec->reset();
  exe.reset();
}

// ---- 16-bit float reductions and f8 through the byte collectives ----

// On n replicas:
//   0: all-reduce sum bf16[7] over every replica, listed in reverse order
//   1: reduce-scatter sum bf16[3n] along 0 over every replica
//   2: all-reduce max f16[5]
//   3: all-reduce multiply f16[5] over every replica, listed rotated
//      {1,2,...,n-1,0}
//   4: all-gather f8e4m3fn[3] along 0
std::string SixteenBitModule(int n) {
  std::vector<int64_t> all, reversed;
  for (int r = 0; r < n; ++r) all.push_back(r);
  reversed.assign(all.rbegin(), all.rend());
  std::vector<int64_t> rotated(all.begin() + 1, all.end());
  rotated.push_back(0);
  return absl::StrCat(R"(
HloModule sixteen, replica_count=)", n, R"(
add_b {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}
max_h {
  a = f16[] parameter(0)
  b = f16[] parameter(1)
  ROOT m = f16[] maximum(a, b)
}
mul_h {
  a = f16[] parameter(0)
  b = f16[] parameter(1)
  ROOT m = f16[] multiply(a, b)
}
ENTRY main {
  x = bf16[7]{0} parameter(0)
  z = bf16[)", 3 * n, R"(]{0} parameter(1)
  h = f16[5]{0} parameter(2)
  e = f8e4m3fn[3]{0} parameter(3)
  ar = bf16[7]{0} all-reduce(x), replica_groups=)", Groups({reversed}), R"(, to_apply=add_b
  rs = bf16[3]{0} reduce-scatter(z), dimensions={0}, replica_groups=)", Groups({all}), R"(, to_apply=add_b
  mx = f16[5]{0} all-reduce(h), replica_groups=)", Groups({all}), R"(, to_apply=max_h
  pr = f16[5]{0} all-reduce(h), replica_groups=)", Groups({rotated}), R"(, to_apply=mul_h
  ag = f8e4m3fn[)", 3 * n, R"(]{0} all-gather(e), dimensions={0}, replica_groups=)", Groups({all}), R"(
  ROOT t = (bf16[7]{0}, bf16[3]{0}, f16[5]{0}, f16[5]{0}, f8e4m3fn[)", 3 * n,
                      R"(]{0}) tuple(ar, rs, mx, pr, ag)
}
)");
}

// Inputs where the order and the per-step rounding show: element 0 of x is
// 1 on replica 0 and 2^-9 (a quarter ulp of 1 in bf16) elsewhere, element
// 1 the reverse (the tiny values first, on replicas 0..n-2); element 0 of
// every block of z is 1 on the block's own replica and 2^-9 elsewhere. The
// rest are ordinary nonzero values.
std::vector<std::vector<Literal>> SixteenBitArgs(int n) {
  std::vector<std::vector<Literal>> args(n);
  for (int r = 0; r < n; ++r) {
    args[r].push_back(Make(PrimitiveType::BF16, {kSum}, [r, n](int i) {
      if (i == 0) return r == 0 ? 1.0 : 1.0 / 512;
      if (i == 1) return r == n - 1 ? 1.0 : 1.0 / 512;
      return 0.37 * (r + 1) - 1.13 * i + 0.013 * i * i;
    }));
    args[r].push_back(Make(PrimitiveType::BF16, {3 * n}, [r](int i) {
      if (i % 3 == 0) return i / 3 == r ? 1.0 : 1.0 / 512;
      return 1.7 * r - 0.61 * i + 0.05;
    }));
    args[r].push_back(Make(PrimitiveType::F16, {5}, [r](int i) {
      return (i % 2 == 0 ? 1.0 : -1.0) * (0.75 + 0.3 * r + 0.1 * i) + (i == 4 ? -r * 0.5 : 0.0);
    }));
    args[r].push_back(Make(PrimitiveType::F8E4M3FN, {3}, [r](int i) { return 0.5 * r - 1.25 * i + 0.375; }));
  }
  return args;
}

// The outputs of SixteenBitModule(n) against the replicated evaluator, bit
// for bit, plus the hand-computed element 0/1 of the bf16 all-reduce.
void ExpectSixteenBit(int n, const std::vector<std::vector<Literal>>& args,
                      const std::vector<std::vector<Literal>>& got) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(SixteenBitModule(n));
  ASSERT_TRUE(module.ok()) << module.status();
  ReplicatedEvaluatorOptions eval_options;
  eval_options.timeout_seconds = 30;
  absl::StatusOr<std::vector<Literal>> want = EvaluateReplicated(**module, args, eval_options);
  ASSERT_TRUE(want.ok()) << want.status();
  ASSERT_EQ(got.size(), static_cast<size_t>(n));
  const char* names[] = {"bf16 all-reduce", "bf16 reduce-scatter", "f16 max", "f16 multiply",
                         "f8 all-gather"};
  for (int r = 0; r < n; ++r) {
    const std::vector<Literal>& w = (*want)[r].tuple_elements();
    ASSERT_EQ(w.size(), 5u);
    ASSERT_EQ(got[r].size(), 5u);
    for (int k = 0; k < 5; ++k) {
      EXPECT_TRUE(w[k].data() == got[r][k].data())
          << "replica " << r << " " << names[k] << ": " << CompareLiterals(w[k], got[r][k]);
    }
    // Replica 0's 1 absorbs every 2^-9: 1. The n-1 tiny values first: 3
    // replicas: 2^-8, then 1 + 2^-8 is a tie, to even: 1; 5 replicas: 2^-7,
    // then 1 + 2^-7.
    EXPECT_EQ(got[r][0].GetDouble(0), 1.0) << "replica " << r;
    EXPECT_EQ(got[r][0].GetDouble(1), n == 5 ? 1.0 + 1.0 / 128 : 1.0) << "replica " << r;
    // Block r of z: r times 2^-9 (exact), then 1, then quarter ulps that
    // round away. r * 2^-9 + 1 rounds to 1 for r <= 2 (r = 2: a tie) and
    // to 1 + 2^-7 for r = 3 (three quarters of an ulp) and r = 4 (exact).
    EXPECT_EQ(got[r][1].GetDouble(0), r >= 3 ? 1.0 + 1.0 / 128 : 1.0) << "replica " << r;
    // The gathered f8 bytes are the arguments' bytes.
    for (int k = 0; k < n; ++k) {
      for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(got[r][4].GetBits(k * 3 + i), args[k][3].GetBits(i)) << "replica " << r;
      }
    }
  }
}

class SixteenBitCollectivesTest : public ::testing::TestWithParam<int> {};

TEST_P(SixteenBitCollectivesTest, HostDevicesMatchTheReplicatedEvaluatorBitForBit) {
  const int n = GetParam();
  std::unique_ptr<Executable> exe = Compile(SixteenBitModule(n));
  ASSERT_NE(exe, nullptr);
  absl::StatusOr<std::unique_ptr<ReplicatedExecutor>> exec = MakeExecutor(*exe, n);
  ASSERT_TRUE(exec.ok()) << exec.status();
  const std::vector<std::vector<Literal>> args = SixteenBitArgs(n);
  absl::StatusOr<std::vector<std::vector<Literal>>> got = (*exec)->RunOnLiterals(args);
  ASSERT_TRUE(got.ok()) << got.status();
  ExpectSixteenBit(n, args, *got);
}

INSTANTIATE_TEST_SUITE_P(Devices, SixteenBitCollectivesTest, ::testing::Values(3, 5));

// The same module for sm_80 on 3 fake GPUs: NcclCommunicator maps bf16 to
// ncclBfloat16 and f16 to ncclFloat16, and the fake NCCL rounds after every
// rank, so a wrong mapping gives other bits.
TEST_F(CudaReplicatedExecutionTest, SixteenBitReductionsThroughNcclMatchTheEvaluator) {
  constexpr int n = 3;
  std::unique_ptr<Executable> exe = CompileForGpu(SixteenBitModule(n));
  ASSERT_NE(exe, nullptr);
  absl::StatusOr<std::unique_ptr<ReplicatedExecutor>> exec = MakeGpuExecutor(*exe, n);
  ASSERT_TRUE(exec.ok()) << exec.status();
  const std::vector<std::vector<Literal>> args = SixteenBitArgs(n);
  absl::StatusOr<std::vector<std::vector<Literal>>> got = (*exec)->RunOnLiterals(args);
  ASSERT_TRUE(got.ok()) << got.status();
  ExpectSixteenBit(n, args, *got);
  EXPECT_GT(nccl_.calls("ncclAllReduce"), 0);
  EXPECT_GT(nccl_.calls("ncclReduceScatter"), 0);
  EXPECT_TRUE(nccl_.errors().empty());
}

// Reductions of f8 are refused when the artifact loads, naming the fix.
TEST(SixteenBitCollectivesTest, AnF8ReductionIsRefusedAtLoad) {
  gpu::HostCompilerOptions options;
  options.thunks.emit_collectives = true;
  absl::StatusOr<std::string> bytes = gpu::CompileHloToHostArtifact(R"(
HloModule f8, replica_count=2
add_e {
  a = f8e4m3fn[] parameter(0)
  b = f8e4m3fn[] parameter(1)
  ROOT s = f8e4m3fn[] add(a, b)
}
ENTRY main {
  e = f8e4m3fn[3]{0} parameter(0)
  ROOT ar = f8e4m3fn[3]{0} all-reduce(e), replica_groups={{0,1}}, to_apply=add_e
}
)",
                                                                     options);
  if (!bytes.ok()) {  // refused by the compiler: it must say why
    EXPECT_TRUE(absl::StrContains(bytes.status().message(), "f8e4m3fn")) << bytes.status();
    return;
  }
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(*bytes);
  ASSERT_FALSE(exe.ok());
  EXPECT_TRUE(absl::StrContains(exe.status().message(), "sum is not supported for f8e4m3fn"))
      << exe.status();
  EXPECT_TRUE(absl::StrContains(exe.status().message(), "convert f8e4m3fn operands"))
      << exe.status();
}

}  // namespace
}  // namespace xla::aot
