#include "xla/hlo/evaluator/replicated_evaluator.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/evaluator/evaluator_test_util.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/verifier/hlo_verifier.h"

namespace xla {
namespace {

using evaluator_test::IntValues;
using evaluator_test::MakeIntLiteral;
using evaluator_test::MakeLiteral;
using evaluator_test::Values;
using D = std::vector<double>;
using I = std::vector<int64_t>;

constexpr char kReducers[] = R"(
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT r = f32[] add(x, y)
}
sub {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT r = f32[] subtract(x, y)
}
mul {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT r = f32[] multiply(x, y)
}
maxs {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT r = s32[] maximum(x, y)
}
mins {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT r = s32[] minimum(x, y)
}
adds {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT r = s32[] add(x, y)
}
)";

std::unique_ptr<HloModule> Parse(const std::string& entry, absl::string_view header = "") {
  const std::string text = absl::StrCat("HloModule m", header, "\n", kReducers, entry);
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status().message();
  if (!m.ok()) return nullptr;
  absl::Status v = VerifyModule(**m);
  EXPECT_TRUE(v.ok()) << v.message();
  return std::move(*m);
}

// Runs `entry` on `n` replicas with one argument per replica.
std::vector<Literal> RunReplicas(const std::string& entry, std::vector<Literal> per_replica,
                                 int64_t partitions = 1) {
  std::unique_ptr<HloModule> m = Parse(entry);
  if (m == nullptr) return {};
  std::vector<std::vector<Literal>> args;
  for (Literal& l : per_replica) {
    std::vector<Literal> one;
    one.push_back(std::move(l));
    args.push_back(std::move(one));
  }
  ReplicatedEvaluatorOptions options;
  options.num_replicas = static_cast<int64_t>(args.size()) / partitions;
  options.num_partitions = partitions;
  options.timeout_seconds = 20;
  absl::StatusOr<std::vector<Literal>> r = EvaluateReplicated(*m, args, options);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(*r) : std::vector<Literal>{};
}

// f32[k] arguments: value(d, i) for device d.
template <typename F>
std::vector<Literal> F32Args(int64_t n, std::vector<int64_t> dims, F value) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  std::vector<Literal> out;
  for (int64_t d = 0; d < n; ++d) {
    D v;
    for (int64_t i = 0; i < count; ++i) v.push_back(value(d, i));
    out.push_back(MakeLiteral(PrimitiveType::F32, dims, v));
  }
  return out;
}

template <typename F>
std::vector<Literal> S32Args(int64_t n, std::vector<int64_t> dims, F value) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  std::vector<Literal> out;
  for (int64_t d = 0; d < n; ++d) {
    I v;
    for (int64_t i = 0; i < count; ++i) v.push_back(value(d, i));
    out.push_back(MakeIntLiteral(PrimitiveType::S32, dims, v));
  }
  return out;
}

TEST(ReplicatedEvaluator, AllReduceAddFourReplicas) {
  // x_d = [d+1, 10d-3, d+0.5]; sums over d=0..3: 10, 48, 8.
  auto out = RunReplicas(R"(ENTRY e {
  p = f32[3] parameter(0)
  ROOT r = f32[3] all-reduce(p), replica_groups={}, to_apply=add
})",
                         F32Args(4, {3}, [](int64_t d, int64_t i) {
                           return i == 0 ? d + 1.0 : i == 1 ? 10.0 * d - 3 : d + 0.5;
                         }));
  ASSERT_EQ(out.size(), 4u);
  for (const Literal& l : out) EXPECT_EQ(Values(l), (D{10, 48, 8}));
}

// v_0 = [-4,7,0], v_1 = [-1,5,1], v_2 = [2,3,4], v_3 = [5,1,9].
std::vector<Literal> FourS32() {
  return S32Args(4, {3}, [](int64_t d, int64_t i) {
    return i == 0 ? 3 * d - 4 : i == 1 ? 7 - 2 * d : d * d;
  });
}

TEST(ReplicatedEvaluator, AllReduceMaxListGroups) {
  auto out = RunReplicas(R"(ENTRY e {
  p = s32[3] parameter(0)
  ROOT r = s32[3] all-reduce(p), replica_groups={{0,2},{1,3}}, to_apply=maxs
})",
                         FourS32());
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(IntValues(out[0]), (I{2, 7, 4}));
  EXPECT_EQ(IntValues(out[2]), (I{2, 7, 4}));
  EXPECT_EQ(IntValues(out[1]), (I{5, 5, 9}));
  EXPECT_EQ(IntValues(out[3]), (I{5, 5, 9}));
}

TEST(ReplicatedEvaluator, AllReduceMinIotaTransposedGroups) {
  // [2,2]<=[2,2]T(1,0) is {{0,2},{1,3}}.
  auto out = RunReplicas(R"(ENTRY e {
  p = s32[3] parameter(0)
  ROOT r = s32[3] all-reduce(p), replica_groups=[2,2]<=[2,2]T(1,0), to_apply=mins
})",
                         FourS32());
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(IntValues(out[0]), (I{-4, 3, 0}));
  EXPECT_EQ(IntValues(out[2]), (I{-4, 3, 0}));
  EXPECT_EQ(IntValues(out[1]), (I{-1, 1, 1}));
  EXPECT_EQ(IntValues(out[3]), (I{-1, 1, 1}));
}

TEST(ReplicatedEvaluator, AllReduceMulIotaGroups) {
  // [2,2]<=[4] is {{0,1},{2,3}}; x_d = [d+1, d-1.5, 2].
  auto out = RunReplicas(R"(ENTRY e {
  p = f32[3] parameter(0)
  ROOT r = f32[3] all-reduce(p), replica_groups=[2,2]<=[4], to_apply=mul
})",
                         F32Args(4, {3}, [](int64_t d, int64_t i) {
                           return i == 0 ? d + 1.0 : i == 1 ? d - 1.5 : 2.0;
                         }));
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(Values(out[0]), (D{2, 0.75, 4}));  // 1*2, -1.5*-0.5
  EXPECT_EQ(Values(out[1]), (D{2, 0.75, 4}));
  EXPECT_EQ(Values(out[3]), (D{12, 0.75, 4}));  // 3*4, 0.5*1.5
}

TEST(ReplicatedEvaluator, ReductionOrderIsAscendingIdLeftFold) {
  // subtract is not commutative: group {2,0,1} gives (x0 - x1) - x2, the
  // members in ascending id order (the runtime's rank order), not in the
  // order the group lists them.
  auto out = RunReplicas(
      R"(ENTRY e {
  p = f32[2] parameter(0)
  ROOT r = f32[2] all-reduce(p), replica_groups={{2,0,1}}, to_apply=sub
})",
      F32Args(3, {2}, [](int64_t d, int64_t i) { return i == 0 ? d * 10.0 + 1 : d * d - 7.0; }));
  ASSERT_EQ(out.size(), 3u);
  // x0 = [1,-7], x1 = [11,-6], x2 = [21,-3].
  for (const Literal& l : out) EXPECT_EQ(Values(l), (D{1 - 11 - 21, -7 + 6 + 3}));
  // f32 rounding makes the order visible: (1e8 + 1) - 1e8 = 0 but
  // (1e8 - 1e8) + 1 = 1; listing the group differently changes nothing.
  auto rounded = [](absl::string_view groups, int64_t one_at) {
    return RunReplicas(absl::StrCat(R"(ENTRY e {
  p = f32[1] parameter(0)
  ROOT r = f32[1] all-reduce(p), replica_groups=)",
                                    groups, R"(, to_apply=add
})"),
                       F32Args(3, {1}, [one_at](int64_t d, int64_t) {
                         return d == one_at ? 1.0 : d == (one_at + 1) % 3 ? 1e8 : -1e8;
                       }));
  };
  // Replica 1 holds 1: 1e8 + 1 rounds back to 1e8, then - 1e8 = 0.
  EXPECT_EQ(Values(rounded("{{0,1,2}}", 1)[0]), (D{-1e8 + 1e8}));
  EXPECT_EQ(Values(rounded("{{0,2,1}}", 1)[1]), (D{0}));
  EXPECT_EQ(Values(rounded("{{2,1,0}}", 1)[2]), (D{0}));
  // Replica 2 holds 1: (-1e8 + 1e8) + 1 = 1, however the group is listed.
  EXPECT_EQ(Values(rounded("{{2,1,0}}", 2)[0]), (D{1}));
  EXPECT_EQ(Values(rounded("{{1,0,2}}", 2)[0]), (D{1}));
}

// bf16 add rounds to bf16 after every step (computed in f32): 1 + 2^-9,
// four times, stays 1; with the tiny values first they add up to 2^-7
// exactly and the result is 1 + 2^-7.
TEST(ReplicatedEvaluator, Bf16AllReduceRoundsEveryStepInIdOrder) {
  std::vector<Literal> args;
  for (int64_t d = 0; d < 5; ++d) {
    args.push_back(MakeLiteral(PrimitiveType::BF16, {2},
                               D{d == 0 ? 1.0 : 1.0 / 512, d == 4 ? 1.0 : 1.0 / 512}));
  }
  auto out = RunReplicas(R"(
addb {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}
ENTRY e {
  p = bf16[2] parameter(0)
  ROOT r = bf16[2] all-reduce(p), replica_groups={{4,3,2,1,0}}, to_apply=addb
})",
                         std::move(args));
  ASSERT_EQ(out.size(), 5u);
  for (const Literal& l : out) EXPECT_EQ(Values(l), (D{1.0, 1.0 + 1.0 / 128}));
}

TEST(ReplicatedEvaluator, VariadicAllReduce) {
  std::unique_ptr<HloModule> ok = Parse(R"(ENTRY e {
  a = f32[2] parameter(0)
  b = f32[3] parameter(1)
  ROOT r = (f32[2], f32[3]) all-reduce(a, b), replica_groups={}, to_apply=add
})");
  ASSERT_NE(ok, nullptr);
  std::vector<std::vector<Literal>> args;
  for (int64_t d = 0; d < 2; ++d) {
    std::vector<Literal> one;
    one.push_back(MakeLiteral(PrimitiveType::F32, {2}, {d + 1.5, -2.0 * d}));
    one.push_back(MakeLiteral(PrimitiveType::F32, {3}, {3.0 * d, 1, d - 4.0}));
    args.push_back(std::move(one));
  }
  auto r = EvaluateReplicated(*ok, args, {});
  ASSERT_FALSE(r.ok());  // the module has no replica_count: 1 participant, 2 lists
  ReplicatedEvaluatorOptions options;
  options.num_replicas = 2;
  r = EvaluateReplicated(*ok, args, options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (const Literal& l : *r) {
    ASSERT_EQ(l.tuple_elements().size(), 2u);
    EXPECT_EQ(Values(l.tuple_elements()[0]), (D{4, -2}));
    EXPECT_EQ(Values(l.tuple_elements()[1]), (D{3, 2, -7}));
  }
}

TEST(ReplicatedEvaluator, AllGatherEightReplicasIotaGroups) {
  // [2,4]<=[8]: {0,1,2,3}, {4,5,6,7}; x_d = [[d, 10+d]] gathered along 1.
  auto out =
      RunReplicas(R"(ENTRY e {
  p = s32[1,2] parameter(0)
  ROOT r = s32[1,8] all-gather(p), replica_groups=[2,4]<=[8], dimensions={1}
})",
                  S32Args(8, {1, 2}, [](int64_t d, int64_t i) { return i == 0 ? d : 10 + d; }));
  ASSERT_EQ(out.size(), 8u);
  EXPECT_EQ(IntValues(out[2]), (I{0, 10, 1, 11, 2, 12, 3, 13}));
  EXPECT_EQ(IntValues(out[7]), (I{4, 14, 5, 15, 6, 16, 7, 17}));
}

TEST(ReplicatedEvaluator, AllGatherDimensionZeroTwoReplicas) {
  auto out =
      RunReplicas(R"(ENTRY e {
  p = f32[1,3] parameter(0)
  ROOT r = f32[2,3] all-gather(p), replica_groups={{1,0}}, dimensions={0}
})",
                  F32Args(2, {1, 3}, [](int64_t d, int64_t i) { return d * 100 + i + 0.5; }));
  ASSERT_EQ(out.size(), 2u);
  // Group order {1,0}: replica 1's row first.
  EXPECT_EQ(Values(out[0]), (D{100.5, 101.5, 102.5, 0.5, 1.5, 2.5}));
  EXPECT_EQ(Values(out[1]), Values(out[0]));
}

TEST(ReplicatedEvaluator, ReduceScatter) {
  auto out = RunReplicas(
      R"(ENTRY e {
  p = f32[4] parameter(0)
  ROOT r = f32[2] reduce-scatter(p), replica_groups={}, dimensions={0}, to_apply=add
})",
      F32Args(2, {4}, [](int64_t d, int64_t i) { return (i + 1) * (d == 0 ? 1 : 10); }));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Values(out[0]), (D{11, 22}));
  EXPECT_EQ(Values(out[1]), (D{33, 44}));
}

TEST(ReplicatedEvaluator, ReduceScatterEightReplicasInnerDimension) {
  // s32[3,8] scattered along 1 over 8 replicas: replica j gets column j of
  // the max over d of x_d[r][c] = (d * 7 + r * 3 + c * 5) % 11.
  auto out = RunReplicas(R"(ENTRY e {
  p = s32[3,8] parameter(0)
  ROOT r = s32[3,1] reduce-scatter(p), replica_groups={}, dimensions={1}, to_apply=maxs
})",
                         S32Args(8, {3, 8}, [](int64_t d, int64_t i) {
                           return (d * 7 + (i / 8) * 3 + (i % 8) * 5) % 11;
                         }));
  ASSERT_EQ(out.size(), 8u);
  for (int64_t j = 0; j < 8; ++j) {
    I expected;
    for (int64_t r = 0; r < 3; ++r) {
      int64_t best = -1;
      for (int64_t d = 0; d < 8; ++d) best = std::max(best, (d * 7 + r * 3 + j * 5) % 11);
      expected.push_back(best);
    }
    EXPECT_EQ(IntValues(out[j]), expected) << "replica " << j;
  }
  // Hand check of one value: replica 0, row 0: max over d of (7d % 11) = 10.
  EXPECT_EQ(IntValues(out[0])[0], 10);
}

TEST(ReplicatedEvaluator, AllToAllSplitDimensionZero) {
  // x_d[i][k] = 100d + 10i + k; member j gets row j of every member.
  auto out = RunReplicas(
      R"(ENTRY e {
  p = s32[4,3] parameter(0)
  ROOT r = s32[4,3] all-to-all(p), replica_groups={}, dimensions={0}
})",
      S32Args(4, {4, 3}, [](int64_t d, int64_t i) { return 100 * d + 10 * (i / 3) + i % 3; }));
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(IntValues(out[2]), (I{20, 21, 22, 120, 121, 122, 220, 221, 222, 320, 321, 322}));
}

TEST(ReplicatedEvaluator, AllToAllSplitDimensionOne) {
  // Two replicas, s32[3,4] split along 1 into two [3,2] halves.
  auto out = RunReplicas(R"(ENTRY e {
  p = s32[3,4] parameter(0)
  ROOT r = s32[3,4] all-to-all(p), replica_groups={{0,1}}, dimensions={1}
})",
                         S32Args(2, {3, 4}, [](int64_t d, int64_t i) { return 100 * d + i; }));
  ASSERT_EQ(out.size(), 2u);
  // x0 = [[0,1,2,3],[4..7],[8..11]], x1 = x0 + 100.
  EXPECT_EQ(IntValues(out[0]), (I{0, 1, 100, 101, 4, 5, 104, 105, 8, 9, 108, 109}));
  EXPECT_EQ(IntValues(out[1]), (I{2, 3, 102, 103, 6, 7, 106, 107, 10, 11, 110, 111}));
}

TEST(ReplicatedEvaluator, AllToAllTupleForm) {
  std::unique_ptr<HloModule> m = Parse(R"(ENTRY e {
  a = f32[3] parameter(0)
  b = f32[3] parameter(1)
  ROOT r = (f32[3], f32[3]) all-to-all(a, b), replica_groups={{0,1}}
})");
  ASSERT_NE(m, nullptr);
  std::vector<std::vector<Literal>> args;
  for (int64_t d = 0; d < 2; ++d) {
    std::vector<Literal> one;
    one.push_back(MakeLiteral(PrimitiveType::F32, {3}, {d + 0.5, 1, 2}));
    one.push_back(MakeLiteral(PrimitiveType::F32, {3}, {-d - 1.0, 7, 9}));
    args.push_back(std::move(one));
  }
  ReplicatedEvaluatorOptions options;
  options.num_replicas = 2;
  auto r = EvaluateReplicated(*m, args, options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  // Member j's element i is operand j of member i.
  EXPECT_EQ(Values((*r)[0].tuple_elements()[0]), (D{0.5, 1, 2}));
  EXPECT_EQ(Values((*r)[0].tuple_elements()[1]), (D{1.5, 1, 2}));
  EXPECT_EQ(Values((*r)[1].tuple_elements()[0]), (D{-1, 7, 9}));
  EXPECT_EQ(Values((*r)[1].tuple_elements()[1]), (D{-2, 7, 9}));
}

TEST(ReplicatedEvaluator, CollectivePermuteNonTargetsGetZeros) {
  auto out = RunReplicas(R"(ENTRY e {
  p = f32[3] parameter(0)
  ROOT r = f32[3] collective-permute(p), source_target_pairs={{0,1},{1,2},{2,3}}
})",
                         F32Args(4, {3}, [](int64_t d, int64_t i) { return d * 3 + i + 1.0; }));
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(Values(out[0]), (D{0, 0, 0}));
  EXPECT_EQ(Values(out[1]), (D{1, 2, 3}));
  EXPECT_EQ(Values(out[2]), (D{4, 5, 6}));
  EXPECT_EQ(Values(out[3]), (D{7, 8, 9}));
}

TEST(ReplicatedEvaluator, CollectiveBroadcastFromFirstOfEachGroup) {
  auto out = RunReplicas(R"(ENTRY e {
  p = s32[3] parameter(0)
  ROOT r = s32[3] collective-broadcast(p), replica_groups={{1,0},{3,2}}
})",
                         FourS32());
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(IntValues(out[0]), (I{-1, 5, 1}));
  EXPECT_EQ(IntValues(out[1]), (I{-1, 5, 1}));
  EXPECT_EQ(IntValues(out[2]), (I{5, 1, 9}));
  EXPECT_EQ(IntValues(out[3]), (I{5, 1, 9}));
}

TEST(ReplicatedEvaluator, ReplicaAndPartitionIds) {
  auto out = RunReplicas(R"(ENTRY e {
  p = u32[] parameter(0)
  r = u32[] replica-id()
  q = u32[] partition-id()
  ten = u32[] constant(10)
  rt = u32[] multiply(r, ten)
  s = u32[] add(rt, q)
  ROOT o = u32[] add(s, p)
})",
                         [] {
                           std::vector<Literal> args;
                           for (int64_t d = 0; d < 6; ++d)
                             args.push_back(MakeIntLiteral(PrimitiveType::U32, {}, {100}));
                           return args;
                         }(),
                         /*partitions=*/2);
  ASSERT_EQ(out.size(), 6u);  // 3 replicas x 2 partitions
  EXPECT_EQ(IntValues(out[0]), (I{100}));
  EXPECT_EQ(IntValues(out[1]), (I{101}));
  EXPECT_EQ(IntValues(out[4]), (I{120}));
  EXPECT_EQ(IntValues(out[5]), (I{121}));
}

// 2 replicas x 2 partitions, device = 2 * replica + partition, x_d = d + 1.
std::vector<Literal> TwoByTwo() {
  return S32Args(4, {1}, [](int64_t d, int64_t) { return d + 1; });
}

TEST(ReplicatedEvaluator, GroupModesWithPartitions) {
  // No channel: groups of replicas per partition: {0,2}, {1,3}.
  auto cross_replica = RunReplicas(R"(ENTRY e {
  p = s32[1] parameter(0)
  ROOT r = s32[1] all-reduce(p), replica_groups={}, to_apply=adds
})",
                                   TwoByTwo(), 2);
  ASSERT_EQ(cross_replica.size(), 4u);
  EXPECT_EQ(IntValues(cross_replica[0]), (I{4}));
  EXPECT_EQ(IntValues(cross_replica[1]), (I{6}));
  // channel_id, no global ids: replica groups {{0},{1}} with all partitions:
  // {0,1}, {2,3}.
  auto both = RunReplicas(R"(ENTRY e {
  p = s32[1] parameter(0)
  ROOT r = s32[1] all-reduce(p), channel_id=1, replica_groups={{0},{1}}, to_apply=adds
})",
                          TwoByTwo(), 2);
  EXPECT_EQ(IntValues(both[0]), (I{3}));
  EXPECT_EQ(IntValues(both[3]), (I{7}));
  // Global ids.
  auto flat = RunReplicas(R"(ENTRY e {
  p = s32[1] parameter(0)
  ROOT r = s32[1] all-reduce(p), channel_id=1, replica_groups={{0,3},{1,2}},
    use_global_device_ids=true, to_apply=adds
})",
                          TwoByTwo(), 2);
  EXPECT_EQ(IntValues(flat[0]), (I{5}));
  EXPECT_EQ(IntValues(flat[1]), (I{5}));
  EXPECT_EQ(IntValues(flat[3]), (I{5}));
  // all-gather across partitions (channel_id, global ids {0,1},{2,3}).
  auto gather = RunReplicas(R"(ENTRY e {
  p = s32[1] parameter(0)
  ROOT r = s32[2] all-gather(p), channel_id=2, replica_groups={{1,0},{2,3}},
    use_global_device_ids=true, dimensions={0}
})",
                            TwoByTwo(), 2);
  EXPECT_EQ(IntValues(gather[0]), (I{2, 1}));
  EXPECT_EQ(IntValues(gather[3]), (I{3, 4}));
  // collective-permute with channel_id permutes partitions within a replica.
  auto permute = RunReplicas(R"(ENTRY e {
  p = s32[1] parameter(0)
  ROOT r = s32[1] collective-permute(p), channel_id=3, source_target_pairs={{0,1}}
})",
                             TwoByTwo(), 2);
  EXPECT_EQ(IntValues(permute[0]), (I{0}));
  EXPECT_EQ(IntValues(permute[1]), (I{1}));
  EXPECT_EQ(IntValues(permute[3]), (I{3}));
}

TEST(ReplicatedEvaluator, AsyncForms) {
  // x_d = [d+1, 2, -d]; two replicas.
  auto out = RunReplicas(R"(ENTRY e {
  p = f32[3] parameter(0)
  ars = f32[3] all-reduce-start(p), replica_groups={}, to_apply=add
  ard = f32[3] all-reduce-done(ars)
  ags = (f32[3], f32[6]) all-gather-start(ard), replica_groups={}, dimensions={0}
  agd = f32[6] all-gather-done(ags)
  cps = (f32[6], f32[6], u32[], u32[]) collective-permute-start(agd), source_target_pairs={{0,1},{1,0}}
  cpd = f32[6] collective-permute-done(cps)
  ROOT r = f32[6] add(cpd, agd)
})",
                         F32Args(2, {3}, [](int64_t d, int64_t i) {
                           return i == 0 ? d + 1.0 : i == 1 ? 2.0 : -1.0 * d;
                         }));
  ASSERT_EQ(out.size(), 2u);
  // all-reduce: [3, 4, -1]; gathered: [3,4,-1,3,4,-1]; swapped and added: x2.
  EXPECT_EQ(Values(out[0]), (D{6, 8, -2, 6, 8, -2}));
  EXPECT_EQ(Values(out[1]), (D{6, 8, -2, 6, 8, -2}));
}

TEST(ReplicatedEvaluator, GenericAsyncWrapper) {
  auto out = RunReplicas(R"(
wrapped {
  x = f32[3] parameter(0)
  ROOT ar = f32[3] all-reduce(x), replica_groups={}, to_apply=mul
}
ENTRY e {
  p = f32[3] parameter(0)
  s = ((f32[3]), f32[3], s32[]) async-start(p), calls=wrapped
  ROOT d = f32[3] async-done(s)
})",
                         F32Args(3, {3}, [](int64_t d, int64_t i) { return d + i + 1.0; }));
  ASSERT_EQ(out.size(), 3u);
  // products over d of (d + i + 1): i=0: 1*2*3, i=1: 2*3*4, i=2: 3*4*5.
  EXPECT_EQ(Values(out[1]), (D{6, 24, 60}));
}

TEST(ReplicatedEvaluator, UsesModuleReplicaCount) {
  std::unique_ptr<HloModule> m = Parse(R"(ENTRY e {
  p = s32[3] parameter(0)
  ROOT r = s32[3] all-reduce(p), replica_groups={}, to_apply=adds
})",
                                       ", replica_count=4");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(*ReplicatedParticipantCount(*m, {}), 4);
  std::vector<std::vector<Literal>> args;
  for (Literal& l : FourS32()) {
    args.emplace_back();
    args.back().push_back(std::move(l));
  }
  auto r = EvaluateReplicated(*m, args);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(IntValues((*r)[3]), (I{2, 16, 14}));
}

TEST(ReplicatedEvaluator, SingleParticipantMatchesHloEvaluator) {
  std::unique_ptr<HloModule> m = Parse(R"(ENTRY e {
  p = f32[3] parameter(0)
  ar = f32[3] all-reduce(p), replica_groups={}, to_apply=add
  id = u32[] replica-id()
  c = f32[] convert(id)
  b = f32[3] broadcast(c), dimensions={}
  ROOT r = f32[3] add(ar, b)
})");
  ASSERT_NE(m, nullptr);
  std::vector<std::vector<Literal>> args(1);
  args[0].push_back(MakeLiteral(PrimitiveType::F32, {3}, {1.5, -2, 7}));
  auto replicated = EvaluateReplicated(*m, args);
  auto single = HloEvaluator().Evaluate(*m, args[0]);
  ASSERT_TRUE(replicated.ok() && single.ok());
  EXPECT_EQ((*replicated)[0], *single);
  EXPECT_EQ(Values(*single), (D{1.5, -2, 7}));
}

TEST(ReplicatedEvaluator, MismatchedArguments) {
  std::unique_ptr<HloModule> m = Parse(R"(ENTRY e {
  p = f32[3] parameter(0)
  ROOT r = f32[3] all-reduce(p), replica_groups={}, to_apply=add
})");
  ReplicatedEvaluatorOptions options;
  options.num_replicas = 4;
  std::vector<std::vector<Literal>> three(3);
  for (auto& a : three) a.push_back(MakeLiteral(PrimitiveType::F32, {3}, {1, 2, 3}));
  auto r = EvaluateReplicated(*m, three, options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message()).find("need 4 argument lists, got 3"),
            std::string::npos)
      << r.status().message();
  std::vector<std::vector<Literal>> four(4);
  for (size_t d = 0; d < 3; ++d) four[d].push_back(MakeLiteral(PrimitiveType::F32, {3}, {1, 2, 3}));
  r = EvaluateReplicated(*m, four, options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message()).find("replica 3, partition 0"), std::string::npos)
      << r.status().message();
  // Shapes that differ between participants: replica 1 has f32[4].
  std::vector<std::vector<Literal>> shapes(4);
  for (size_t d = 0; d < 4; ++d) {
    shapes[d].push_back(MakeLiteral(PrimitiveType::F32, {d == 1 ? 4 : 3}, D(d == 1 ? 4 : 3, 1.0)));
  }
  r = EvaluateReplicated(*m, shapes, options);
  EXPECT_FALSE(r.ok());
}

// Each participant's host transfers go to its own hook: participant d's
// recv returns its own data, its send is that data plus its replica id and
// the all-reduced parameter, so a hook mix-up changes what a hook sees.
TEST(ReplicatedEvaluator, HostTransfersGoToEachParticipantsOwnHook) {
  std::unique_ptr<HloModule> m = Parse(R"(ENTRY e {
  p = f32[5] parameter(0)
  tok = token[] after-all()
  r = (f32[5], u32[], token[]) recv(tok), channel_id=1, is_host_transfer=true
  rd = (f32[5], token[]) recv-done(r), channel_id=1, is_host_transfer=true
  y = f32[5] get-tuple-element(rd), index=0
  id = u32[] replica-id()
  c = f32[] convert(id)
  b = f32[5] broadcast(c), dimensions={}
  ar = f32[5] all-reduce(p), replica_groups={}, to_apply=add
  yb = f32[5] add(y, b)
  v = f32[5] add(yb, ar)
  t = token[] get-tuple-element(rd), index=1
  s = (f32[5], u32[], token[]) send(v, t), channel_id=2, is_host_transfer=true
  sd = token[] send-done(s), channel_id=2, is_host_transfer=true
  ROOT o = f32[5] multiply(v, v)
})");
  ASSERT_NE(m, nullptr);
  constexpr int64_t kN = 3;
  std::vector<std::vector<double>> sent(kN);
  std::vector<HostTransferHook> hooks(kN);
  for (int64_t d = 0; d < kN; ++d) {
    hooks[d].recv = [d](int64_t channel, absl::string_view, const Shape& shape)
        -> absl::StatusOr<Literal> {
      EXPECT_EQ(channel, 1);
      D v;
      for (int i = 0; i < 5; ++i) v.push_back(10.0 * d + 0.5 * i);
      return MakeLiteral(PrimitiveType::F32, {5}, v);
    };
    hooks[d].send = [d, &sent](int64_t channel, absl::string_view, const Literal& data) {
      EXPECT_EQ(channel, 2);
      sent[d] = Values(data);
      return absl::OkStatus();
    };
  }
  std::vector<std::vector<Literal>> args(kN);
  for (int64_t d = 0; d < kN; ++d) {
    args[d].push_back(MakeLiteral(PrimitiveType::F32, {5}, {1.0 + d, 2, 3, 4, -5.0 * d}));
  }
  ReplicatedEvaluatorOptions options;
  options.num_replicas = kN;
  options.timeout_seconds = 20;
  for (const HostTransferHook& h : hooks) options.host_transfers.push_back(&h);
  absl::StatusOr<std::vector<Literal>> r = EvaluateReplicated(*m, args, options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const D sum = {1 + 2 + 3, 6, 9, 12, 0 - 5 - 10};  // the all-reduce, by hand
  for (int64_t d = 0; d < kN; ++d) {
    D want;
    for (int i = 0; i < 5; ++i) want.push_back(10.0 * d + 0.5 * i + d + sum[i]);
    EXPECT_EQ(sent[d], want) << "participant " << d;
    D squared;
    for (double w : want) squared.push_back(w * w);
    EXPECT_EQ(Values((*r)[d]), squared) << "participant " << d;
  }
  options.host_transfers.pop_back();
  r = EvaluateReplicated(*m, args, options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message()).find("3 participants need one host-transfer hook "
                                                   "each, got 2"),
            std::string::npos)
      << r.status().message();
}

// A data-dependent conditional: replica 0 reaches all-reduce `a`, the others
// all-reduce `b`. Nobody completes; the run must fail, not hang.
constexpr char kDivergent[] = R"(
branch_a {
  x = f32[3] parameter(0)
  ROOT a = f32[3] all-reduce(x), replica_groups={}, to_apply=add
}
branch_b {
  x = f32[3] parameter(0)
  ROOT b = f32[3] all-reduce(x), replica_groups={}, to_apply=mul
}
ENTRY e {
  p = f32[3] parameter(0)
  id = u32[] replica-id()
  zero = u32[] constant(0)
  first = pred[] compare(id, zero), direction=EQ
  ROOT r = f32[3] conditional(first, p, p), true_computation=branch_a, false_computation=branch_b
})";

TEST(ReplicatedEvaluator, DeadlockTimesOutNamingMissingParticipants) {
  std::unique_ptr<HloModule> m = Parse(kDivergent);
  ASSERT_NE(m, nullptr);
  ReplicatedEvaluatorOptions options;
  options.num_replicas = 3;
  options.timeout_seconds = 0.3;
  std::vector<std::vector<Literal>> args(3);
  for (auto& a : args) a.push_back(MakeLiteral(PrimitiveType::F32, {3}, {1, 2, 3}));
  const auto start = std::chrono::steady_clock::now();
  auto r = EvaluateReplicated(*m, args, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded) << r.status().message();
  const std::string msg(r.status().message());
  EXPECT_NE(msg.find("never arrived"), std::string::npos) << msg;
  EXPECT_NE(msg.find("all-reduce '"), std::string::npos) << msg;
  // Replica 0 waits at `a` for replicas 1 and 2 (or they wait at `b` for 0).
  EXPECT_TRUE(msg.find("replica 1, partition 0 (device 1); replica 2") != std::string::npos ||
              msg.find("never arrived: replica 0, partition 0 (device 0)") != std::string::npos)
      << msg;
  EXPECT_LT(seconds, 10.0);
}

TEST(ReplicatedEvaluator, ParticipantThatSkipsACollectiveIsNamed) {
  // Only replica 0 reaches the all-reduce; replica 1 finishes without it.
  std::unique_ptr<HloModule> m = Parse(R"(
with_ar {
  x = f32[3] parameter(0)
  ROOT a = f32[3] all-reduce(x), replica_groups={}, to_apply=add
}
without {
  ROOT x = f32[3] parameter(0)
}
ENTRY e {
  p = f32[3] parameter(0)
  id = u32[] replica-id()
  zero = u32[] constant(0)
  first = pred[] compare(id, zero), direction=EQ
  ROOT r = f32[3] conditional(first, p, p), true_computation=with_ar, false_computation=without
})");
  ASSERT_NE(m, nullptr);
  ReplicatedEvaluatorOptions options;
  options.num_replicas = 2;
  options.timeout_seconds = 30;  // must fail long before this
  std::vector<std::vector<Literal>> args(2);
  for (auto& a : args) a.push_back(MakeLiteral(PrimitiveType::F32, {3}, {1, 2, 3}));
  const auto start = std::chrono::steady_clock::now();
  auto r = EvaluateReplicated(*m, args, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition) << r.status().message();
  EXPECT_NE(std::string(r.status().message()).find("replica 1, partition 0 (device 1) finished"),
            std::string::npos)
      << r.status().message();
  EXPECT_LT(seconds, 10.0);
}

TEST(ReplicatedEvaluator, DeterministicAcrossRuns) {
  const std::string hlo = R"(ENTRY e {
  p = f32[5] parameter(0)
  ROOT r = f32[5] all-reduce(p), replica_groups={{7,0,5,2},{1,6,3,4}}, to_apply=add
})";
  auto args = [] {
    return F32Args(8, {5}, [](int64_t d, int64_t i) { return 1.0 / (d + 3) + i * 1e7; });
  };
  auto first = RunReplicas(hlo, args());
  for (int k = 0; k < 3; ++k) {
    auto again = RunReplicas(hlo, args());
    ASSERT_EQ(again.size(), first.size());
    for (size_t d = 0; d < first.size(); ++d) EXPECT_EQ(again[d], first[d]);
  }
}

}  // namespace
}  // namespace xla
