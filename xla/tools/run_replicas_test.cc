// End to end through the CLI: `xla_aot compile --emit_collectives`, then
// `xla_aot run --replicas=N` checked against the replicated evaluator
// (`--reference`) and against `xla_aot eval --replicas=N` on the same
// stacked input file.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/tools/compile_command.h"
#include "xla/tools/eval_command.h"
#include "xla/tools/exit_codes.h"
#include "xla/tools/run_command.h"
#include "xla/types/npy.h"

namespace xla::cli {
namespace {

using ::testing::HasSubstr;

// Per replica r with input x (f32[5]): the sum of x over pairs {0,1},{2,3},
// the gather of x over everyone, and r itself.
const char kModule[] = R"(
HloModule collectives, replica_count=4

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[5] parameter(0)
  pair_sum = f32[5] all-reduce(x), replica_groups={{0,1},{2,3}}, to_apply=add
  gathered = f32[20] all-gather(x), replica_groups={}, dimensions={0}
  id = u32[] replica-id()
  ROOT t = (f32[5], f32[20], u32[]) tuple(pair_sum, gathered, id)
}
)";

struct Result {
  int code;
  std::string out, err;
};

template <typename F>
Result Call(F f, std::vector<std::string> args) {
  std::ostringstream out, err;
  const int code = f(args, out, err);
  return {code, out.str(), err.str()};
}

std::string Tmp(const std::string& name) { return std::string(getenv("TEST_TMPDIR")) + "/" + name; }

class RunReplicasTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(Tmp("c.hlo")) << kModule;
    const Result compiled =
        Call(RunCompile, {Tmp("c.hlo"), "--emit_collectives", "-o", Tmp("c.xaot")});
    ASSERT_EQ(compiled.code, kExitOk) << compiled.err;
    // x for replica r: element i = 10 * r + i - 0.5.
    Literal x(Shape::Array(PrimitiveType::F32, {4, 5}));
    for (int r = 0; r < 4; ++r) {
      for (int i = 0; i < 5; ++i) x.SetDouble(r * 5 + i, 10.0 * r + i - 0.5);
    }
    ASSERT_TRUE(WriteNpyFile(Tmp("x.npy"), x).ok());
  }
};

TEST_F(RunReplicasTest, MatchesHandValuesAndTheReplicatedEvaluator) {
  const Result run = Call(RunRun, {Tmp("c.xaot"), "--replicas=4", "--input=" + Tmp("x.npy"),
                                   "--output_dir=" + Tmp("run"), "--reference=" + Tmp("c.hlo")});
  ASSERT_EQ(run.code, kExitOk) << run.err << run.out;
  EXPECT_THAT(run.out, HasSubstr("PASS: 3 outputs"));

  absl::StatusOr<Literal> sum = ReadNpyFile(Tmp("run/out0.npy"));
  absl::StatusOr<Literal> gathered = ReadNpyFile(Tmp("run/out1.npy"));
  absl::StatusOr<Literal> ids = ReadNpyFile(Tmp("run/out2.npy"));
  ASSERT_TRUE(sum.ok() && gathered.ok() && ids.ok());
  ASSERT_EQ(sum->shape().dimensions(), (std::vector<int64_t>{4, 5}));
  ASSERT_EQ(gathered->shape().dimensions(), (std::vector<int64_t>{4, 20}));
  for (int r = 0; r < 4; ++r) {
    const int partner = r ^ 1;
    EXPECT_EQ(ids->GetInt(r), r);
    for (int i = 0; i < 5; ++i) {
      EXPECT_EQ(sum->GetDouble(r * 5 + i), (10.0 * r + i - 0.5) + (10.0 * partner + i - 0.5));
    }
    for (int k = 0; k < 20; ++k) EXPECT_EQ(gathered->GetDouble(r * 20 + k), 10.0 * (k / 5) + k % 5 - 0.5);
  }

  const Result eval = Call(RunEval, {Tmp("c.hlo"), "--replicas=4", "--input=" + Tmp("x.npy"),
                                     "--output_dir=" + Tmp("eval")});
  ASSERT_EQ(eval.code, kExitOk) << eval.err;
  for (int k = 0; k < 3; ++k) {
    absl::StatusOr<Literal> a = ReadNpyFile(Tmp(absl::StrCat("run/out", k, ".npy")));
    absl::StatusOr<Literal> b = ReadNpyFile(Tmp(absl::StrCat("eval/out", k, ".npy")));
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(*a, *b) << "output " << k;
  }
}

TEST_F(RunReplicasTest, RandomInputsRunAndMatchTheReference) {
  const Result run = Call(RunRun, {Tmp("c.xaot"), "--replicas=4", "--random_inputs", "--seed=5",
                                   "--reference=" + Tmp("c.hlo")});
  ASSERT_EQ(run.code, kExitOk) << run.err << run.out;
  EXPECT_THAT(run.out, HasSubstr("PASS: 3 outputs"));
}

// bf16 all-reduce (group listed in reverse) and reduce-scatter on 5 host
// devices: every add rounds to bf16, in ascending replica order, on the
// runtime and in `eval` alike, so their outputs are identical.
const char kBf16Module[] = R"(
HloModule bf16, replica_count=5
add {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}
ENTRY main {
  x = bf16[7] parameter(0)
  z = bf16[15] parameter(1)
  ar = bf16[7] all-reduce(x), replica_groups={{4,3,2,1,0}}, to_apply=add
  rs = bf16[3] reduce-scatter(z), replica_groups={{0,1,2,3,4}}, dimensions={0}, to_apply=add
  ROOT t = (bf16[7], bf16[3]) tuple(ar, rs)
}
)";

TEST_F(RunReplicasTest, Bf16ReductionsMatchEvalExactly) {
  std::ofstream(Tmp("bf16.hlo")) << kBf16Module;
  const Result compiled =
      Call(RunCompile, {Tmp("bf16.hlo"), "--emit_collectives", "-o", Tmp("bf16.xaot")});
  ASSERT_EQ(compiled.code, kExitOk) << compiled.err;
  // bf16 parameters read f32 files. x: element 0 is 1 on replica 0 and
  // 2^-9 (a quarter ulp of 1) elsewhere, element 1 the tiny values first
  // (1 on replica 4); the rest bf16-exact ordinary values. z likewise.
  Literal x(Shape::Array(PrimitiveType::F32, {5, 7}));
  Literal z(Shape::Array(PrimitiveType::F32, {5, 15}));
  for (int r = 0; r < 5; ++r) {
    for (int i = 0; i < 7; ++i) {
      const double v = i == 0 ? (r == 0 ? 1.0 : 1.0 / 512)
                       : i == 1 ? (r == 4 ? 1.0 : 1.0 / 512)
                                : 0.375 * r - 1.25 * i + 0.0078125 * i * r;
      x.SetDouble(r * 7 + i, v);
    }
    for (int i = 0; i < 15; ++i) {
      z.SetDouble(r * 15 + i, i % 3 == 0 ? (i / 3 == r ? 1.0 : 1.0 / 512) : 0.5 * r - 0.625 * i);
    }
  }
  ASSERT_TRUE(WriteNpyFile(Tmp("bx.npy"), x).ok());
  ASSERT_TRUE(WriteNpyFile(Tmp("bz.npy"), z).ok());
  const Result run = Call(RunRun, {Tmp("bf16.xaot"), "--replicas=5", "--input=" + Tmp("bx.npy"),
                                   "--input=" + Tmp("bz.npy"), "--output_dir=" + Tmp("brun"),
                                   "--reference=" + Tmp("bf16.hlo")});
  ASSERT_EQ(run.code, kExitOk) << run.err << run.out;
  EXPECT_THAT(run.out, HasSubstr("PASS: 2 outputs"));
  const Result eval = Call(RunEval, {Tmp("bf16.hlo"), "--replicas=5", "--input=" + Tmp("bx.npy"),
                                     "--input=" + Tmp("bz.npy"), "--output_dir=" + Tmp("beval")});
  ASSERT_EQ(eval.code, kExitOk) << eval.err;
  for (int k = 0; k < 2; ++k) {
    absl::StatusOr<Literal> a = ReadNpyFile(Tmp(absl::StrCat("brun/out", k, ".npy")));
    absl::StatusOr<Literal> b = ReadNpyFile(Tmp(absl::StrCat("beval/out", k, ".npy")));
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(*a, *b) << "output " << k;
  }
  absl::StatusOr<Literal> ar = ReadNpyFile(Tmp("brun/out0.npy"));
  ASSERT_TRUE(ar.ok());
  for (int r = 0; r < 5; ++r) {
    EXPECT_EQ(ar->GetDouble(r * 7 + 0), 1.0);              // four quarter ulps round away
    EXPECT_EQ(ar->GetDouble(r * 7 + 1), 1.0 + 1.0 / 128);  // 4 * 2^-9 = 2^-7 first
  }
}

TEST_F(RunReplicasTest, BadReplicaCountsGetClearErrors) {
  const Result wrong_dim = Call(RunRun, {Tmp("c.xaot"), "--replicas=2", "--input=" + Tmp("x.npy")});
  EXPECT_EQ(wrong_dim.code, kExitBadInput);
  EXPECT_THAT(wrong_dim.err, HasSubstr("expects f32[2,5]"));
  const Result zero = Call(RunRun, {Tmp("c.xaot"), "--replicas=0", "--random_inputs"});
  EXPECT_EQ(zero.code, kExitUsage);
  EXPECT_THAT(zero.err, HasSubstr("bad --replicas value '0'"));
  const Result trace =
      Call(RunRun, {Tmp("c.xaot"), "--replicas=4", "--random_inputs", "--trace=" + Tmp("t.json")});
  EXPECT_EQ(trace.code, kExitUsage);
}

// The async forms: each -start runs the collective on the communication
// stream, each -done joins it and reads its result; checked against the
// replicated evaluator.
const char kAsyncModule[] = R"(
HloModule async, replica_count=4
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[7] parameter(0)
  y = f32[7] multiply(x, x)
  ar = f32[7] all-reduce-start(y), replica_groups={{0,1},{2,3}}, to_apply=add
  d = f32[7] all-reduce-done(ar)
  ags = (f32[7], f32[28]) all-gather-start(y), dimensions={0}, replica_groups={{0,1,2,3}}
  agd = f32[28] all-gather-done(ags)
  cps = (f32[7], f32[7]) collective-permute-start(y), source_target_pairs={{0,1},{1,2},{2,3},{3,0}}
  cpd = f32[7] collective-permute-done(cps)
  ROOT t = (f32[7], f32[28], f32[7]) tuple(d, agd, cpd)
}
)";

TEST_F(RunReplicasTest, AsyncFormsMatchTheReplicatedEvaluator) {
  std::ofstream(Tmp("async.hlo")) << kAsyncModule;
  const Result compiled =
      Call(RunCompile, {Tmp("async.hlo"), "--emit_collectives", "-o", Tmp("async.xaot")});
  ASSERT_EQ(compiled.code, kExitOk) << compiled.err;
  const Result run = Call(RunRun, {Tmp("async.xaot"), "--replicas=4", "--random_inputs", "--seed=3",
                                   "--reference=" + Tmp("async.hlo")});
  ASSERT_EQ(run.code, kExitOk) << run.err << run.out;
  EXPECT_THAT(run.out, HasSubstr("PASS: 3 outputs"));
}

// An SPMD module, 2 replicas x 2 partitions (participant d = replica * 2 +
// partition): every group mode (cross-replica, cross-replica-and-partition,
// flattened ids, cross-partition), a cross-partition permute, all-to-all and
// broadcast, the ids, and an all-gather whose listed replicas bring all
// their partitions (4 operands). Checked against the replicated evaluator,
// and the ids against hand values.
const char kSpmdModule[] = R"(
HloModule spmd, replica_count=2, num_partitions=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[6] parameter(0)
  cross_replica = f32[6] all-reduce(x), replica_groups={{0,1}}, to_apply=add
  replica_and_partition = f32[6] all-reduce(x), channel_id=1, replica_groups={{0,1}}, to_apply=add
  flattened = f32[6] all-reduce(x), channel_id=2, replica_groups={{0,3},{1,2}}, use_global_device_ids=true, to_apply=add
  gathered = f32[12] all-gather(x), channel_id=3, replica_groups={{1,2},{3,0}}, use_global_device_ids=true, dimensions={0}
  gathered_all = f32[24] all-gather(x), channel_id=7, replica_groups={{1,0}}, dimensions={0}
  permuted = f32[6] collective-permute(x), channel_id=4, source_target_pairs={{0,1}}
  exchanged = f32[6] all-to-all(x), channel_id=5, replica_groups={{0,1}}, dimensions={0}
  broadcast = f32[6] collective-broadcast(x), channel_id=6, replica_groups={{1,0}}
  rid = u32[] replica-id()
  pid = u32[] partition-id()
  ROOT t = (f32[6], f32[6], f32[6], f32[12], f32[6], f32[6], f32[6], u32[], u32[], f32[24]) tuple(cross_replica, replica_and_partition, flattened, gathered, permuted, exchanged, broadcast, rid, pid, gathered_all)
}
)";

TEST_F(RunReplicasTest, SpmdPartitionsMatchTheReplicatedEvaluator) {
  std::ofstream(Tmp("spmd.hlo")) << kSpmdModule;
  const Result compiled =
      Call(RunCompile, {Tmp("spmd.hlo"), "--emit_collectives", "-o", Tmp("spmd.xaot")});
  ASSERT_EQ(compiled.code, kExitOk) << compiled.err;
  // --replicas=2 runs 4 participants: inputs and outputs have a leading 4.
  const Result run =
      Call(RunRun, {Tmp("spmd.xaot"), "--replicas=2", "--random_inputs", "--seed=11",
                    "--reference=" + Tmp("spmd.hlo"), "--output_dir=" + Tmp("spmd_run")});
  ASSERT_EQ(run.code, kExitOk) << run.err << run.out;
  EXPECT_THAT(run.out, HasSubstr("PASS: 10 outputs"));
  absl::StatusOr<Literal> rid = ReadNpyFile(Tmp("spmd_run/out7.npy"));
  absl::StatusOr<Literal> pid = ReadNpyFile(Tmp("spmd_run/out8.npy"));
  ASSERT_TRUE(rid.ok() && pid.ok());
  ASSERT_EQ(rid->element_count(), 4);
  for (int d = 0; d < 4; ++d) {
    EXPECT_EQ(rid->GetDouble(d), d / 2) << d;
    EXPECT_EQ(pid->GetDouble(d), d % 2) << d;
  }
  // Inputs stacked for 2 instead of 4 participants are refused by shape.
  Literal x2(Shape::Array(PrimitiveType::F32, {2, 6}));
  ASSERT_TRUE(WriteNpyFile(Tmp("x2.npy"), x2).ok());
  const Result short_input =
      Call(RunRun, {Tmp("spmd.xaot"), "--replicas=2", "--input=" + Tmp("x2.npy")});
  EXPECT_EQ(short_input.code, kExitBadInput);
  EXPECT_THAT(short_input.err, HasSubstr("expects f32[4,6]"));
}

// 1 replica x 8 partitions on 8 host devices, from a module whose header
// keeps no device counts (as dumped SPMD programs do): `compile
// --num_partitions=8` gives them, and the run matches the replicated
// evaluator of the same program with the counts in its header.
const char kEightPartitions[] = R"(HloModule eight
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[7] parameter(0)
  halves = f32[7] all-reduce(x), channel_id=1, replica_groups={{0,1,2,3},{4,5,6,7}}, use_global_device_ids=true, to_apply=add
  everyone = f32[7] all-reduce(x), channel_id=2, replica_groups={{0,1,2,3,4,5,6,7}}, use_global_device_ids=true, to_apply=add
  pairs = f32[14] all-gather(x), channel_id=3, replica_groups={{0,7},{1,6},{2,5},{3,4}}, use_global_device_ids=true, dimensions={0}
  ring = f32[7] collective-permute(x), channel_id=4, source_target_pairs={{0,1},{1,2},{2,3},{3,4},{4,5},{5,6},{6,7},{7,0}}
  pid = u32[] partition-id()
  ROOT t = (f32[7], f32[7], f32[14], f32[7], u32[]) tuple(halves, everyone, pairs, ring, pid)
}
)";

TEST_F(RunReplicasTest, EightPartitionsFromCompileOptionsMatchTheReplicatedEvaluator) {
  std::ofstream(Tmp("eight.hlo")) << kEightPartitions;
  std::string with_header = kEightPartitions;
  with_header.replace(0, std::string("HloModule eight").size(), "HloModule eight, num_partitions=8");
  std::ofstream(Tmp("eight_header.hlo")) << with_header;
  const Result without = Call(RunCompile, {Tmp("eight.hlo"), "--emit_collectives", "-o", Tmp("eight.xaot")});
  EXPECT_EQ(without.code, kExitBadInput);
  EXPECT_THAT(without.err, HasSubstr("out of range [0, 1)"));
  const Result compiled = Call(RunCompile, {Tmp("eight.hlo"), "--emit_collectives", "--num_partitions=8", "-o",
                                            Tmp("eight.xaot")});
  ASSERT_EQ(compiled.code, kExitOk) << compiled.err;
  const Result run = Call(RunRun, {Tmp("eight.xaot"), "--replicas=1", "--random_inputs", "--seed=5",
                                   "--reference=" + Tmp("eight_header.hlo"), "--output_dir=" + Tmp("eight_run")});
  ASSERT_EQ(run.code, kExitOk) << run.err << run.out;
  EXPECT_THAT(run.out, HasSubstr("PASS: 5 outputs"));
  absl::StatusOr<Literal> pid = ReadNpyFile(Tmp("eight_run/out4.npy"));
  ASSERT_TRUE(pid.ok());
  ASSERT_EQ(pid->element_count(), 8);
  for (int d = 0; d < 8; ++d) EXPECT_EQ(pid->GetDouble(d), d) << d;
}

TEST_F(RunReplicasTest, CollectivesNeedTheFlagToCompile) {
  const Result compiled = Call(RunCompile, {Tmp("c.hlo"), "-o", Tmp("plain.xaot")});
  EXPECT_EQ(compiled.code, kExitBadInput);
  EXPECT_THAT(compiled.err, HasSubstr("--emit_collectives"));
}

}  // namespace
}  // namespace xla::cli
