// Runs a collectives module as N MPI processes (mpirun -np 2, and -np 4
// oversubscribed on this machine's cores) through xla_aot_mpi_run, and
// checks the stacked outputs bit for bit against the single-process
// replicated run (xla::tools::RunReplicated: N threads, in-process
// communicator) on the same inputs, plus hand-computed values for the
// all-reduce, the permute, replica-id and the collective-broadcast. Every
// mpirun runs under `timeout 120` so a hang fails the test instead of
// blocking it.
#include <sys/stat.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "xla/aot/executable.h"
#include "xla/backends/gpu/compiler/gpu_compiler.h"
#include "xla/backends/gpu/compiler/host_compiler.h"
#include "xla/tools/replicated_run.h"
#include "xla/types/npy.h"

namespace xla {
namespace {

constexpr char kMpirun[] = "/usr/bin/mpirun";

std::string TmpDir() {
  const char* d = std::getenv("TEST_TMPDIR");
  return d == nullptr ? "/tmp" : d;
}

std::string Binary() {
  const char* src = std::getenv("TEST_SRCDIR");
  return absl::StrCat(src == nullptr ? "." : src, "/xla_aot/xla/tools/xla_aot_mpi_run");
}

std::string Group(int64_t from, int64_t to) {
  std::vector<int64_t> ids;
  for (int64_t i = from; i < to; ++i) ids.push_back(i);
  return absl::StrCat("{", absl::StrJoin(ids, ","), "}");
}

// A module for n replicas: every op the host target's MpiCommunicator
// serves, with odd sizes, sub-groups (pairs) and a permute chain that
// leaves replica 0 without a source (zeros).
std::string Module(int64_t n) {
  const std::string all = absl::StrCat("{", Group(0, n), "}");
  std::vector<std::string> pairs_groups, chain;
  for (int64_t i = 0; i < n; i += 2) pairs_groups.push_back(Group(i, i + 2));
  for (int64_t i = 0; i + 1 < n; ++i) chain.push_back(absl::StrCat("{", i, ",", i + 1, "}"));
  const std::string pairs = absl::StrCat("{", absl::StrJoin(pairs_groups, ","), "}");
  // Pairs listed odd replica first: the broadcast's roots are 1, 3, ...
  std::vector<std::string> swapped_groups;
  for (int64_t i = 0; i < n; i += 2) {
    swapped_groups.push_back(absl::StrCat("{", i + 1, ",", i, "}"));
  }
  const std::string swapped = absl::StrCat("{", absl::StrJoin(swapped_groups, ","), "}");
  return absl::StrCat(R"(
HloModule mpi_collectives, replica_count=)", n, R"(
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max_s32 {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT m = s32[] maximum(a, b)
}
ENTRY main {
  x = f32[7]{0} parameter(0)
  y = s32[)", 3 * n, R"(]{0} parameter(1)
  z = f32[)", 5 * n, R"(]{0} parameter(2)
  ar = f32[7]{0} all-reduce(x), replica_groups=)", all, R"(, to_apply=add_f32
  mx = s32[)", 3 * n, R"(]{0} all-reduce(y), replica_groups=)", pairs, R"(, to_apply=max_s32
  ag = f32[)", 7 * n, R"(]{0} all-gather(x), replica_groups=)", all, R"(, dimensions={0}
  rs = f32[5]{0} reduce-scatter(z), replica_groups=)", all, R"(, dimensions={0}, to_apply=add_f32
  a2a = s32[)", 3 * n, R"(]{0} all-to-all(y), replica_groups=)", all, R"(, dimensions={0}
  cp = f32[7]{0} collective-permute(x), source_target_pairs={)", absl::StrJoin(chain, ","), R"(}
  id = u32[] replica-id()
  bc = f32[7]{0} collective-broadcast(x), replica_groups=)", swapped, R"(
  ROOT t = (f32[7]{0}, s32[)", 3 * n, R"(]{0}, f32[)", 7 * n, R"(]{0}, f32[5]{0}, s32[)", 3 * n,
                      R"(]{0}, f32[7]{0}, u32[], f32[7]{0}) tuple(ar, mx, ag, rs, a2a, cp, id, bc)
}
)");
}

std::vector<Literal> Inputs(int64_t n) {
  std::vector<Literal> in;
  Literal x(Shape::Array(PrimitiveType::F32, {n, 7}));
  // Mixed magnitudes: with 4 ranks, a different summation order changes
  // some f32 results (checked: reversing the fold breaks this test).
  for (int64_t i = 0; i < n * 7; ++i) {
    x.SetDouble(i, std::sin(0.37 * i + 1.0) * std::pow(10.0, (i / 7 * 3 + i % 7) % 8) + 1.0 / 3);
  }
  Literal y(Shape::Array(PrimitiveType::S32, {n, 3 * n}));
  for (int64_t i = 0; i < n * 3 * n; ++i) y.SetInt(i, (i * 7919) % 101 - 50);
  Literal z(Shape::Array(PrimitiveType::F32, {n, 5 * n}));
  for (int64_t i = 0; i < n * 5 * n; ++i) {
    z.SetDouble(i, std::cos(1.3 * i) * std::pow(10.0, (i * 5) % 9) + 0.1);
  }
  in.push_back(std::move(x));
  in.push_back(std::move(y));
  in.push_back(std::move(z));
  return in;
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Runs `np` processes; returns the exit status and fills *stderr_text.
int RunMpi(int64_t np, const std::string& args, const std::string& tag, std::string* stderr_text) {
  const std::string err = absl::StrCat(TmpDir(), "/", tag, ".stderr");
  const std::string cmd = absl::StrCat(
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1"
      " timeout 120 ", kMpirun, " --oversubscribe -np ", np, " ", Binary(), " ", args, " >",
      TmpDir(), "/", tag, ".stdout 2>", err);
  const int rc = std::system(cmd.c_str());
  *stderr_text = ReadFile(err);
  return rc;
}

struct Prepared {
  std::string artifact;
  std::vector<std::string> input_flags;
  std::vector<Literal> expected;  // stacked, from RunReplicated
  std::vector<Literal> inputs;
};

Prepared Prepare(int64_t n) {
  Prepared p;
  gpu::HostCompilerOptions options;
  options.thunks.emit_collectives = true;
  absl::StatusOr<std::string> bytes = gpu::CompileHloToHostArtifact(Module(n), options);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  if (!bytes.ok()) return p;
  p.artifact = absl::StrCat(TmpDir(), "/collectives_", n, ".xaot");
  std::ofstream(p.artifact, std::ios::binary) << *bytes;
  absl::StatusOr<std::unique_ptr<aot::Executable>> exe = aot::Executable::LoadFromBytes(*bytes);
  EXPECT_TRUE(exe.ok()) << exe.status();
  if (!exe.ok()) return p;
  p.inputs = Inputs(n);
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    const std::string path = absl::StrCat(TmpDir(), "/in", i, "_", n, ".npy");
    EXPECT_TRUE(WriteNpyFile(path, p.inputs[i]).ok());
    p.input_flags.push_back("--input=" + path);
  }
  absl::StatusOr<std::vector<Literal>> expected = tools::RunReplicated(**exe, n, p.inputs);
  EXPECT_TRUE(expected.ok()) << expected.status();
  if (expected.ok()) p.expected = std::move(*expected);
  return p;
}

class MpiRunTest : public ::testing::TestWithParam<int64_t> {
 protected:
  void SetUp() override {
    struct stat st;
    ASSERT_EQ(stat(kMpirun, &st), 0) << kMpirun << " is missing: install OpenMPI with "
                                     << "tools/install_deps.sh (openmpi-bin, libopenmpi-dev)";
  }
};

TEST_P(MpiRunTest, MatchesSingleProcessReplicatedRunBitwise) {
  const int64_t n = GetParam();
  Prepared p = Prepare(n);
  ASSERT_EQ(p.expected.size(), 8u);
  const std::string out_dir = absl::StrCat(TmpDir(), "/out_", n);
  mkdir(out_dir.c_str(), 0755);
  std::string err;
  const int rc = RunMpi(n, absl::StrCat(p.artifact, " ", absl::StrJoin(p.input_flags, " "),
                                        " --output_dir=", out_dir, " --timeout_s=60"),
                        absl::StrCat("ok_", n), &err);
  ASSERT_EQ(rc, 0) << err;
  for (size_t k = 0; k < p.expected.size(); ++k) {
    absl::StatusOr<Literal> got = ReadNpyFile(absl::StrCat(out_dir, "/out", k, ".npy"));
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->shape().ToString(false), p.expected[k].shape().ToString(false)) << "output " << k;
    EXPECT_TRUE(got->data() == p.expected[k].data()) << "output " << k << " differs bitwise";
    if (k == 0) {
      // Hand-computed: the f32 sum folded in rank order, for every replica.
      for (int64_t r = 0; r < n; ++r) {
        for (int64_t i = 0; i < 7; ++i) {
          float want = static_cast<float>(p.inputs[0].GetDouble(i));
          for (int64_t q = 1; q < n; ++q) want += static_cast<float>(p.inputs[0].GetDouble(q * 7 + i));
          EXPECT_EQ(static_cast<float>(got->GetDouble(r * 7 + i)), want) << r << "," << i;
        }
      }
    }
    if (k == 5) {  // permute chain r-1 -> r; replica 0 gets zeros
      for (int64_t r = 0; r < n; ++r) {
        for (int64_t i = 0; i < 7; ++i) {
          const double want = r == 0 ? 0.0 : p.inputs[0].GetDouble((r - 1) * 7 + i);
          EXPECT_EQ(got->GetDouble(r * 7 + i), want) << r << "," << i;
        }
      }
    }
    if (k == 6) {
      for (int64_t r = 0; r < n; ++r) EXPECT_EQ(got->GetInt(r), r);
    }
    if (k == 7) {  // collective-broadcast from each pair's odd replica
      for (int64_t r = 0; r < n; ++r) {
        for (int64_t i = 0; i < 7; ++i) {
          EXPECT_EQ(got->GetDouble(r * 7 + i), p.inputs[0].GetDouble((r | 1) * 7 + i))
              << r << "," << i;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Processes, MpiRunTest, ::testing::Values(2, 4));

// An SPMD module (2 replicas x 2 partitions) under mpirun -np 4: process d
// is replica d / 2, partition d % 2. Every output equals the in-process run
// bitwise; the ids by hand.
TEST(MpiRunSpmdTest, FourProcessesRunTwoReplicasOfTwoPartitions) {
  struct stat st;
  ASSERT_EQ(stat(kMpirun, &st), 0) << kMpirun << " is missing (tools/install_deps.sh)";
  const char* module = R"(
HloModule mpi_spmd, replica_count=2, num_partitions=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[6]{0} parameter(0)
  over_partitions = f32[6]{0} all-reduce(x), channel_id=1, replica_groups={{0,2},{1,3}}, use_global_device_ids=true, to_apply=add
  swapped = f32[6]{0} collective-permute(x), channel_id=2, source_target_pairs={{0,1},{1,0}}
  rid = u32[] replica-id()
  pid = u32[] partition-id()
  ROOT t = (f32[6]{0}, f32[6]{0}, u32[], u32[]) tuple(over_partitions, swapped, rid, pid)
}
)";
  gpu::HostCompilerOptions options;
  options.thunks.emit_collectives = true;
  absl::StatusOr<std::string> bytes = gpu::CompileHloToHostArtifact(module, options);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  const std::string artifact = absl::StrCat(TmpDir(), "/spmd.xaot");
  std::ofstream(artifact, std::ios::binary) << *bytes;
  absl::StatusOr<std::unique_ptr<aot::Executable>> exe = aot::Executable::LoadFromBytes(*bytes);
  ASSERT_TRUE(exe.ok()) << exe.status();
  std::vector<Literal> inputs;
  inputs.emplace_back(Shape::Array(PrimitiveType::F32, {4, 6}));
  for (int64_t i = 0; i < 24; ++i) inputs[0].SetDouble(i, std::sin(0.7 * i) * 100 + 1.0 / 7);
  const std::string in = absl::StrCat(TmpDir(), "/spmd_in.npy");
  ASSERT_TRUE(WriteNpyFile(in, inputs[0]).ok());
  absl::StatusOr<std::vector<Literal>> expected = tools::RunReplicated(**exe, 2, inputs);
  ASSERT_TRUE(expected.ok()) << expected.status();
  const std::string out_dir = absl::StrCat(TmpDir(), "/spmd_out");
  mkdir(out_dir.c_str(), 0755);
  std::string err;
  ASSERT_EQ(RunMpi(4, absl::StrCat(artifact, " --input=", in, " --output_dir=", out_dir,
                                   " --timeout_s=60"),
                   "spmd", &err),
            0)
      << err;
  for (size_t k = 0; k < expected->size(); ++k) {
    absl::StatusOr<Literal> got = ReadNpyFile(absl::StrCat(out_dir, "/out", k, ".npy"));
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(got->data() == (*expected)[k].data()) << "output " << k << " differs bitwise";
  }
  absl::StatusOr<Literal> swapped = ReadNpyFile(absl::StrCat(out_dir, "/out1.npy"));
  absl::StatusOr<Literal> rid = ReadNpyFile(absl::StrCat(out_dir, "/out2.npy"));
  absl::StatusOr<Literal> pid = ReadNpyFile(absl::StrCat(out_dir, "/out3.npy"));
  ASSERT_TRUE(swapped.ok() && rid.ok() && pid.ok());
  for (int64_t d = 0; d < 4; ++d) {
    EXPECT_EQ(rid->GetInt(d), d / 2);
    EXPECT_EQ(pid->GetInt(d), d % 2);
    // Partitions 0 and 1 of each replica swap their x.
    for (int64_t i = 0; i < 6; ++i) {
      EXPECT_EQ(swapped->GetDouble(d * 6 + i), inputs[0].GetDouble((d ^ 1) * 6 + i)) << d;
    }
  }
  // Three processes cannot hold 2 replicas x 2 partitions: the clique
  // check (or the partition check) refuses before any collective.
  EXPECT_NE(RunMpi(3, absl::StrCat(artifact, " --timeout_s=5"), "spmd_three", &err), 0);
  EXPECT_TRUE(absl::StrContains(err, "mpirun -np 4") ||
              absl::StrContains(err, "2 partitions but 3 processes"))
      << err;
}

TEST(MpiRunErrorTest, TooFewProcessesFailsWithClearError) {
  struct stat st;
  ASSERT_EQ(stat(kMpirun, &st), 0) << kMpirun << " is missing (tools/install_deps.sh)";
  Prepared p = Prepare(4);
  ASSERT_FALSE(p.artifact.empty());
  // Slices for 4 replicas, but only 2 processes: the clique check fires
  // before any collective, so nobody hangs.
  std::string err;
  const int rc = RunMpi(2, absl::StrCat(p.artifact, " --timeout_s=5"), "few", &err);
  EXPECT_NE(rc, 0);
  EXPECT_TRUE(absl::StrContains(err, "but mpirun started 2 processes")) << err;
  EXPECT_TRUE(absl::StrContains(err, "mpirun -np 4")) << err;
}

// An sm_80 artifact takes the CUDA path (a GPU per process, NCCL over an
// MPI bootstrap); on a machine without a driver every process says so and
// the job ends with a non-zero exit instead of hanging.
TEST(MpiRunErrorTest, GpuArtifactWithoutAGpuFailsWithClearError) {
  struct stat st;
  ASSERT_EQ(stat(kMpirun, &st), 0) << kMpirun << " is missing (tools/install_deps.sh)";
  if (stat("/dev/nvidiactl", &st) == 0) GTEST_SKIP() << "this machine has an NVIDIA driver";
  gpu::GpuCompilerOptions options;
  options.emit_collectives = true;
  absl::StatusOr<std::string> bytes = gpu::CompileHloToGpuArtifact(R"(
HloModule mpi_gpu, replica_count=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[5]{0} parameter(0)
  ROOT r = f32[5]{0} all-reduce(x), replica_groups={{0,1}}, to_apply=add
}
)", "sm_80", options);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  const std::string artifact = absl::StrCat(TmpDir(), "/gpu.xaot");
  std::ofstream(artifact, std::ios::binary) << *bytes;
  std::string err;
  EXPECT_NE(RunMpi(2, absl::StrCat(artifact, " --timeout_s=5"), "gpu", &err), 0);
  EXPECT_TRUE(absl::StrContains(err, "needs GPU 0 but the machine has 0")) << err;
  EXPECT_TRUE(absl::StrContains(err, "no NVIDIA driver")) << err;
}

TEST(MpiRunErrorTest, BadUsageExitsTwoWithoutMpi) {
  const std::string cmd = absl::StrCat(Binary(), " --bogus 2>/dev/null");
  const int rc = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  EXPECT_EQ(WEXITSTATUS(rc), 2);
}

}  // namespace
}  // namespace xla
