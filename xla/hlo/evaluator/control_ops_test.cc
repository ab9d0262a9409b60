// Tests of the control family: while (and its iteration limit), conditional
// (pred and index forms), call, fusion, map, scan, tuples, tokens, async and copy
// wrappers, single-participant collectives and custom-call errors.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "xla/hlo/evaluator/evaluator_test_util.h"

namespace xla {
namespace {

using evaluator_test::EvalText;
using evaluator_test::IntValues;
using evaluator_test::MakeIntLiteral;
using evaluator_test::MakeLiteral;
using evaluator_test::Values;

Literal Eval(const std::string& hlo, const std::vector<Literal>& args = {},
             EvaluatorOptions options = {}) {
  absl::StatusOr<Literal> r = EvalText(hlo, args, options);
  EXPECT_TRUE(r.ok()) << r.status() << "\n" << hlo;
  return r.ok() ? std::move(*r) : Literal();
}

constexpr char kLoop[] = R"(
cond {
  s = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  s = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[3] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  f = f32[] convert(i1)
  fb = f32[3] broadcast(f), dimensions={}
  v1 = f32[3] add(v, fb)
  ROOT t = (s32[], f32[3]) tuple(i1, v1)
}

ENTRY e {
  zero = s32[] constant(0)
  v = f32[3] constant({0.5, -1, 100})
  init = (s32[], f32[3]) tuple(zero, v)
  ROOT w = (s32[], f32[3]) while(init), condition=cond, body=body
}
)";

TEST(ControlOps, WhileRunsUntilTheConditionFails) {
  Literal r = Eval(kLoop);
  EXPECT_EQ(r.tuple_elements()[0].GetInt(0), 10);
  EXPECT_EQ(Values(r.tuple_elements()[1]), (std::vector<double>{55.5, 54, 155}));
}

TEST(ControlOps, WhileIterationLimitIsAnErrorNamingTheLoop) {
  EvaluatorOptions options;
  options.max_while_iterations = 4;
  absl::StatusOr<Literal> r = EvalText(kLoop, {}, options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "while 'w'")) << r.status();
  EXPECT_TRUE(absl::StrContains(r.status().message(), "4 iterations")) << r.status();
  options.max_while_iterations = 10;  // exactly enough
  EXPECT_EQ(Eval(kLoop, {}, options).tuple_elements()[0].GetInt(0), 10);
}

constexpr char kBranches[] = R"(
neg {
  x = s32[3] parameter(0)
  ROOT n = s32[3] negate(x)
}

twice {
  x = s32[3] parameter(0)
  ROOT d = s32[3] add(x, x)
}

same {
  x = s32[3] parameter(0)
  ROOT c = s32[3] copy(x)
}
)";

TEST(ControlOps, ConditionalPredForm) {
  const std::string hlo = absl::StrCat(kBranches, R"(
ENTRY e {
  p = pred[] parameter(0)
  a = s32[3] constant({1, -2, 3})
  b = s32[3] constant({10, 20, 30})
  ROOT c = s32[3] conditional(p, a, b), true_computation=neg, false_computation=twice
})");
  EXPECT_EQ(IntValues(Eval(hlo, {MakeIntLiteral(PrimitiveType::PRED, {}, {1})})),
            (std::vector<int64_t>{-1, 2, -3}));
  EXPECT_EQ(IntValues(Eval(hlo, {MakeIntLiteral(PrimitiveType::PRED, {}, {0})})),
            (std::vector<int64_t>{20, 40, 60}));
}

TEST(ControlOps, ConditionalIndexFormRunsTheLastBranchWhenOutOfRange) {
  const std::string hlo = absl::StrCat(kBranches, R"(
ENTRY e {
  i = s32[] parameter(0)
  a = s32[3] constant({1, -2, 3})
  ROOT c = s32[3] conditional(i, a, a, a), branch_computations={neg, twice, same}
})");
  auto run = [&](int64_t i) {
    return IntValues(Eval(hlo, {MakeIntLiteral(PrimitiveType::S32, {}, {i})}));
  };
  EXPECT_EQ(run(0), (std::vector<int64_t>{-1, 2, -3}));
  EXPECT_EQ(run(1), (std::vector<int64_t>{2, -4, 6}));
  EXPECT_EQ(run(2), (std::vector<int64_t>{1, -2, 3}));
  EXPECT_EQ(run(7), (std::vector<int64_t>{1, -2, 3}));
  EXPECT_EQ(run(-1), (std::vector<int64_t>{1, -2, 3}));
}

TEST(ControlOps, CallFusionAndMap) {
  const std::string hlo = R"(
fma {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  m = f32[] multiply(x, y)
  one = f32[] constant(1)
  ROOT s = f32[] add(m, one)
}

fused {
  p0 = f32[5] parameter(0)
  p1 = f32[5] parameter(1)
  ROOT s = f32[5] subtract(p0, p1)
}

ENTRY e {
  a = f32[5] constant({1, 2, 3, 4, 5})
  b = f32[5] constant({0.5, -1, 2, 0, 10})
  m = f32[5] map(a, b), dimensions={0}, to_apply=fma
  f = f32[5] fusion(a, b), kind=kLoop, calls=fused
  ROOT t = (f32[5], f32[5]) tuple(m, f)
})";
  Literal r = Eval(hlo);
  EXPECT_EQ(Values(r.tuple_elements()[0]), (std::vector<double>{1.5, -1, 7, 1, 51}));
  EXPECT_EQ(Values(r.tuple_elements()[1]), (std::vector<double>{0.5, 3, 1, 4, -5}));
}

// scan: a running sum with its carry (output = carry + x, as the corpus's
// add_comp does), then along dim 1 of a 2x3 array with two inputs, one
// output and two carries (a running max and a step count), values by hand.
TEST(ControlOps, ScanCarriesAndStacksAlongItsDimension) {
  Literal sum = Eval(R"(
add_comp {
  x = f32[] parameter(0)
  c = f32[] parameter(1)
  a = f32[] add(x, c)
  ROOT t = (f32[], f32[]) tuple(a, a)
}

ENTRY e {
  x = f32[5] constant({1, -2, 3.5, 4, -0.5})
  init = f32[] constant(10)
  ROOT s = (f32[5], f32[]) scan(x, init), dimensions={0}, num_carries=1, is_associative=true, to_apply=add_comp
})");
  ASSERT_EQ(sum.tuple_elements().size(), 2u);
  EXPECT_EQ(Values(sum.tuple_elements()[0]), (std::vector<double>{11, 9, 12.5, 16.5, 16}));
  EXPECT_EQ(Values(sum.tuple_elements()[1]), (std::vector<double>{16}));

  Literal r = Eval(R"(
step {
  x = s32[2] parameter(0)
  y = s32[2] parameter(1)
  m = s32[2] parameter(2)
  n = s32[] parameter(3)
  p = s32[2] multiply(x, y)
  m2 = s32[2] maximum(m, p)
  d = s32[2] subtract(p, m)
  one = s32[] constant(1)
  n2 = s32[] add(n, one)
  ROOT t = (s32[2], s32[2], s32[]) tuple(d, m2, n2)
}

ENTRY e {
  x = s32[2,3] constant({{1, 5, -2}, {3, 0, 4}})
  y = s32[2,3] constant({{2, 1, 7}, {-1, 6, 2}})
  m = s32[2] constant({0, -9})
  n = s32[] constant(4)
  ROOT s = (s32[2,3], s32[2], s32[]) scan(x, y, m, n), dimensions={1}, num_carries=2, to_apply=step
})");
  ASSERT_EQ(r.tuple_elements().size(), 3u);
  // Products: row 0 {2, 5, -14}, row 1 {-3, 0, 8}; d = product - running max.
  EXPECT_EQ(IntValues(r.tuple_elements()[0]), (std::vector<int64_t>{2, 3, -19, 6, 3, 8}));
  EXPECT_EQ(IntValues(r.tuple_elements()[1]), (std::vector<int64_t>{5, 8}));
  EXPECT_EQ(IntValues(r.tuple_elements()[2]), (std::vector<int64_t>{7}));
}

TEST(ControlOps, CallPassesEveryOperand) {
  const std::string hlo = R"(
sum3 {
  x = s32[2] parameter(0)
  y = s32[2] parameter(1)
  z = s32[2] parameter(2)
  xy = s32[2] add(x, y)
  ROOT s = s32[2] add(xy, z)
}

ENTRY e {
  a = s32[2] constant({1, 2})
  b = s32[2] constant({10, 20})
  c = s32[2] constant({100, 200})
  ROOT r = s32[2] call(a, b, c), to_apply=sum3
})";
  EXPECT_EQ(IntValues(Eval(hlo)), (std::vector<int64_t>{111, 222}));
}

TEST(ControlOps, TuplesTokensAndIdentities) {
  const std::string hlo = R"(
ENTRY e {
  a = s32[2] constant({1, 2})
  b = f32[] constant(2.5)
  t = (s32[2], (f32[], s32[2])) tuple(a, (f32[], s32[2]) tuple(b, a))
  inner = (f32[], s32[2]) get-tuple-element(t), index=1
  x = f32[] get-tuple-element(inner), index=0
  tok = token[] after-all()
  d = s32[2] add-dependency(a, tok)
  o = (s32[2], f32[]) opt-barrier((s32[2], f32[]) tuple(d, x))
  ROOT r = (s32[2], f32[]) copy(o)
})";
  Literal r = Eval(hlo);
  EXPECT_EQ(IntValues(r.tuple_elements()[0]), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(r.tuple_elements()[1].GetDouble(0), 2.5);
}

TEST(ControlOps, AsyncAndCopyWrappers) {
  const std::string hlo = R"(
neg {
  x = f32[3] parameter(0)
  ROOT n = f32[3] negate(x)
}

ENTRY e {
  a = f32[3] constant({1, -2, 0.25})
  s = ((f32[3]), f32[3], s32[]) async-start(a), calls=neg
  u = ((f32[3]), f32[3], s32[]) async-update(s)
  d = f32[3] async-done(u)
  cs = (f32[3], f32[3], u32[]) copy-start(d)
  ROOT cd = f32[3] copy-done(cs)
})";
  EXPECT_EQ(Values(Eval(hlo)), (std::vector<double>{-1, 2, -0.25}));
}

constexpr char kAdd[] = R"(
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
)";

TEST(ControlOps, CollectivesOfASingleParticipant) {
  const std::string hlo = absl::StrCat(kAdd, R"(
ENTRY e {
  a = f32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  ar = f32[2,3] all-reduce(a), replica_groups={}, to_apply=add
  ag = f32[2,3] all-gather(ar), replica_groups={{0}}, dimensions={0}
  rs = f32[2,3] reduce-scatter(ag), replica_groups={{0}}, dimensions={1}, to_apply=add
  aa = f32[2,3] all-to-all(rs), replica_groups={{0}}, dimensions={1}
  cb = f32[2,3] collective-broadcast(aa), replica_groups={{0}}
  cp = f32[2,3] collective-permute(cb), source_target_pairs={{0,0}}
  ars = f32[2,3] all-reduce-start(cp), replica_groups={}, to_apply=add
  ard = f32[2,3] all-reduce-done(ars)
  ags = (f32[2,3], f32[2,3]) all-gather-start(ard), replica_groups={{0}}, dimensions={0}
  agd = f32[2,3] all-gather-done(ags)
  cps = (f32[2,3], f32[2,3], u32[], u32[]) collective-permute-start(agd),
    source_target_pairs={{0,0}}
  ROOT cpd = f32[2,3] collective-permute-done(cps)
})");
  EXPECT_EQ(Values(Eval(hlo)), (std::vector<double>{1, 2, 3, 4, 5, 6}));
}

TEST(ControlOps, CollectivePermuteWithoutASelfPairGivesZeros) {
  const std::string hlo = R"(
ENTRY e {
  a = s32[3] constant({7, 8, 9})
  ROOT cp = s32[3] collective-permute(a), source_target_pairs={{0,1},{1,0}}
})";
  EXPECT_EQ(IntValues(Eval(hlo)), (std::vector<int64_t>{0, 0, 0}));
}

TEST(ControlOps, ReplicaAndPartitionIdAreZero) {
  const std::string hlo = R"(
ENTRY e {
  r = u32[] replica-id()
  p = u32[] partition-id()
  ROOT t = (u32[], u32[]) tuple(r, p)
})";
  Literal r = Eval(hlo);
  EXPECT_EQ(r.tuple_elements()[0].shape().element_type(), PrimitiveType::U32);
  EXPECT_EQ(r.tuple_elements()[0].GetInt(0), 0);
  EXPECT_EQ(r.tuple_elements()[1].GetInt(0), 0);
}

TEST(ControlOps, MultiDeviceReplicaGroupsAreUnimplemented) {
  const std::string hlo = absl::StrCat(kAdd, R"(
ENTRY e {
  a = f32[2] constant({1, 2})
  ROOT ar = f32[2] all-reduce(a), replica_groups={{0,1}}, to_apply=add
})");
  absl::StatusOr<Literal> r = EvalText(hlo, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "all-reduce 'ar'")) << r.status();
}

TEST(ControlOps, CustomCallIsUnimplementedNamingTheTarget) {
  const std::string hlo = R"(
ENTRY e {
  a = f32[2] constant({1, 2})
  ROOT c = f32[2] custom-call(a), custom_call_target="MyKernel"
})";
  absl::StatusOr<Literal> r = EvalText(hlo, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "custom-call 'c'")) << r.status();
  EXPECT_TRUE(absl::StrContains(r.status().message(), "MyKernel")) << r.status();
}

TEST(ControlOps, AHostTransferWithoutTheHookIsRefusedNamingChannelAndRendezvous) {
  // import_async part 6 of the corpus: a device-to-host send.
  const std::string hlo = R"(
ENTRY e {
  p = s32[3,4] parameter(0)
  t = token[] after-all()
  s = (s32[3,4], u32[], token[]) send(p, t), channel_id=5, is_host_transfer=true, frontend_attributes={_xla_host_transfer_rendezvous="_p_dtoh_0"}
  ROOT d = token[] send-done(s), channel_id=5, is_host_transfer=true
})";
  std::vector<Literal> args;
  args.push_back(MakeLiteral(PrimitiveType::S32, {3, 4}, std::vector<double>(12, 1)));
  absl::StatusOr<Literal> r = EvalText(hlo, args);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(r.status().message(),
                                "instruction 's': a host send (channel 5, rendezvous \"_p_dtoh_0\")"))
      << r.status();
  EXPECT_TRUE(absl::StrContains(r.status().message(), "EvaluatorOptions::host_transfers"))
      << r.status();
}

// send x (s32[5]), recv y (f32[3]) with a token parameter, return (x, y):
// the send callback sees x, the result holds what the recv callback gave.
TEST(ControlOps, HostTransfersGoThroughTheHook) {
  const std::string hlo = R"(
ENTRY e {
  x = s32[5] parameter(0)
  tok = token[] parameter(1)
  s = (s32[5], u32[], token[]) send(x, tok), channel_id=2, is_host_transfer=true
  sd = token[] send-done(s), channel_id=2, is_host_transfer=true
  r = (f32[3], u32[], token[]) recv(sd), channel_id=3, is_host_transfer=true, frontend_attributes={_xla_host_transfer_rendezvous="y_htod"}
  rd = (f32[3], token[]) recv-done(r), channel_id=3, is_host_transfer=true
  y = f32[3] get-tuple-element(rd), index=0
  ROOT out = (s32[5], f32[3]) tuple(x, y)
})";
  std::vector<Literal> args;
  args.push_back(MakeIntLiteral(PrimitiveType::S32, {5}, {4, -7, 9, 11, 2}));
  args.push_back(Literal(Shape::Token()));
  std::vector<std::string> calls;
  HostTransferHook hook;
  hook.send = [&](int64_t channel, absl::string_view rendezvous, const Literal& data) {
    calls.push_back(absl::StrCat("send ", channel, " '", rendezvous, "' ",
                                 absl::StrJoin(IntValues(data), ",")));
    return absl::OkStatus();
  };
  hook.recv = [&](int64_t channel, absl::string_view rendezvous,
                  const Shape& shape) -> absl::StatusOr<Literal> {
    calls.push_back(absl::StrCat("recv ", channel, " '", rendezvous, "' ", shape.ToString(false)));
    return MakeLiteral(PrimitiveType::F32, {3}, {0.5, -1.25, 3});
  };
  EvaluatorOptions options;
  options.host_transfers = &hook;
  const Literal out = Eval(hlo, args, options);
  EXPECT_EQ(calls, (std::vector<std::string>{"send 2 '' 4,-7,9,11,2", "recv 3 'y_htod' f32[3]"}));
  EXPECT_EQ(IntValues(out.tuple_elements()[0]), (std::vector<int64_t>{4, -7, 9, 11, 2}));
  EXPECT_EQ(Values(out.tuple_elements()[1]), (std::vector<double>{0.5, -1.25, 3}));

  // A recv callback of the wrong shape fails naming the instruction.
  hook.recv = [](int64_t, absl::string_view, const Shape&) -> absl::StatusOr<Literal> {
    return MakeLiteral(PrimitiveType::F32, {4}, {1, 2, 3, 4});
  };
  absl::StatusOr<Literal> wrong = EvalText(hlo, args, options);
  ASSERT_FALSE(wrong.ok());
  EXPECT_TRUE(absl::StrContains(wrong.status().message(),
                                "instruction 'r' (channel 3): the recv callback returned f32[4], not "
                                "f32[3]"))
      << wrong.status();
}

TEST(ControlOpsTest, PassThroughCustomCallsKeepTheValue) {
  absl::StatusOr<Literal> r = evaluator_test::EvalText(R"(
ENTRY e {
  p = f32[3] parameter(0)
  s = f32[3] custom-call(p), custom_call_target="Sharding", sharding={replicated}
  h = f32[3] custom-call(s), custom_call_target="MoveToHost"
  ROOT d = f32[3] custom-call(h), custom_call_target="MoveToDevice"
})", {evaluator_test::MakeLiteral(PrimitiveType::F32, {3}, {1.5, -2, 7})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(evaluator_test::Values(*r), (std::vector<double>{1.5, -2, 7}));
  absl::StatusOr<Literal> other = evaluator_test::EvalText(R"(
ENTRY e {
  p = f32[3] parameter(0)
  ROOT c = f32[3] custom-call(p), custom_call_target="my_kernel"
})", {evaluator_test::MakeLiteral(PrimitiveType::F32, {3}, {1, 2, 3})});
  ASSERT_FALSE(other.ok());
  EXPECT_TRUE(absl::IsUnimplemented(other.status()));
}

TEST(ControlOpsTest, BuilderAcosCustomCall) {
  absl::StatusOr<Literal> r = EvalText(R"(
ENTRY e {
  p = f32[5] parameter(0)
  ROOT c = f32[5] custom-call(p), custom_call_target="xla_builder.math.Acos"
})", {MakeLiteral(PrimitiveType::F32, {5}, {-1, -0.5, 0, 1, 2})});
  ASSERT_TRUE(r.ok()) << r.status();
  const std::vector<double> v = Values(*r);
  EXPECT_FLOAT_EQ(v[0], 3.14159265f);
  EXPECT_FLOAT_EQ(v[1], 2.0943951f);
  EXPECT_FLOAT_EQ(v[2], 1.5707964f);
  EXPECT_EQ(v[3], 0);
  EXPECT_TRUE(std::isnan(v[4]));
}

}  // namespace
}  // namespace xla
