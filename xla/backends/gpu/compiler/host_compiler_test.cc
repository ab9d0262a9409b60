// End to end on the host target: HLO text -> artifact bytes -> load with the
// runtime -> execute on random inputs -> compare with the reference
// evaluator on the same inputs.
#include "xla/backends/gpu/compiler/host_compiler.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/aot/executable.h"
#include "xla/aot/literal_execution.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/backends/gpu/runtime/checksum.h"
#include "xla/stream_executor/host/cpu_features.h"
#include "xla/util/proto_util.h"

namespace xla::gpu {
namespace {

HostCompilerOptions Options() {
  HostCompilerOptions options;
  options.production_date = "2026-01-01T00:00:00Z";
  options.object.opt_level = 1;  // keep the test fast
  // Small blocks, so that every kernel here runs over several blocks.
  options.thunks.kernel.target_block_bytes = 256;
  return options;
}

// The result leaves of `literal`, depth-first.
void FlattenInto(const Literal& literal, std::vector<const Literal*>* out) {
  if (!literal.shape().IsTuple()) {
    out->push_back(&literal);
    return;
  }
  for (const Literal& e : literal.tuple_elements()) FlattenInto(e, out);
}

// Compiles, runs with random inputs (seed), and compares with the
// evaluator. Returns the parsed artifact for further checks.
GpuExecutableProto CompileRunAndCompare(absl::string_view hlo, uint64_t seed,
                                        const HostCompilerOptions& options = Options()) {
  absl::StatusOr<std::string> bytes = CompileHloToHostArtifact(hlo, options);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  if (!bytes.ok()) return {};
  GpuExecutableProto artifact;
  EXPECT_TRUE(artifact.ParseFromString(*bytes));

  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  EXPECT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::vector<Literal>> args = MakeRandomInputs(**module, seed);
  EXPECT_TRUE(args.ok()) << args.status();
  absl::StatusOr<Literal> expected = HloEvaluator().Evaluate(**module, *args);
  EXPECT_TRUE(expected.ok()) << expected.status();

  absl::StatusOr<std::unique_ptr<aot::Executable>> exe = aot::Executable::LoadFromBytes(*bytes);
  EXPECT_TRUE(exe.ok()) << exe.status();
  if (!exe.ok() || !expected.ok() || !args.ok()) return artifact;
  absl::StatusOr<std::vector<Literal>> actual =
      aot::ExecuteOnLiterals(**exe, testing::HostExecutor(), *args);
  EXPECT_TRUE(actual.ok()) << actual.status();
  if (!actual.ok()) return artifact;
  std::vector<const Literal*> leaves;
  FlattenInto(*expected, &leaves);
  EXPECT_EQ(leaves.size(), actual->size());
  for (size_t i = 0; i < leaves.size() && i < actual->size(); ++i) {
    absl::Status s = CompareLiterals(*leaves[i], (*actual)[i]);
    EXPECT_TRUE(s.ok()) << "leaf " << i << ": " << s;
  }
  return artifact;
}

int CountThunks(const google::protobuf::RepeatedPtrField<ThunkProto>& thunks,
                ThunkProto::KindCase kind) {
  int n = 0;
  for (const ThunkProto& t : thunks) {
    if (t.kind_case() == kind) ++n;
    if (t.has_sequential()) n += CountThunks(t.sequential().thunks(), kind);
    if (t.has_while_()) {
      n += CountThunks(t.while_().condition().thunks(), kind);
      n += CountThunks(t.while_().body().thunks(), kind);
    }
    if (t.has_conditional()) {
      for (const auto& b : t.conditional().branches()) n += CountThunks(b.thunks(), kind);
    }
  }
  return n;
}

constexpr char kElementwise[] = R"(
HloModule elementwise
ENTRY main {
  x = f32[37,129]{1,0} parameter(0)
  b = f32[129]{0} parameter(1)
  bb = f32[37,129]{1,0} broadcast(b), dimensions={1}
  s = f32[37,129]{1,0} add(x, bb)
  m = f32[37,129]{1,0} multiply(s, x)
  ROOT t = f32[37,129]{1,0} tanh(m)
}
)";

TEST(HostCompiler, ElementwiseChainWithBroadcast) {
  GpuExecutableProto a = CompileRunAndCompare(kElementwise, 1);
  EXPECT_GE(CountThunks(a.payload().thunks(), ThunkProto::kKernel), 1);
  EXPECT_FALSE(a.payload().host_shared_object().empty());
  EXPECT_EQ(a.header().target(), "host");
}

constexpr char kSoftmax[] = R"(
HloModule jit_softmax, entry_computation_layout={(f32[7,129]{1,0})->f32[7,129]{1,0}}

region_0.4 {
  Arg_0.5 = f32[] parameter(0)
  Arg_1.6 = f32[] parameter(1)
  ROOT maximum.7 = f32[] maximum(Arg_0.5, Arg_1.6)
}

region_1.15 {
  Arg_0.16 = f32[] parameter(0)
  Arg_1.17 = f32[] parameter(1)
  ROOT add.18 = f32[] add(Arg_0.16, Arg_1.17)
}

ENTRY main.26 {
  Arg_0.1 = f32[7,129]{1,0} parameter(0), sharding={replicated}
  constant.3 = f32[] constant(-inf)
  reduce.8 = f32[7]{0} reduce(Arg_0.1, constant.3), dimensions={1}, to_apply=region_0.4
  reshape.9 = f32[7,1]{1,0} reshape(reduce.8)
  broadcast.10 = f32[7,1]{1,0} broadcast(reshape.9), dimensions={0,1}
  reshape.11 = f32[7]{0} reshape(broadcast.10)
  broadcast.12 = f32[7,129]{1,0} broadcast(reshape.11), dimensions={0}
  subtract.13 = f32[7,129]{1,0} subtract(Arg_0.1, broadcast.12)
  exponential.14 = f32[7,129]{1,0} exponential(subtract.13)
  constant.2 = f32[] constant(0)
  reduce.19 = f32[7]{0} reduce(exponential.14, constant.2), dimensions={1}, to_apply=region_1.15
  reshape.20 = f32[7,1]{1,0} reshape(reduce.19)
  broadcast.21 = f32[7,1]{1,0} broadcast(reshape.20), dimensions={0,1}
  reshape.22 = f32[7]{0} reshape(broadcast.21)
  broadcast.23 = f32[7,129]{1,0} broadcast(reshape.22), dimensions={0}
  ROOT divide.24 = f32[7,129]{1,0} divide(exponential.14, broadcast.23)
}
)";

TEST(HostCompiler, Softmax) {
  GpuExecutableProto a = CompileRunAndCompare(kSoftmax, 2);
  EXPECT_GE(CountThunks(a.payload().thunks(), ThunkProto::kKernel), 1);
}

constexpr char kDotBiasTanh[] = R"(
HloModule dense
ENTRY main {
  x = f32[5,7]{1,0} parameter(0)
  w = f32[7,3]{1,0} parameter(1)
  b = f32[3]{0} parameter(2)
  d = f32[5,3]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[5,3]{1,0} broadcast(b), dimensions={1}
  s = f32[5,3]{1,0} add(d, bb)
  ROOT t = f32[5,3]{1,0} tanh(s)
}
)";

TEST(HostCompiler, DotBiasTanh) {
  GpuExecutableProto a = CompileRunAndCompare(kDotBiasTanh, 3);
  EXPECT_EQ(CountThunks(a.payload().thunks(), ThunkProto::kGemm), 1);
  EXPECT_GE(CountThunks(a.payload().thunks(), ThunkProto::kKernel), 1);
}

constexpr char kReduction[] = R"(
HloModule reduction
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[13,37,5]{2,1,0} parameter(0)
  z = f32[] constant(0)
  r1 = f32[13,5]{1,0} reduce(x, z), dimensions={1}, to_apply=add
  r2 = f32[] reduce(x, z), dimensions={0,1,2}, to_apply=add
  ROOT t = (f32[13,5]{1,0}, f32[]) tuple(r1, r2)
}
)";

TEST(HostCompiler, Reductions) {
  GpuExecutableProto a = CompileRunAndCompare(kReduction, 4);
  EXPECT_EQ(a.payload().outputs_size(), 2);
}

constexpr char kWhile[] = R"(
HloModule loop
cond {
  p = (s32[], f32[9,11]{1,0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[9,11]{1,0}) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  v = f32[9,11]{1,0} get-tuple-element(p), index=1
  h = f32[] constant(0.5)
  hb = f32[9,11]{1,0} broadcast(h), dimensions={}
  v1 = f32[9,11]{1,0} multiply(v, hb)
  c = f32[9,11]{1,0} cosine(v)
  v2 = f32[9,11]{1,0} add(v1, c)
  ROOT t = (s32[], f32[9,11]{1,0}) tuple(i1, v2)
}
ENTRY main {
  x = f32[9,11]{1,0} parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[9,11]{1,0}) tuple(zero, x)
  w = (s32[], f32[9,11]{1,0}) while(init), condition=cond, body=body
  ROOT r = f32[9,11]{1,0} get-tuple-element(w), index=1
}
)";

TEST(HostCompiler, WhileLoopWithCounter) {
  GpuExecutableProto a = CompileRunAndCompare(kWhile, 5);
  ASSERT_EQ(CountThunks(a.payload().thunks(), ThunkProto::kWhile), 1);
  for (const ThunkProto& t : a.payload().thunks()) {
    if (!t.has_while_()) continue;
    EXPECT_EQ(t.while_().known_trip_count(), 5) << t.DebugString();
    EXPECT_GE(t.while_().body().thunks_size(), 1);
  }
}

// Loop-carried buffers written in place (copy_insertion.h, in_place.h):
// each program below is checked against the evaluator on three seeds, with
// kernels of several blocks (Options()), so a wrong aliasing (a block
// reading bytes another block or an earlier kernel already overwrote) shows
// as wrong values. Odd sizes throughout.

// Bytes copied by copy thunks inside while bodies (nested ones included),
// per iteration of each body.
int64_t BodyCopyBytes(const google::protobuf::RepeatedPtrField<ThunkProto>& thunks, bool in_body) {
  int64_t bytes = 0;
  for (const ThunkProto& t : thunks) {
    if (t.has_copy() && in_body) bytes += t.copy().destination().size();
    if (t.has_sequential()) bytes += BodyCopyBytes(t.sequential().thunks(), in_body);
    if (t.has_while_()) {
      bytes += BodyCopyBytes(t.while_().condition().thunks(), true);
      bytes += BodyCopyBytes(t.while_().body().thunks(), true);
    }
    if (t.has_conditional()) {
      for (const auto& b : t.conditional().branches()) bytes += BodyCopyBytes(b.thunks(), in_body);
    }
  }
  return bytes;
}

int64_t BodyCopyBytes(const GpuExecutableProto& a) {
  return BodyCopyBytes(a.payload().thunks(), false);
}

// A scan: h = sin(h + x[i]) is carried and stacked into ys[i] (the LSTM
// pattern). Both leaves are written in place: no copy in the body. (Not
// tanh: the host kernel's tanh is off by up to 4e-5 relative near 0,
// beyond CompareLiterals' tolerance.)
constexpr char kStackScan[] = R"(
HloModule scan
cond {
  p = (s32[], f32[3,5], f32[7,3,5], f32[7,3,5]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(7)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[3,5], f32[7,3,5], f32[7,3,5]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  h = f32[3,5] get-tuple-element(p), index=1
  ys = f32[7,3,5] get-tuple-element(p), index=2
  xs = f32[7,3,5] get-tuple-element(p), index=3
  z = s32[] constant(0)
  x = f32[1,3,5] dynamic-slice(xs, i, z, z), dynamic_slice_sizes={1,3,5}
  xr = f32[3,5] reshape(x)
  a = f32[3,5] add(h, xr)
  h2 = f32[3,5] sine(a)
  u = f32[1,3,5] reshape(h2)
  ys2 = f32[7,3,5] dynamic-update-slice(ys, u, i, z, z)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], f32[3,5], f32[7,3,5], f32[7,3,5]) tuple(i2, h2, ys2, xs)
}
ENTRY main {
  h0 = f32[3,5] parameter(0)
  xs = f32[7,3,5] parameter(1)
  zero = f32[] constant(0)
  ys0 = f32[7,3,5] broadcast(zero), dimensions={}
  z = s32[] constant(0)
  init = (s32[], f32[3,5], f32[7,3,5], f32[7,3,5]) tuple(z, h0, ys0, xs)
  w = (s32[], f32[3,5], f32[7,3,5], f32[7,3,5]) while(init), condition=cond, body=body
  ys = f32[7,3,5] get-tuple-element(w), index=2
  h = f32[3,5] get-tuple-element(w), index=1
  ROOT r = (f32[7,3,5], f32[3,5]) tuple(ys, h)
}
)";

TEST(HostCompiler, ScanStacksIntoItsLoopBufferInPlace) {
  for (uint64_t seed : {1, 2, 3}) {
    GpuExecutableProto a = CompileRunAndCompare(kStackScan, seed);
    EXPECT_EQ(BodyCopyBytes(a), 0);
  }
}

// The old stacked array is read after the update by an element-wise sum of
// old and new: the update cannot overwrite it, so it is copied.
constexpr char kOldReadAfterUpdate[] = R"(
HloModule old_after_new
cond {
  p = (s32[], f32[5,3], f32[5,3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[5,3], f32[5,3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  ys = f32[5,3] get-tuple-element(p), index=1
  acc = f32[5,3] get-tuple-element(p), index=2
  z = s32[] constant(0)
  r = f32[1,3] slice(acc), slice={[1:2], [0:3]}
  e = f32[1,3] exponential(r)
  ys2 = f32[5,3] dynamic-update-slice(ys, e, i, z)
  both = f32[5,3] add(ys, ys2)
  acc2 = f32[5,3] multiply(both, acc)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], f32[5,3], f32[5,3]) tuple(i2, ys2, acc2)
}
ENTRY main {
  ys = f32[5,3] parameter(0)
  acc = f32[5,3] parameter(1)
  z = s32[] constant(0)
  init = (s32[], f32[5,3], f32[5,3]) tuple(z, ys, acc)
  ROOT w = (s32[], f32[5,3], f32[5,3]) while(init), condition=cond, body=body
}
)";

TEST(HostCompiler, OldValueReadAfterTheUpdateIsKept) {
  for (uint64_t seed : {4, 5, 6}) CompileRunAndCompare(kOldReadAfterUpdate, seed);
}

// One updated array returned at two leaves: one of them must be a copy.
constexpr char kOneValueTwoLeaves[] = R"(
HloModule two_leaves
cond {
  p = (s32[], f32[9,7], f32[9,7]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[9,7], f32[9,7]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  a = f32[9,7] get-tuple-element(p), index=1
  b = f32[9,7] get-tuple-element(p), index=2
  z = s32[] constant(0)
  r = f32[2,7] slice(b), slice={[3:5], [0:7]}
  s = f32[2,7] sine(r)
  a2 = f32[9,7] dynamic-update-slice(a, s, i, z)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], f32[9,7], f32[9,7]) tuple(i2, a2, a2)
}
ENTRY main {
  a = f32[9,7] parameter(0)
  b = f32[9,7] parameter(1)
  z = s32[] constant(0)
  init = (s32[], f32[9,7], f32[9,7]) tuple(z, a, b)
  ROOT w = (s32[], f32[9,7], f32[9,7]) while(init), condition=cond, body=body
}
)";

TEST(HostCompiler, OneValueReturnedAtTwoLoopLeaves) {
  for (uint64_t seed : {7, 8, 9}) CompileRunAndCompare(kOneValueTwoLeaves, seed);
}

// Nested scans: the inner loop fills a row of 5 one element at a time from
// the outer loop's carried state; the outer loop stacks the rows.
constexpr char kNestedScans[] = R"(
HloModule nested
icond {
  p = (s32[], f32[5], f32[3]) parameter(0)
  j = s32[] get-tuple-element(p), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(j, n), direction=LT
}
ibody {
  p = (s32[], f32[5], f32[3]) parameter(0)
  j = s32[] get-tuple-element(p), index=0
  row = f32[5] get-tuple-element(p), index=1
  c = f32[3] get-tuple-element(p), index=2
  c2 = f32[3] cosine(c)
  e = f32[1] slice(c2), slice={[2:3]}
  row2 = f32[5] dynamic-update-slice(row, e, j)
  one = s32[] constant(1)
  j2 = s32[] add(j, one)
  ROOT t = (s32[], f32[5], f32[3]) tuple(j2, row2, c2)
}
ocond {
  p = (s32[], f32[3], f32[7,5]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(7)
  ROOT lt = pred[] compare(i, n), direction=LT
}
obody {
  p = (s32[], f32[3], f32[7,5]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  c = f32[3] get-tuple-element(p), index=1
  ys = f32[7,5] get-tuple-element(p), index=2
  z = s32[] constant(0)
  zf = f32[] constant(0)
  row0 = f32[5] broadcast(zf), dimensions={}
  init = (s32[], f32[5], f32[3]) tuple(z, row0, c)
  w = (s32[], f32[5], f32[3]) while(init), condition=icond, body=ibody
  row = f32[5] get-tuple-element(w), index=1
  c2 = f32[3] get-tuple-element(w), index=2
  u = f32[1,5] reshape(row)
  ys2 = f32[7,5] dynamic-update-slice(ys, u, i, z)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], f32[3], f32[7,5]) tuple(i2, c2, ys2)
}
ENTRY main {
  c = f32[3] parameter(0)
  ys = f32[7,5] parameter(1)
  z = s32[] constant(0)
  init = (s32[], f32[3], f32[7,5]) tuple(z, c, ys)
  ROOT w = (s32[], f32[3], f32[7,5]) while(init), condition=ocond, body=obody
}
)";

TEST(HostCompiler, NestedScansStackInPlace) {
  for (uint64_t seed : {10, 11, 12}) CompileRunAndCompare(kNestedScans, seed);
}

// The update is computed from the array it updates (the previous row,
// negated, into row i): the fused dynamic-update-slice reads its own
// operand, so it may not write over it.
constexpr char kUpdateReadsItsArray[] = R"(
HloModule self_update
cond {
  p = (s32[], f32[11,13]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(11)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[11,13]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  a = f32[11,13] get-tuple-element(p), index=1
  z = s32[] constant(0)
  one = s32[] constant(1)
  k = s32[] subtract(i, one)
  prev = f32[1,13] dynamic-slice(a, k, z), dynamic_slice_sizes={1,13}
  np = f32[1,13] negate(prev)
  a2 = f32[11,13] dynamic-update-slice(a, np, i, z)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], f32[11,13]) tuple(i2, a2)
}
ENTRY main {
  a = f32[11,13] parameter(0)
  one = s32[] constant(1)
  init = (s32[], f32[11,13]) tuple(one, a)
  ROOT w = (s32[], f32[11,13]) while(init), condition=cond, body=body
}
)";

TEST(HostCompiler, UpdateReadingTheArrayItUpdates) {
  for (uint64_t seed : {13, 14, 15}) CompileRunAndCompare(kUpdateReadsItsArray, seed);
}

// A conditional in the body chooses the update (even steps write x[i], odd
// steps -x[i]) and returns the updated array to the loop.
constexpr char kConditionalInBody[] = R"(
HloModule cond_in_body
even {
  p = (f32[7,3], f32[1,3], s32[]) parameter(0)
  a = f32[7,3] get-tuple-element(p), index=0
  u = f32[1,3] get-tuple-element(p), index=1
  i = s32[] get-tuple-element(p), index=2
  z = s32[] constant(0)
  ROOT d = f32[7,3] dynamic-update-slice(a, u, i, z)
}
odd {
  p = (f32[7,3], f32[1,3], s32[]) parameter(0)
  a = f32[7,3] get-tuple-element(p), index=0
  u = f32[1,3] get-tuple-element(p), index=1
  i = s32[] get-tuple-element(p), index=2
  n = f32[1,3] negate(u)
  z = s32[] constant(0)
  ROOT d = f32[7,3] dynamic-update-slice(a, n, i, z)
}
cond {
  p = (s32[], f32[7,3], f32[7,3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(7)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[7,3], f32[7,3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  a = f32[7,3] get-tuple-element(p), index=1
  xs = f32[7,3] get-tuple-element(p), index=2
  z = s32[] constant(0)
  x = f32[1,3] dynamic-slice(xs, i, z), dynamic_slice_sizes={1,3}
  two = s32[] constant(2)
  r = s32[] remainder(i, two)
  ops = (f32[7,3], f32[1,3], s32[]) tuple(a, x, i)
  a2 = f32[7,3] conditional(r, ops, ops), branch_computations={even, odd}
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], f32[7,3], f32[7,3]) tuple(i2, a2, xs)
}
ENTRY main {
  a = f32[7,3] parameter(0)
  xs = f32[7,3] parameter(1)
  z = s32[] constant(0)
  init = (s32[], f32[7,3], f32[7,3]) tuple(z, a, xs)
  ROOT w = (s32[], f32[7,3], f32[7,3]) while(init), condition=cond, body=body
}
)";

TEST(HostCompiler, ConditionalInTheBodyUpdatesTheLoopArray) {
  for (uint64_t seed : {16, 17, 18}) CompileRunAndCompare(kConditionalInBody, seed);
}

// A KV-cache decode step: the new row goes into the cache at `pos`, then
// the whole updated cache is read (scores against q). The cache is written
// in place; only the carried state's small leaves may be copied.
constexpr char kCacheDecode[] = R"(
HloModule decode
addf {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
cond {
  p = (s32[], f32[9], f32[19,9], f32[19]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(6)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[9], f32[19,9], f32[19]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  q = f32[9] get-tuple-element(p), index=1
  cache = f32[19,9] get-tuple-element(p), index=2
  s = f32[19] get-tuple-element(p), index=3
  k = f32[9] sine(q)
  kr = f32[1,9] reshape(k)
  three = s32[] constant(3)
  pos = s32[] add(i, three)
  z = s32[] constant(0)
  cache2 = f32[19,9] dynamic-update-slice(cache, kr, pos, z)
  qb = f32[19,9] broadcast(q), dimensions={1}
  m = f32[19,9] multiply(cache2, qb)
  zf = f32[] constant(0)
  sc = f32[19] reduce(m, zf), dimensions={1}, to_apply=addf
  s2 = f32[19] add(s, sc)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], f32[9], f32[19,9], f32[19]) tuple(i2, k, cache2, s2)
}
ENTRY main {
  q = f32[9] parameter(0)
  cache = f32[19,9] parameter(1)
  s = f32[19] parameter(2)
  z = s32[] constant(0)
  init = (s32[], f32[9], f32[19,9], f32[19]) tuple(z, q, cache, s)
  ROOT w = (s32[], f32[9], f32[19,9], f32[19]) while(init), condition=cond, body=body
}
)";

TEST(HostCompiler, CacheUpdatedInPlaceThenRead) {
  for (uint64_t seed : {19, 20, 21}) {
    GpuExecutableProto a = CompileRunAndCompare(kCacheDecode, seed);
    EXPECT_LT(BodyCopyBytes(a), 19 * 9 * 4);  // never the cache
  }
}

constexpr char kConditional[] = R"(
HloModule branches
neg {
  p = f32[6,10]{1,0} parameter(0)
  ROOT n = f32[6,10]{1,0} negate(p)
}
exp {
  p = f32[6,10]{1,0} parameter(0)
  ROOT e = f32[6,10]{1,0} exponential(p)
}
ENTRY main {
  x = f32[6,10]{1,0} parameter(0)
  y = f32[6,10]{1,0} parameter(1)
  c = pred[] compare(f32[] constant(0), f32[] constant(1)), direction=LT
  s = f32[] reduce(x, f32[] constant(0)), dimensions={0,1}, to_apply=addf
  k = pred[] compare(s, f32[] constant(0)), direction=GT
  ROOT r = f32[6,10]{1,0} conditional(k, x, y), true_computation=neg, false_computation=exp
}
addf {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

TEST(HostCompiler, ConditionalOnAComputedPredicate) {
  // Several seeds, so that both branches are taken.
  for (uint64_t seed : {6, 7, 8, 9}) {
    GpuExecutableProto a = CompileRunAndCompare(kConditional, seed);
    EXPECT_EQ(CountThunks(a.payload().thunks(), ThunkProto::kConditional), 1);
  }
}

constexpr char kColumnMajorResult[] = R"(
HloModule layouts, entry_computation_layout={(f32[19,33]{0,1}, f32[19,33]{1,0})->f32[19,33]{0,1}}
ENTRY main {
  x = f32[19,33]{0,1} parameter(0)
  y = f32[19,33]{1,0} parameter(1)
  s = f32[19,33]{1,0} sine(x)
  ROOT e = f32[19,33]{0,1} add(s, y)
}
)";

// A column-major parameter and result: ExecuteOnLiterals moves the
// row-major Literals into and out of those layouts, so the logical values
// must match sin(x) + y element for element.
TEST(HostCompiler, ColumnMajorResult) {
  absl::StatusOr<std::string> bytes = CompileHloToHostArtifact(kColumnMajorResult, Options());
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto exe = aot::Executable::LoadFromBytes(*bytes);
  ASSERT_TRUE(exe.ok()) << exe.status();
  auto module = ParseHloModule(kColumnMajorResult);
  ASSERT_TRUE(module.ok());
  auto args = MakeRandomInputs(**module, 10);
  ASSERT_TRUE(args.ok());
  auto actual = aot::ExecuteOnLiterals(**exe, testing::HostExecutor(), *args);
  ASSERT_TRUE(actual.ok()) << actual.status();
  ASSERT_EQ(actual->size(), 1u);
  int64_t wrong = 0;
  for (int64_t i = 0; i < 19; ++i) {
    for (int64_t j = 0; j < 33; ++j) {
      const double want = static_cast<float>(std::sin(static_cast<float>((*args)[0].GetDouble(i * 33 + j)))) +
                          (*args)[1].GetDouble(i * 33 + j);
      const double got = (*actual)[0].GetDouble(i * 33 + j);
      if (std::abs(want - got) > 1e-5 * (1 + std::abs(want))) {
        if (++wrong <= 5) ADD_FAILURE() << "[" << i << "," << j << "] want " << want << " got " << got;
      }
    }
  }
  EXPECT_EQ(wrong, 0);
}

// A custom call to a built-in FFI handler (the evaluator cannot run it, so
// the expected values are computed here).
TEST(HostCompiler, CustomCallToAnFfiHandler) {
  constexpr char kHlo[] = R"(
HloModule ffi
ENTRY main {
  x = f32[33]{0} parameter(0)
  y = f32[33]{0} parameter(1)
  e = f32[33]{0} exponential(x)
  ROOT c = f32[33]{0} custom-call(e, y), custom_call_target="xla.host.add_f32"
}
)";
  absl::StatusOr<std::string> bytes = CompileHloToHostArtifact(kHlo, Options());
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto exe = aot::Executable::LoadFromBytes(*bytes);
  ASSERT_TRUE(exe.ok()) << exe.status();
  auto module = ParseHloModule(kHlo);
  ASSERT_TRUE(module.ok());
  auto args = MakeRandomInputs(**module, 11);
  ASSERT_TRUE(args.ok());
  auto actual = aot::ExecuteOnLiterals(**exe, testing::HostExecutor(), *args);
  ASSERT_TRUE(actual.ok()) << actual.status();
  ASSERT_EQ(actual->size(), 1u);
  for (int64_t i = 0; i < 33; ++i) {
    const float want = std::exp(static_cast<float>((*args)[0].GetDouble(i))) +
                       static_cast<float>((*args)[1].GetDouble(i));
    EXPECT_NEAR((*actual)[0].GetDouble(i), want, 1e-5 * (1 + std::abs(want))) << i;
  }
}

TEST(HostCompiler, CompilingTwiceGivesTheSameBytes) {
  absl::StatusOr<std::string> a = CompileHloToHostArtifact(kSoftmax, Options());
  absl::StatusOr<std::string> b = CompileHloToHostArtifact(kSoftmax, Options());
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(*a, *b);
  // With the production date left to the clock, only the header may differ.
  HostCompilerOptions clock = Options();
  clock.production_date.reset();
  absl::StatusOr<GpuExecutableProto> c = CompileHloToHostArtifactProto(kSoftmax, clock);
  ASSERT_TRUE(c.ok()) << c.status();
  GpuExecutableProto parsed;
  ASSERT_TRUE(parsed.ParseFromString(*a));
  EXPECT_EQ(c->payload().SerializeAsString(), parsed.payload().SerializeAsString());
  EXPECT_EQ(c->header().payload_checksum(), parsed.header().payload_checksum());
  EXPECT_FALSE(c->header().production_date().empty());
}

// Softmax plus a non-scalar constant, one kernel per op: several kernels,
// and a constant array some kernels read.
constexpr char kManyKernels[] = R"(
HloModule many_kernels
max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[7,131]{1,0} parameter(0)
  ninf = f32[] constant(-inf)
  mx = f32[7]{0} reduce(x, ninf), dimensions={1}, to_apply=max_f32
  bm = f32[7,131]{1,0} broadcast(mx), dimensions={0}
  sub = f32[7,131]{1,0} subtract(x, bm)
  e = f32[7,131]{1,0} exponential(sub)
  zero = f32[] constant(0)
  sum = f32[7]{0} reduce(e, zero), dimensions={1}, to_apply=add_f32
  bs = f32[7,131]{1,0} broadcast(sum), dimensions={0}
  w = f32[7]{0} constant({0.5, -1.25, 2, 3.5, -0.75, 1, 4.25})
  bw = f32[7,131]{1,0} broadcast(w), dimensions={0}
  d = f32[7,131]{1,0} divide(e, bs)
  ROOT r = f32[7,131]{1,0} multiply(d, bw)
}
)";

// The same softmax-and-scale block on three inputs of one shape and one of
// another: the three share their kernels, the odd one has its own, and
// every result matches the evaluator.
constexpr char kRepeatedBlocks[] = R"(
HloModule repeated_blocks
max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
add_again {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT t = f32[] add(p, q)
}
ENTRY main {
  x = f32[9,131]{1,0} parameter(0)
  y = f32[9,131]{1,0} parameter(1)
  z = f32[9,131]{1,0} parameter(2)
  w = f32[5,33]{1,0} parameter(3)
  ninf = f32[] constant(-inf)
  zero = f32[] constant(0)
  mx = f32[9]{0} reduce(x, ninf), dimensions={1}, to_apply=max_f32
  ex = f32[9,131]{1,0} exponential(x)
  sx = f32[9]{0} reduce(ex, zero), dimensions={1}, to_apply=add_f32
  bx = f32[9,131]{1,0} broadcast(sx), dimensions={0}
  bmx = f32[9,131]{1,0} broadcast(mx), dimensions={0}
  dx = f32[9,131]{1,0} divide(ex, bx)
  rx = f32[9,131]{1,0} multiply(dx, bmx)
  my = f32[9]{0} reduce(y, ninf), dimensions={1}, to_apply=max_f32
  ey = f32[9,131]{1,0} exponential(y)
  sy = f32[9]{0} reduce(ey, zero), dimensions={1}, to_apply=add_again
  by = f32[9,131]{1,0} broadcast(sy), dimensions={0}
  bmy = f32[9,131]{1,0} broadcast(my), dimensions={0}
  dy = f32[9,131]{1,0} divide(ey, by)
  ry = f32[9,131]{1,0} multiply(dy, bmy)
  mz = f32[9]{0} reduce(z, ninf), dimensions={1}, to_apply=max_f32
  ez = f32[9,131]{1,0} exponential(z)
  sz = f32[9]{0} reduce(ez, zero), dimensions={1}, to_apply=add_f32
  bz = f32[9,131]{1,0} broadcast(sz), dimensions={0}
  bmz = f32[9,131]{1,0} broadcast(mz), dimensions={0}
  dz = f32[9,131]{1,0} divide(ez, bz)
  rz = f32[9,131]{1,0} multiply(dz, bmz)
  mw = f32[5]{0} reduce(w, ninf), dimensions={1}, to_apply=max_f32
  ew = f32[5,33]{1,0} exponential(w)
  sw = f32[5]{0} reduce(ew, zero), dimensions={1}, to_apply=add_f32
  bw = f32[5,33]{1,0} broadcast(sw), dimensions={0}
  bmw = f32[5,33]{1,0} broadcast(mw), dimensions={0}
  dw = f32[5,33]{1,0} divide(ew, bw)
  rw = f32[5,33]{1,0} multiply(dw, bmw)
  ROOT t = (f32[9,131]{1,0}, f32[9,131]{1,0}, f32[9,131]{1,0}, f32[5,33]{1,0}) tuple(rx, ry, rz, rw)
}
)";

TEST(HostCompiler, RepeatedFusionsShareOneKernel) {
  const GpuExecutableProto shared = CompileRunAndCompare(kRepeatedBlocks, 31);
  const int kernel_thunks = CountThunks(shared.payload().thunks(), ThunkProto::kKernel);
  const int kernels = shared.payload().kernels_size();
  // Every block has the same number of kernel thunks; the three blocks of
  // one shape share, the fourth does not.
  ASSERT_EQ(kernel_thunks % 4, 0) << kernel_thunks;
  EXPECT_EQ(kernels, 2 * (kernel_thunks / 4)) << kernels << " kernels, " << kernel_thunks << " thunks";

  HostCompilerOptions no_reuse = Options();
  no_reuse.thunks.reuse_kernels = false;
  const GpuExecutableProto separate = CompileRunAndCompare(kRepeatedBlocks, 31, no_reuse);
  EXPECT_EQ(separate.payload().kernels_size(), kernel_thunks);
  EXPECT_EQ(CountThunks(separate.payload().thunks(), ThunkProto::kKernel), kernel_thunks);
}

HostCompilerOptions ManyKernelOptions(int threads) {
  HostCompilerOptions options = Options();
  options.middle_end.fusion = false;
  options.object.parts = 3;
  options.object.threads = threads;
  return options;
}

TEST(HostCompiler, PartsCompiledOnOneOrThreeThreadsGiveTheSameBytesAndResults) {
  absl::StatusOr<std::string> one = CompileHloToHostArtifact(kManyKernels, ManyKernelOptions(1));
  absl::StatusOr<std::string> three =
      CompileHloToHostArtifact(kManyKernels, ManyKernelOptions(3));
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_TRUE(three.ok()) << three.status();
  EXPECT_TRUE(*one == *three) << "artifact bytes depend on the thread count";
  GpuExecutableProto a = CompileRunAndCompare(kManyKernels, 11, ManyKernelOptions(3));
  EXPECT_GE(a.payload().kernels_size(), 5);
  // The same module as one part is a different (equally correct) object.
  HostCompilerOptions single = ManyKernelOptions(3);
  single.object.parts = 1;
  GpuExecutableProto b = CompileRunAndCompare(kManyKernels, 11, single);
  EXPECT_EQ(a.payload().kernels_size(), b.payload().kernels_size());
}

TEST(HostCompiler, ProgressSeesEveryPhaseInOrderAndEveryKernel) {
  HostCompilerOptions options = ManyKernelOptions(2);
  options.progress_interval = absl::ZeroDuration();
  options.progress_fraction = 0;
  std::vector<CompileProgressEvent> events;
  options.progress = [&events](const CompileProgressEvent& e) { events.push_back(e); };
  absl::StatusOr<GpuExecutableProto> artifact =
      CompileHloToHostArtifactProto(kManyKernels, options);
  ASSERT_TRUE(artifact.ok()) << artifact.status();
  std::vector<std::string> phases;
  int passes = 0;
  int64_t last_done = 0, total = -1;
  for (const CompileProgressEvent& e : events) {
    switch (e.kind) {
      case CompileProgressEvent::Kind::kPhase:
        phases.push_back(e.phase);
        break;
      case CompileProgressEvent::Kind::kPass:
        EXPECT_EQ(e.phase, "middle_end") << e.pass;
        ++passes;
        break;
      case CompileProgressEvent::Kind::kKernels:
        EXPECT_EQ(e.phase, "kernel_compilation");
        EXPECT_GT(e.done, last_done);
        last_done = e.done;
        total = e.total;
        break;
    }
  }
  EXPECT_EQ(phases, (std::vector<std::string>{"middle_end", "thunk_emission",
                                              "kernel_compilation", "finalize"}));
  EXPECT_GT(passes, 5);
  EXPECT_GE(total, artifact->payload().kernels_size());
  EXPECT_EQ(last_done, total);
}

// Kernels built for an extension this machine lacks are refused when the
// executable is first run, naming the extension, instead of dying of
// SIGILL; the artifact still loads (it can be inspected anywhere). No CPU
// has both sapphirerapids' AVX512-FP16 and znver3's SSE4a, so every x86-64
// machine lacks one of the two. The default CPU's artifact records the
// x86-64-v2 extensions and runs.
TEST(HostCompiler, KernelsForAnotherCpuAreRefusedBeforeTheyRun) {
  const std::set<std::string>& machine = stream_executor::host::MachineCpuFeatures();
  if (machine.empty()) GTEST_SKIP() << "not an x86-64 build";
  HostCompilerOptions options = Options();
  std::string missing;
  for (const char* cpu : {"sapphirerapids", "znver3"}) {
    options.object.cpu = cpu;
    absl::StatusOr<std::vector<std::string>> features = HostCpuFeaturesOf(options.object);
    ASSERT_TRUE(features.ok()) << features.status();
    for (const std::string& f : *features) {
      if (machine.count(f) == 0) missing = f;
    }
    if (!missing.empty()) break;
  }
  ASSERT_FALSE(missing.empty()) << "this machine has every feature of both CPUs";
  absl::StatusOr<std::string> bytes = CompileHloToHostArtifact(kElementwise, options);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto exe = aot::Executable::LoadFromBytes(*bytes);
  ASSERT_TRUE(exe.ok()) << exe.status();
  auto module = ParseHloModule(kElementwise);
  ASSERT_TRUE(module.ok());
  auto args = MakeRandomInputs(**module, 3);
  ASSERT_TRUE(args.ok());
  auto refused = aot::ExecuteOnLiterals(**exe, testing::HostExecutor(), *args);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition) << refused.status();
  EXPECT_TRUE(absl::StrContains(refused.status().message(), "CPU feature '" + missing + "'"))
      << refused.status();

  GpuExecutableProto portable = CompileRunAndCompare(kElementwise, 3);
  const std::vector<std::string> v2(portable.header().host_cpu_features().begin(),
                                    portable.header().host_cpu_features().end());
  EXPECT_EQ(v2, (std::vector<std::string>{"sse3", "ssse3", "cx16", "sse4.1", "sse4.2", "popcnt",
                                          "sahf"}));
}

// Builds for wider CPUs: stored widest first (a CPU that adds nothing to
// the baseline's is skipped), the runtime runs one, and every build this
// machine can run gives the baseline's bits (softmax: exp, row reductions,
// division) and matches the evaluator.
// Runs `artifact` on `args` with build `v` of its host code (-1: the
// baseline) as its only host code.
std::vector<Literal> RunOneBuild(const GpuExecutableProto& artifact, int v,
                                 const std::vector<Literal>& args) {
  GpuExecutableProto one = artifact;
  if (v >= 0) {
    one.mutable_payload()->set_host_shared_object(
        artifact.payload().host_object_variants(v).shared_object());
  }
  one.mutable_payload()->clear_host_object_variants();
  SealArtifact(&one);
  auto exe = aot::Executable::LoadFromBytes(SerializeDeterministically(one));
  EXPECT_TRUE(exe.ok()) << exe.status();
  if (!exe.ok()) return {};
  auto out = aot::ExecuteOnLiterals(**exe, testing::HostExecutor(), args);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *std::move(out) : std::vector<Literal>{};
}

// With a wider variant stored, the baseline is built at fallback_opt_level
// and the variant at object.opt_level; the baseline's bits are the same at
// either level.
TEST(HostCompiler, FallbackOptLevelAppliesToTheBaselineOnly) {
  HostCompilerOptions o3 = Options();
  o3.object.opt_level = 3;
  o3.cpu_variants = {"x86-64-v3"};
  HostCompilerOptions o1 = o3;
  o1.fallback_opt_level = 1;
  const GpuExecutableProto cheap = CompileRunAndCompare(kRepeatedBlocks, 17, o1);
  const GpuExecutableProto full = CompileRunAndCompare(kRepeatedBlocks, 17, o3);
  ASSERT_EQ(cheap.payload().host_object_variants_size(), 1);
  ASSERT_EQ(full.payload().host_object_variants_size(), 1);
  EXPECT_EQ(cheap.payload().host_object_variants(0).shared_object(),
            full.payload().host_object_variants(0).shared_object());
  EXPECT_NE(cheap.payload().host_shared_object(), full.payload().host_shared_object());

  auto module = ParseHloModule(kRepeatedBlocks);
  ASSERT_TRUE(module.ok());
  auto args = MakeRandomInputs(**module, 17);
  ASSERT_TRUE(args.ok());
  const std::vector<Literal> a = RunOneBuild(cheap, -1, *args);
  const std::vector<Literal> b = RunOneBuild(full, -1, *args);
  ASSERT_EQ(a.size(), 4u);
  ASSERT_EQ(b.size(), 4u);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].data(), b[i].data()) << "leaf " << i;

  // Without variants the level is unused: the baseline is built at
  // object.opt_level.
  HostCompilerOptions alone = o1;
  alone.cpu_variants.clear();
  HostCompilerOptions alone_o3 = o3;
  alone_o3.cpu_variants.clear();
  absl::StatusOr<std::string> x = CompileHloToHostArtifact(kRepeatedBlocks, alone);
  absl::StatusOr<std::string> y = CompileHloToHostArtifact(kRepeatedBlocks, alone_o3);
  ASSERT_TRUE(x.ok()) << x.status();
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(*x, *y);
}

TEST(HostCompiler, WiderBuildsGiveTheBaselinesBits) {
  HostCompilerOptions options = Options();
  options.cpu_variants = {"x86-64-v3", "x86-64-v2", "x86-64-v4"};
  GpuExecutableProto wide = CompileRunAndCompare(kSoftmax, 5, options);
  ASSERT_EQ(wide.payload().host_object_variants_size(), 2);
  auto has = [](const HostObjectVariantProto& v, const std::string& f) {
    return std::find(v.cpu_features().begin(), v.cpu_features().end(), f) != v.cpu_features().end();
  };
  EXPECT_TRUE(has(wide.payload().host_object_variants(0), "avx512f"));
  EXPECT_TRUE(has(wide.payload().host_object_variants(1), "avx2"));
  EXPECT_FALSE(has(wide.payload().host_object_variants(1), "avx512f"));

  auto module = ParseHloModule(kSoftmax);
  ASSERT_TRUE(module.ok());
  auto args = MakeRandomInputs(**module, 5);
  ASSERT_TRUE(args.ok());
  // Runs `artifact` with build `v` (-1: the baseline) as its only host code.
  auto run_build = [&](int v) { return RunOneBuild(wide, v, *args); };
  const std::vector<Literal> baseline = run_build(-1);
  ASSERT_EQ(baseline.size(), 1u);
  const std::set<std::string>& machine = stream_executor::host::MachineCpuFeatures();
  int ran = 0;
  for (int v = 0; v < wide.payload().host_object_variants_size(); ++v) {
    bool runs = true;
    for (const std::string& f : wide.payload().host_object_variants(v).cpu_features()) runs &= machine.count(f) == 1;
    if (!runs) continue;
    const std::vector<Literal> got = run_build(v);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].data(), baseline[0].data()) << "build " << v << " differs from the baseline";
    ++ran;
  }
  std::printf("builds run and compared on this machine: %d of 2\n", ran);

  // Nothing wider than the baseline: no builds.
  options.object.cpu = "x86-64-v4";
  options.cpu_variants = {"x86-64-v3"};
  absl::StatusOr<GpuExecutableProto> none = CompileHloToHostArtifactProto(kSoftmax, options);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->payload().host_object_variants_size(), 0);
  options.cpu_variants = {"pentium-9000"};
  absl::StatusOr<GpuExecutableProto> bad = CompileHloToHostArtifactProto(kSoftmax, options);
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "host CPU variant: unknown host CPU 'pentium-9000'"))
      << bad.status();
}

// Issue 25: the host ABI passes an array of buffers, so a kernel of 1,001
// buffers (a concatenate of 1,000 odd-sized parameters) needs no argument
// table; it runs and matches the evaluator.
TEST(HostCompiler, AThousandOperandKernelMatchesTheEvaluator) {
  std::string hlo = "HloModule wide\nENTRY e {\n", names;
  for (int i = 0; i < 1000; ++i) {
    absl::StrAppend(&hlo, "  p", i, " = f32[", 1 + i % 5, "] parameter(", i, ")\n");
    absl::StrAppend(&names, i == 0 ? "" : ", ", "p", i);
  }
  int64_t total = 0;
  for (int i = 0; i < 1000; ++i) total += 1 + i % 5;
  absl::StrAppend(&hlo, "  ROOT c = f32[", total, "] concatenate(", names, "), dimensions={0}\n}\n");
  GpuExecutableProto artifact = CompileRunAndCompare(hlo, 25);
  ASSERT_EQ(CountThunks(artifact.payload().thunks(), ThunkProto::kKernel), 1);
  const KernelThunkProto& k = artifact.payload().thunks(0).kernel();
  EXPECT_EQ(k.args_size(), 1001);
  EXPECT_FALSE(k.has_argument_table());
}

// An optimizer step with may-alias results: the multi-output fusion that
// updates the first moment, the second moment and the parameter writes each
// result over its parameter's buffer (ExecuteOnLiterals borrows, so the
// runtime copies the arguments first). The parameter's update reads the new
// moments, which the fusion recomputes from the old ones after nothing has
// been stored yet: every value is computed before the first store.
TEST(HostCompiler, OptimizerStepWritesOverItsDonatedParametersInPlace) {
  constexpr char kStep[] = R"(
HloModule adam, input_output_alias={ {0}: (1, {}, may-alias), {1}: (2, {}, may-alias), {2}: (0, {}, may-alias) }
ENTRY main {
  p = f32[33,65]{1,0} parameter(0)
  m = f32[33,65]{1,0} parameter(1)
  v = f32[33,65]{1,0} parameter(2)
  g = f32[33,65]{1,0} parameter(3)
  b1 = f32[] constant(0.9)
  b2 = f32[] constant(0.999)
  c1 = f32[] constant(0.1)
  c2 = f32[] constant(0.001)
  lr = f32[] constant(0.01)
  eps = f32[] constant(1e-3)
  b1b = f32[33,65]{1,0} broadcast(b1), dimensions={}
  b2b = f32[33,65]{1,0} broadcast(b2), dimensions={}
  c1b = f32[33,65]{1,0} broadcast(c1), dimensions={}
  c2b = f32[33,65]{1,0} broadcast(c2), dimensions={}
  lrb = f32[33,65]{1,0} broadcast(lr), dimensions={}
  epsb = f32[33,65]{1,0} broadcast(eps), dimensions={}
  m1 = f32[33,65]{1,0} multiply(b1b, m)
  m2 = f32[33,65]{1,0} multiply(c1b, g)
  nm = f32[33,65]{1,0} add(m1, m2)
  v1 = f32[33,65]{1,0} multiply(b2b, v)
  gg = f32[33,65]{1,0} multiply(g, g)
  v2 = f32[33,65]{1,0} multiply(c2b, gg)
  nv = f32[33,65]{1,0} add(v1, v2)
  sv = f32[33,65]{1,0} sqrt(nv)
  dn = f32[33,65]{1,0} add(sv, epsb)
  u = f32[33,65]{1,0} divide(nm, dn)
  su = f32[33,65]{1,0} multiply(lrb, u)
  np = f32[33,65]{1,0} subtract(p, su)
  ROOT t = (f32[33,65]{1,0}, f32[33,65]{1,0}, f32[33,65]{1,0}) tuple(nm, nv, np)
}
)";
  GpuExecutableProto artifact = CompileRunAndCompare(kStep, 31);
  int donated_outputs = 0, other_outputs = 0;
  for (const BufferAllocationProto& a : artifact.payload().allocations()) {
    if (a.is_output() && a.is_parameter()) ++donated_outputs;
    if (a.is_output() && !a.is_parameter()) ++other_outputs;
  }
  EXPECT_EQ(donated_outputs, 3);
  EXPECT_EQ(other_outputs, 0);
}

TEST(HostCompiler, UnsupportedOpIsAClearError) {
  // A custom call to a target no FFI handler serves has no host emission.
  constexpr char kUnknownCall[] = R"(
HloModule unknown_call
ENTRY main {
  x = f32[17]{0} parameter(0)
  ROOT s = f32[17]{0} custom-call(x), custom_call_target="no_such_target_anywhere"
}
)";
  absl::StatusOr<std::string> bytes = CompileHloToHostArtifact(kUnknownCall, Options());
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.status().code(), absl::StatusCode::kUnimplemented) << bytes.status();
  EXPECT_TRUE(absl::StrContains(bytes.status().message(), "no_such_target_anywhere"))
      << bytes.status();
  EXPECT_TRUE(absl::StrContains(bytes.status().message(), "'s'")) << bytes.status();
}

TEST(HostCompiler, ParseErrorIsReported) {
  absl::StatusOr<std::string> bytes = CompileHloToHostArtifact("HloModule broken\nENTRY {", Options());
  EXPECT_FALSE(bytes.ok());
}

}  // namespace
}  // namespace xla::gpu
