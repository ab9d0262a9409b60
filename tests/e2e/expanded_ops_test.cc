// Constructs of the XLA corpus that the middle end rewrites into ops both
// targets already run (issue 28), end to end: each program compiles for the
// host, runs on the host platform and matches the reference evaluator
// (CompareOutputLeaf, as `xla_aot run --reference`), and compiles for sm_90
// with ptxas accepting every kernel (a cubin is required). Sizes are odd so
// that no construct passes by fitting a tile.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "xla/aot/compile.h"
#include "xla/aot/executable.h"
#include "xla/aot/host_vs_evaluator.h"
#include "xla/aot/literal_execution.h"
#include "xla/backends/gpu/compiler/gpu_compiler.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/literal_compare.h"

namespace xla {
namespace {

using aot::ExpectHostMatchesEvaluator;

// Compiles `hlo` for sm_90 and requires a cubin for every kernel (ptxas
// accepted each one).
void ExpectSm90CompilesWithCubins(const std::string& hlo) { aot::ExpectCompilesWithCubins(hlo, "sm_90"); }

Literal F32(std::vector<int64_t> dims, double scale, double shift) {
  Literal l(Shape::Array(PrimitiveType::F32, dims));
  const int64_t n = *l.shape().ElementCount();
  for (int64_t i = 0; i < n; ++i) l.SetDouble(i, scale * static_cast<double>((i * 7) % 11) + shift);
  return l;
}

Literal S32(int64_t v) {
  Literal l(Shape::Scalar(PrimitiveType::S32));
  l.SetInt(0, v);
  return l;
}

// ---- dynamic-reshape whose bounds fix its sizes (DynamicReshapeRewriter) ----

constexpr char kDynamicReshape[] = R"(
HloModule dynamic_reshape
ENTRY e {
  p = f32[3,35] parameter(0)
  a = s32[] parameter(1)
  b = s32[] parameter(2)
  c = s32[] parameter(3)
  d = f32[<=5,<=7,<=3] dynamic-reshape(p, a, b, c)
  ROOT t = f32[<=5,<=7,<=3] tanh(d)
}
)";

TEST(ExpandedOps, DynamicReshapeHost) {
  std::vector<Literal> args;
  args.push_back(F32({3, 35}, 0.25, -1.0));
  args.push_back(S32(5));
  args.push_back(S32(7));
  args.push_back(S32(3));
  ExpectHostMatchesEvaluator(kDynamicReshape, std::move(args));
}

TEST(ExpandedOps, DynamicReshapeSm90) { ExpectSm90CompilesWithCubins(kDynamicReshape); }

// ---- annotate_device_placement (DevicePlacementAnnotationRemover) ----

constexpr char kDevicePlacement[] = R"(
HloModule placement
body {
  t = (s32[], f32[9,5]) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  v = f32[9,5] get-tuple-element(t), index=1
  s = f32[9,5] sine(v)
  h = f32[9,5] custom-call(s), custom_call_target="annotate_device_placement",
      custom_call_has_side_effect=true, frontend_attributes={_xla_buffer_placement="pinned_host"}
  ROOT r = (s32[], f32[9,5]) tuple(next, h)
}
cond {
  t = (s32[], f32[9,5]) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}
ENTRY e {
  p = f32[9,5] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[9,5]) tuple(zero, p)
  w = (s32[], f32[9,5]) while(init), condition=cond, body=body
  ROOT out = f32[9,5] get-tuple-element(w), index=1
}
)";

TEST(ExpandedOps, DevicePlacementAnnotationHost) { ExpectHostMatchesEvaluator(kDevicePlacement); }

TEST(ExpandedOps, DevicePlacementAnnotationSm90) {
  ExpectSm90CompilesWithCubins(kDevicePlacement);
}


// ---- cholesky (CholeskyExpander) ----

// A positive-definite batch x x^T + 11 I of odd size, factored in f32
// (lower) and f16 (upper, computed in f32).
constexpr char kCholesky[] = R"(
HloModule cholesky
ENTRY e {
  x = f32[3,11,11] parameter(0)
  xxt = f32[3,11,11] dot(x, x), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}
  r = s32[11,11] iota(), iota_dimension=0
  c = s32[11,11] iota(), iota_dimension=1
  eye = pred[11,11] compare(r, c), direction=EQ
  n = f32[] constant(11)
  zero = f32[] constant(0)
  nb = f32[11,11] broadcast(n), dimensions={}
  zb = f32[11,11] broadcast(zero), dimensions={}
  diag = f32[11,11] select(eye, nb, zb)
  diagb = f32[3,11,11] broadcast(diag), dimensions={1,2}
  a = f32[3,11,11] add(xxt, diagb)
  lower = f32[3,11,11] cholesky(a), lower=true
  a16 = f16[3,11,11] convert(a)
  upper = f16[3,11,11] cholesky(a16), lower=false
  ROOT t = (f32[3,11,11], f16[3,11,11]) tuple(lower, upper)
}
)";

TEST(ExpandedOps, CholeskyHost) { ExpectHostMatchesEvaluator(kCholesky); }

TEST(ExpandedOps, CholeskySm90) { ExpectSm90CompilesWithCubins(kCholesky); }


// ---- triangular-solve (TriangularSolveExpander) ----

// Well-conditioned triangles (random + 9 I) of odd size; a left lower solve
// in f32, a right upper transposed unit-diagonal solve in f64 (XLA's
// cho_solve shape: the factor of a cholesky solved twice), and a left
// upper adjoint solve in bf16 (computed in f32).
constexpr char kTriangularSolve[] = R"(
HloModule triangular_solve
ENTRY e {
  r = f32[3,9,9] parameter(0)
  b = f32[3,9,5] parameter(1)
  c = f64[3,7,9] parameter(2)
  i = s32[3,9,9] iota(), iota_dimension=1
  j = s32[3,9,9] iota(), iota_dimension=2
  eye = pred[3,9,9] compare(i, j), direction=EQ
  nine = f32[] constant(9)
  zero = f32[] constant(0)
  nb = f32[3,9,9] broadcast(nine), dimensions={}
  zb = f32[3,9,9] broadcast(zero), dimensions={}
  d = f32[3,9,9] select(eye, nb, zb)
  a = f32[3,9,9] add(r, d)
  x1 = f32[3,9,5] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
  a64 = f64[3,9,9] convert(a)
  x2 = f64[3,7,9] triangular-solve(a64, c), left_side=false, lower=false, unit_diagonal=true, transpose_a=TRANSPOSE
  a16 = bf16[3,9,9] convert(a)
  b16 = bf16[3,9,5] convert(b)
  x3 = bf16[3,9,5] triangular-solve(a16, b16), left_side=true, lower=false, transpose_a=ADJOINT
  ROOT t = (f32[3,9,5], f64[3,7,9], bf16[3,9,5]) tuple(x1, x2, x3)
}
)";

TEST(ExpandedOps, TriangularSolveHost) { ExpectHostMatchesEvaluator(kTriangularSolve); }

TEST(ExpandedOps, TriangularSolveSm90) { ExpectSm90CompilesWithCubins(kTriangularSolve); }


// ---- tuple-shaped entry parameters (EntryParameterFlattener) ----

// A nested tuple parameter between array ones; the host run gets the tuple
// arguments the evaluator gets (ExecuteOnLiterals passes their leaves).
constexpr char kTupleParameter[] = R"(
HloModule tuple_parameter
ENTRY e {
  a = f32[7,3] parameter(0)
  t = (f32[3,5], (s32[], f32[7,3])) parameter(1)
  c = f32[7,3] parameter(2)
  w = f32[3,5] get-tuple-element(t), index=0
  inner = (s32[], f32[7,3]) get-tuple-element(t), index=1
  k = s32[] get-tuple-element(inner), index=0
  v = f32[7,3] get-tuple-element(inner), index=1
  kf = f32[] convert(k)
  kb = f32[7,3] broadcast(kf), dimensions={}
  av = f32[7,3] multiply(a, v)
  s = f32[7,3] add(av, kb)
  sc = f32[7,3] add(s, c)
  ROOT d = f32[7,5] dot(sc, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)";

TEST(ExpandedOps, TupleParameterHost) { ExpectHostMatchesEvaluator(kTupleParameter); }

TEST(ExpandedOps, TupleParameterSm90) { ExpectSm90CompilesWithCubins(kTupleParameter); }


// ---- scatter with batching dimensions (ScatterBatchingNormalizer) ----

// Two batching pairs in swapped order (the corpus form), odd sizes, and a
// window of one dimension.
constexpr char kScatterBatching[] = R"(
HloModule scatter_batching
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  operand = f32[5,3,9] parameter(0)
  indices = s32[3,5,1] parameter(1)
  updates = f32[3,5,4] parameter(2)
  ROOT s = f32[5,3,9] scatter(operand, indices, updates), update_window_dims={2}, inserted_window_dims={},
      scatter_dims_to_operand_dims={2}, input_batching_dims={0,1}, scatter_indices_batching_dims={1,0},
      index_vector_dim=2, to_apply=add
}
)";

TEST(ExpandedOps, ScatterBatchingHost) { ExpectHostMatchesEvaluator(kScatterBatching); }

TEST(ExpandedOps, ScatterBatchingSm90) { ExpectSm90CompilesWithCubins(kScatterBatching); }

// ---- variadic scatter (both emitters' scatter kernels, N arrays) ----

// An argmax over a score and an id array with a batching pair, odd sizes:
// random indices in [0, 8) on a dim of 7 collide and skip windows.
constexpr char kVariadicScatter[] = R"(
HloModule variadic_scatter
argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  gt = pred[] compare(v1, v0), direction=GT
  v = f32[] select(gt, v1, v0)
  i = s32[] select(gt, i1, i0)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  v = f32[3,7] parameter(0)
  a = s32[3,7] parameter(1)
  idx = s32[3,5,1] parameter(2)
  uv = f32[3,5] parameter(3)
  ua = s32[3,5] parameter(4)
  ROOT s = (f32[3,7], s32[3,7]) scatter(v, a, idx, uv, ua), update_window_dims={},
      inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, input_batching_dims={0},
      scatter_indices_batching_dims={0}, index_vector_dim=2, to_apply=argmax
}
)";

TEST(ExpandedOps, VariadicScatterHost) { ExpectHostMatchesEvaluator(kVariadicScatter); }

TEST(ExpandedOps, VariadicScatterSm90) { ExpectSm90CompilesWithCubins(kVariadicScatter); }

// ---- scan (ScanExpander) ----

// Along the middle dim of odd inputs, two carries (a running max and a
// counter), non-commutative steps.
constexpr char kScan[] = R"(
HloModule scan
step {
  x = f32[3,5] parameter(0)
  m = f32[3,5] parameter(1)
  n = s32[] parameter(2)
  d = f32[3,5] subtract(x, m)
  m2 = f32[3,5] maximum(m, d)
  one = s32[] constant(1)
  n2 = s32[] add(n, one)
  ROOT t = (f32[3,5], f32[3,5], s32[]) tuple(d, m2, n2)
}
ENTRY e {
  x = f32[3,9,5] parameter(0)
  m = f32[3,5] parameter(1)
  n = s32[] parameter(2)
  ROOT s = (f32[3,9,5], f32[3,5], s32[]) scan(x, m, n), dimensions={1}, num_carries=2, to_apply=step
}
)";

TEST(ExpandedOps, ScanHost) { ExpectHostMatchesEvaluator(kScan); }

TEST(ExpandedOps, ScanSm90) { ExpectSm90CompilesWithCubins(kScan); }


// ---- rng-bit-generator ThreeFry with a four-word state ----

constexpr char kRngLongState[] = R"(
HloModule rng_long_state
ENTRY e {
  s = u64[4] parameter(0)
  r = (u64[4], u32[7,3]) rng-bit-generator(s), algorithm=rng_three_fry
  r8 = (u64[4], u8[5]) rng-bit-generator(s), algorithm=rng_three_fry
  a = u64[4] get-tuple-element(r), index=0
  b = u32[7,3] get-tuple-element(r), index=1
  c = u8[5] get-tuple-element(r8), index=1
  ROOT t = (u64[4], u32[7,3], u8[5]) tuple(a, b, c)
}
)";

TEST(ExpandedOps, RngThreeFryLongStateHost) { ExpectHostMatchesEvaluator(kRngLongState); }

TEST(ExpandedOps, RngThreeFryLongStateSm90) { ExpectSm90CompilesWithCubins(kRngLongState); }


// ---- XLA's TopK custom call (TopKDecomposer) ----

constexpr char kTopKCustomCall[] = R"(
HloModule topk_custom_call
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ia = s32[] parameter(2)
  ib = s32[] parameter(3)
  ROOT gt = pred[] compare(a, b), direction=GT, type=TOTALORDER
}
ENTRY e {
  x = f32[7,129] parameter(0)
  ROOT t = (f32[7,5], s32[7,5]) custom-call(x), custom_call_target="TopK", called_computations={cmp}
}
)";

TEST(ExpandedOps, TopKCustomCallHost) { ExpectHostMatchesEvaluator(kTopKCustomCall); }

TEST(ExpandedOps, TopKCustomCallSm90) { ExpectSm90CompilesWithCubins(kTopKCustomCall); }

// `topk` ops: on the host, k <= 128 runs as the one-pass topk kernel and a
// larger k as sorts (TopKDecomposer); sm_90 sorts every one.
constexpr char kTopKOps[] = R"(
HloModule topk_ops
ENTRY e {
  x = f32[7,301] parameter(0)
  y = bf16[3,33] parameter(1)
  a = (f32[7,5], s32[7,5]) topk(x), k=5, largest=true
  b = (bf16[3,33], s32[3,33]) topk(y), k=33, largest=false
  c = (f32[7,200], s32[7,200]) topk(x), k=200, largest=true
  a0 = f32[7,5] get-tuple-element(a), index=0
  a1 = s32[7,5] get-tuple-element(a), index=1
  b0 = bf16[3,33] get-tuple-element(b), index=0
  b1 = s32[3,33] get-tuple-element(b), index=1
  c0 = f32[7,200] get-tuple-element(c), index=0
  c1 = s32[7,200] get-tuple-element(c), index=1
  ROOT t = (f32[7,5], s32[7,5], bf16[3,33], s32[3,33], f32[7,200], s32[7,200]) tuple(a0, a1, b0, b1, c0, c1)
}
)";

TEST(ExpandedOps, TopKOpsHost) { ExpectHostMatchesEvaluator(kTopKOps); }

TEST(ExpandedOps, TopKOpsSm90) { ExpectSm90CompilesWithCubins(kTopKOps); }


// ---- xla_builder.math.Acos (BuilderMathCallExpander) ----

constexpr char kBuilderAcos[] = R"(
HloModule builder_acos
ENTRY e {
  x = f32[9,7] parameter(0)
  ROOT a = f32[9,7] custom-call(x), custom_call_target="xla_builder.math.Acos"
}
)";

TEST(ExpandedOps, BuilderAcosHost) { ExpectHostMatchesEvaluator(kBuilderAcos); }

TEST(ExpandedOps, BuilderAcosSm90) { ExpectSm90CompilesWithCubins(kBuilderAcos); }


// ---- generic async wrappers (AsyncWrapperInliner) ----

constexpr char kAsyncWrapper[] = R"(
HloModule async_wrapper
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
wrapped {
  x = f32[11,5] parameter(0)
  y = f32[11,5] parameter(1)
  m = f32[11,5] multiply(x, y)
  z = f32[] constant(0)
  ROOT r = f32[11] reduce(m, z), dimensions={1}, to_apply=add
}
ENTRY e {
  p = f32[11,5] parameter(0)
  q = f32[11,5] parameter(1)
  s = ((f32[11,5], f32[11,5]), f32[11], u32[]) async-start(p, q), calls=wrapped
  u = ((f32[11,5], f32[11,5]), f32[11], u32[]) async-update(s)
  d = f32[11] async-done(u)
  ROOT t = f32[11] tanh(d)
}
)";

TEST(ExpandedOps, AsyncWrapperHost) { ExpectHostMatchesEvaluator(kAsyncWrapper); }

TEST(ExpandedOps, AsyncWrapperSm90) { ExpectSm90CompilesWithCubins(kAsyncWrapper); }

// ---- dots the GEMM library cannot run (NonGemmDotExpander) ----
// One reduction kernel each; integer sums wrap in the result type as in the
// evaluator, pred dots are or-of-ands.

Literal Ints(PrimitiveType type, std::vector<int64_t> dims, int64_t scale, int64_t shift) {
  Literal l(Shape::Array(type, dims));
  const int64_t n = *l.shape().ElementCount();
  for (int64_t i = 0; i < n; ++i) l.SetInt(i, scale * ((i * 7) % 11) + shift);
  return l;
}

constexpr char kS8Dot[] = R"(
HloModule s8_dot
ENTRY e {
  a = s8[3,5,37] parameter(0)
  b = s8[3,37,7] parameter(1)
  ROOT d = s32[3,5,7] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0},
      lhs_contracting_dims={2}, rhs_contracting_dims={1}
}
)";

TEST(ExpandedOps, S8DotIntoS32Host) {
  // Values from -127 to 123 (many at the ends), sums up to 37 * 127^2.
  std::vector<Literal> args;
  args.push_back(Ints(PrimitiveType::S8, {3, 5, 37}, 25, -127));
  args.push_back(Ints(PrimitiveType::S8, {3, 37, 7}, -25, 123));
  ExpectHostMatchesEvaluator(kS8Dot, std::move(args));
}

TEST(ExpandedOps, S8DotIntoS32Sm90) { ExpectSm90CompilesWithCubins(kS8Dot); }

constexpr char kS32Dot[] = R"(
HloModule s32_dot
ENTRY e {
  a = s32[5,3,4] parameter(0)
  b = s32[4,7,5] parameter(1)
  ROOT d = s32[3,7] dot(a, b), lhs_contracting_dims={0,2}, rhs_contracting_dims={2,0}
}
)";

TEST(ExpandedOps, S32DotWrapsHost) {
  // Products near 2^61: the sums wrap modulo 2^32.
  std::vector<Literal> args;
  args.push_back(Ints(PrimitiveType::S32, {5, 3, 4}, 190000000, -999999937));
  args.push_back(Ints(PrimitiveType::S32, {4, 7, 5}, -180000001, 912345679));
  ExpectHostMatchesEvaluator(kS32Dot, std::move(args));
}

TEST(ExpandedOps, S32DotWrapsSm90) { ExpectSm90CompilesWithCubins(kS32Dot); }

constexpr char kSmallIntDots[] = R"(
HloModule small_int_dots
ENTRY e {
  a = u8[9,13] parameter(0)
  b = u8[13,5] parameter(1)
  u = u8[9,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  p = pred[9,13] parameter(2)
  q = pred[13,5] parameter(3)
  o = pred[9,5] dot(p, q), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  c = s64[9,13] parameter(4)
  s = s64[9,5] dot(c, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  f = f32[9,5] dot(c, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  z = pred[9,5] dot(c, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (u8[9,5], pred[9,5], s64[9,5], f32[9,5], pred[9,5]) tuple(u, o, s, f, z)
}
)";

TEST(ExpandedOps, SmallIntPredS64DotsHost) {
  std::vector<Literal> args;
  args.push_back(Ints(PrimitiveType::U8, {9, 13}, 23, 17));
  args.push_back(Ints(PrimitiveType::U8, {13, 5}, 19, 61));
  Literal p(Shape::Array(PrimitiveType::PRED, {9, 13}));
  for (int64_t i = 0; i < 9 * 13; ++i) p.SetInt(i, (i * 5) % 7 == 3 ? 1 : 0);
  Literal q(Shape::Array(PrimitiveType::PRED, {13, 5}));
  for (int64_t i = 0; i < 13 * 5; ++i) q.SetInt(i, (i * 3) % 8 == 1 ? 1 : 0);
  args.push_back(std::move(p));
  args.push_back(std::move(q));
  args.push_back(Ints(PrimitiveType::S64, {9, 13}, INT64_C(900000000000000000),
                      INT64_C(-4000000000000000000)));
  ExpectHostMatchesEvaluator(kSmallIntDots, std::move(args));
}

TEST(ExpandedOps, SmallIntPredS64DotsSm90) { ExpectSm90CompilesWithCubins(kSmallIntDots); }

// ---- ragged-dot (RaggedDotExpander) ----

// Random operands with `sizes` as parameter 2 (the group sizes).
std::vector<Literal> RaggedArgs(const std::string& hlo, PrimitiveType type,
                                std::vector<int64_t> dims, const std::vector<int64_t>& sizes) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return {};
  absl::StatusOr<std::vector<Literal>> args = MakeRandomInputs(**module, 13);
  EXPECT_TRUE(args.ok()) << args.status();
  if (!args.ok()) return {};
  Literal g(Shape::Array(type, std::move(dims)));
  for (size_t i = 0; i < sizes.size(); ++i) g.SetInt(static_cast<int64_t>(i), sizes[i]);
  (*args)[2] = std::move(g);
  return std::move(*args);
}

// The MoE form: 37 tokens over 5 experts, one expert empty, two tokens in
// no group.
constexpr char kRaggedDotMoE[] = R"(
HloModule ragged_dot_moe
ENTRY e {
  a = f32[37,9] parameter(0)
  b = f32[5,9,13] parameter(1)
  g = s32[5] parameter(2)
  ROOT r = f32[37,13] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
}
)";

TEST(ExpandedOps, RaggedDotNonContractingHost) {
  ExpectHostMatchesEvaluator(
      kRaggedDotMoE, RaggedArgs(kRaggedDotMoE, PrimitiveType::S32, {5}, {7, 0, 12, 1, 15}));
}

TEST(ExpandedOps, RaggedDotNonContractingSm90) { ExpectSm90CompilesWithCubins(kRaggedDotMoE); }

// The corpus's contracting form: group sizes per outer contracting row.
constexpr char kRaggedDotContracting[] = R"(
HloModule ragged_dot_contracting
ENTRY e {
  a = f32[11,19,5] parameter(0)
  b = f32[19,5,7] parameter(1)
  g = s64[19,3] parameter(2)
  ROOT r = f32[3,11,7] ragged-dot(a, b, g), lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}, lhs_ragged_dims={2}
}
)";

std::vector<int64_t> ContractingSizes() {
  std::vector<int64_t> sizes;
  for (int64_t o = 0; o < 19; ++o) sizes.insert(sizes.end(), {o % 3, 1, 4 - o % 3 - o % 2});
  return sizes;
}

TEST(ExpandedOps, RaggedDotContractingHost) {
  ExpectHostMatchesEvaluator(kRaggedDotContracting,
                             RaggedArgs(kRaggedDotContracting, PrimitiveType::S64, {19, 3},
                                        ContractingSizes()));
}

TEST(ExpandedOps, RaggedDotContractingSm90) { ExpectSm90CompilesWithCubins(kRaggedDotContracting); }

// The corpus's batch form.
constexpr char kRaggedDotBatch[] = R"(
HloModule ragged_dot_batch
ENTRY e {
  a = f32[7,17,11,5] parameter(0)
  b = f32[7,17,5,7] parameter(1)
  g = s64[7,3] parameter(2)
  ROOT r = f32[7,17,11,7] ragged-dot(a, b, g), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={2}, lhs_ragged_dims={1}
}
)";

TEST(ExpandedOps, RaggedDotBatchHost) {
  std::vector<int64_t> sizes;
  for (int64_t o = 0; o < 7; ++o) sizes.insert(sizes.end(), {o % 4, 5, 12 - o % 4 - o % 3});
  ExpectHostMatchesEvaluator(kRaggedDotBatch,
                             RaggedArgs(kRaggedDotBatch, PrimitiveType::S64, {7, 3}, sizes));
}

TEST(ExpandedOps, RaggedDotBatchSm90) { ExpectSm90CompilesWithCubins(kRaggedDotBatch); }

// ---- XLA:GPU's cuBLAS GEMM custom calls (GemmCustomCallRewriter) ----

constexpr char kCublasGemms[] = R"(
HloModule cublas_gemms
ENTRY e {
  a = f32[7,9] parameter(0)
  b = f32[13,9] parameter(1)
  bias = f32[13] parameter(2)
  g = (f32[7,13], s8[129]) custom-call(a, b, bias), custom_call_target="__cublas$lt$matmul", backend_config="{ \"gemm_backend_config\": {\"alpha_real\":0.5,\"beta\":0,\"dot_dimension_numbers\":{\"lhs_contracting_dimensions\":[\"1\"],\"rhs_contracting_dimensions\":[\"1\"],\"lhs_batch_dimensions\":[],\"rhs_batch_dimensions\":[]},\"alpha_imag\":0,\"precision_config\":{\"operand_precision\":[\"DEFAULT\",\"DEFAULT\"]},\"epilogue\":\"BIAS_RELU\"}}"
  r = f32[7,13] get-tuple-element(g), index=0
  c = f32[13,5] parameter(3)
  ROOT d = f32[7,5] custom-call(r, c), custom_call_target="__cublas$gemm", backend_config={"gemm_backend_config":{"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"]},"precision_config":{"operand_precision":["HIGHEST","HIGHEST"]},"epilogue":"GELU"}}
}
)";

TEST(ExpandedOps, CublasGemmCustomCallsHost) { ExpectHostMatchesEvaluator(kCublasGemms); }

TEST(ExpandedOps, CublasGemmCustomCallsSm90) { ExpectSm90CompilesWithCubins(kCublasGemms); }

// ---- xla_builder.matrix.Einsum (EinsumExpander) ----

constexpr char kEinsum[] = R"(
HloModule einsum
ENTRY e {
  a = f32[7,7,5] parameter(0)
  b = f32[5,9,3] parameter(1)
  d = f32[7,9] custom-call(a, b), custom_call_target="xla_builder.matrix.Einsum", backend_config="iij,jkl->ik"
  v = f32[9] parameter(2)
  ROOT o = f32[9,9,7] custom-call(v, d), custom_call_target="xla_builder.matrix.Einsum", backend_config="k,ik->kki"
}
)";

TEST(ExpandedOps, EinsumHost) { ExpectHostMatchesEvaluator(kEinsum); }

TEST(ExpandedOps, EinsumSm90) { ExpectSm90CompilesWithCubins(kEinsum); }

// The corpus's einsum_diag: the diagonal mask folds into a constant named
// after the call ("custom-call.2..."), whose '-' NVPTX refused as a symbol
// (an LLVM abort) until constant symbols kept only legal characters.
constexpr char kEinsumCorpusDiag[] = R"(
HloModule einsum_diag
ENTRY %main.3 (Arg_0.1: f32[3,3]) -> f32[3] {
  %Arg_0.1 = f32[3,3] parameter(0)
  %cst = f32[3,3] constant(1)
  ROOT %custom-call.2 = f32[3] custom-call(%Arg_0.1, %cst), custom_call_target="xla_builder.matrix.Einsum", backend_config="ii,ii->i"
}
)";

TEST(ExpandedOps, EinsumCorpusDiagonalHost) { ExpectHostMatchesEvaluator(kEinsumCorpusDiag); }

TEST(ExpandedOps, EinsumCorpusDiagonalSm90) { ExpectSm90CompilesWithCubins(kEinsumCorpusDiag); }

// ---- scaled-dot (ScaledDotExpander) ----

// An MX-style block-scaled dot at odd sizes: e4m3 operands, e8m0 scales
// over blocks of 5 along k (random scales are powers of two; the evaluator
// dequantizes in f64).
constexpr char kScaledDot[] = R"(
HloModule scaled_dot
ENTRY e {
  a = f8e4m3fn[7,15] parameter(0)
  b = f8e4m3fn[15,9] parameter(1)
  sa = f8e8m0fnu[7,3] parameter(2)
  sb = f8e8m0fnu[3,9] parameter(3)
  ROOT d = f32[7,9] scaled-dot(a, b, sa, sb), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)";

std::vector<Literal> ScaledDotArgs() {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kScaledDot);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return {};
  absl::StatusOr<std::vector<Literal>> args = MakeRandomInputs(**module, 21);
  EXPECT_TRUE(args.ok()) << args.status();
  if (!args.ok()) return {};
  for (int p : {2, 3}) {
    Literal& s = (*args)[p];
    for (int64_t i = 0; i < s.element_count(); ++i) s.SetDouble(i, 0.25 * (1 << ((i * 3 + p) % 5)));
  }
  return std::move(*args);
}

TEST(ExpandedOps, ScaledDotHost) { ExpectHostMatchesEvaluator(kScaledDot, ScaledDotArgs()); }

TEST(ExpandedOps, ScaledDotSm90) { ExpectSm90CompilesWithCubins(kScaledDot); }

// ---- complex numbers (ComplexExpander; CholeskyExpander on c64/c128) ----

// Every complex op the expander writes in real ops, at odd sizes.
constexpr char kComplexElementwise[] = R"(
HloModule complex_elementwise
ENTRY e {
  x = TYPE[33,7] parameter(0)
  y = TYPE[33,7] parameter(1)
  add = TYPE[33,7] add(x, y)
  sub = TYPE[33,7] subtract(x, y)
  mul = TYPE[33,7] multiply(x, y)
  div = TYPE[33,7] divide(x, y)
  neg = TYPE[33,7] negate(x)
  sign = TYPE[33,7] sign(x)
  exp = TYPE[33,7] exponential(x)
  log = TYPE[33,7] log(x)
  sqrt = TYPE[33,7] sqrt(x)
  rsqrt = TYPE[33,7] rsqrt(y)
  acos = TYPE[33,7] acos(x)
  sin = TYPE[33,7] sine(x)
  cos = TYPE[33,7] cosine(y)
  tanh = TYPE[33,7] tanh(x)
  pow = TYPE[33,7] power(x, y)
  abs = PART[33,7] abs(x)
  re = PART[33,7] real(x)
  im = PART[33,7] imag(y)
  z = TYPE[33,7] complex(im, re)
  eq = pred[33,7] compare(x, z), direction=EQ
  ne = pred[33,7] compare(x, y), direction=NE
  sel = TYPE[33,7] select(ne, z, x)
  ROOT t = (TYPE[33,7], TYPE[33,7], TYPE[33,7], TYPE[33,7], TYPE[33,7], TYPE[33,7], TYPE[33,7],
            TYPE[33,7], TYPE[33,7], TYPE[33,7], TYPE[33,7], TYPE[33,7], TYPE[33,7], TYPE[33,7],
            TYPE[33,7], PART[33,7], pred[33,7], TYPE[33,7]) tuple(add, sub, mul, div, neg, sign,
            exp, log, sqrt, rsqrt, acos, sin, cos, tanh, pow, abs, eq, sel)
}
)";

std::string ComplexText(const char* text, bool c128) {
  return absl::StrReplaceAll(text, {{"TYPE", c128 ? "c128" : "c64"}, {"PART", c128 ? "f64" : "f32"}});
}

TEST(ExpandedOps, ComplexElementwiseHost) {
  ExpectHostMatchesEvaluator(ComplexText(kComplexElementwise, false));
  ExpectHostMatchesEvaluator(ComplexText(kComplexElementwise, true));
}

TEST(ExpandedOps, ComplexElementwiseSm90) {
  ExpectSm90CompilesWithCubins(ComplexText(kComplexElementwise, false));
  ExpectSm90CompilesWithCubins(ComplexText(kComplexElementwise, true));
}

// C99 Annex G's special values (and huge and tiny parts): x takes each of
// 81 values 81 times in a row, y cycles through them, so the binary ops
// see every pair.
constexpr char kComplexSpecial[] = R"(
HloModule complex_special
ENTRY e {
  x = c64[6561] parameter(0)
  y = c64[6561] parameter(1)
  div = c64[6561] divide(x, y)
  mul = c64[6561] multiply(x, y)
  sqrt = c64[6561] sqrt(y)
  exp = c64[6561] exponential(y)
  log = c64[6561] log(y)
  acos = c64[6561] acos(y)
  sign = c64[6561] sign(y)
  abs = f32[6561] abs(y)
  ROOT t = (c64[6561], c64[6561], c64[6561], c64[6561], c64[6561], c64[6561], c64[6561],
            f32[6561]) tuple(div, mul, sqrt, exp, log, acos, sign, abs)
}
)";

std::vector<Literal> ComplexSpecialArgs() {
  const double inf = std::numeric_limits<double>::infinity();
  const double parts[] = {0.0, -0.0, 1.5, -2.0, 3e38, -1e-30, inf, -inf, std::nan("")};
  std::vector<Literal> args;
  for (int64_t every : {81, 1}) {
    Literal l(Shape::Array(PrimitiveType::C64, {6561}));
    for (int64_t i = 0; i < 6561; ++i) {
      const int64_t v = (i / every) % 81;
      l.SetComplex(i, {parts[v / 9], parts[v % 9]});
    }
    args.push_back(std::move(l));
  }
  return args;
}

TEST(ExpandedOps, ComplexSpecialValuesHost) {
  ExpectHostMatchesEvaluator(kComplexSpecial, ComplexSpecialArgs());
}

// Parts near f32's largest value: neither the quotient nor |x| overflows
// before the exact result does.
constexpr char kComplexNearOverflow[] = R"(
HloModule complex_near_overflow
ENTRY e {
  x = c64[257] parameter(0)
  y = c64[257] parameter(1)
  q = c64[257] divide(x, y)
  m = c64[257] multiply(x, y)
  a = f32[257] abs(x)
  ROOT t = (c64[257], c64[257], f32[257]) tuple(q, m, a)
}
)";

TEST(ExpandedOps, ComplexNearOverflowHost) {
  std::vector<Literal> args;
  for (int k = 0; k < 2; ++k) {
    Literal l(Shape::Array(PrimitiveType::C64, {257}));
    for (int64_t i = 0; i < 257; ++i) {
      const double s = (k == 0 ? 3.0e38 : 1.0e-20) * (0.25 + 0.75 * ((i * 7) % 17) / 16.0);
      l.SetComplex(i, {(i % 3 == 0 ? -1 : 1) * s, (i % 2 == 0 ? 1 : -0.6) * s});
    }
    args.push_back(std::move(l));
  }
  ExpectHostMatchesEvaluator(kComplexNearOverflow, std::move(args));
}

// Layout ops, a gather, a reduce, dots (complex x complex, complex x real)
// and a while loop carrying a complex value.
constexpr char kComplexStructure[] = R"(
HloModule complex_structure
add {
  a = c64[] parameter(0)
  b = c64[] parameter(1)
  ROOT s = c64[] add(a, b)
}
body {
  s = (s32[], c64[5,12]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  z = c64[5,12] get-tuple-element(s), index=1
  h = c64[] constant((0.5, 0.25))
  hb = c64[5,12] broadcast(h), dimensions={}
  n = c64[5,12] multiply(z, hb)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT r = (s32[], c64[5,12]) tuple(j, n)
}
cond {
  s = (s32[], c64[5,12]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}
ENTRY e {
  x = c64[3,33,17] parameter(0)
  y = c64[3,17,9] parameter(1)
  f = f32[3,17,9] parameter(2)
  k = s32[] parameter(3)
  zero = c64[] constant((0, 0))
  r = c64[3,17] reduce(x, zero), dimensions={1}, to_apply=add
  d = c64[3,33,9] dot(x, y), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  m = c64[3,33,9] dot(x, f), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  t = c64[17,3] transpose(r), dimensions={1,0}
  s = c64[5,3] slice(t), slice={[1:16:3], [0:3]}
  rv = c64[5,3] reverse(s), dimensions={0}
  c = c64[5,6] concatenate(s, rv), dimensions={1}
  pv = c64[] constant((0.5, -3))
  p = c64[5,12] pad(c, pv), padding=0_0x1_5
  ds = c64[2,4] dynamic-slice(p, k, k), dynamic_slice_sizes={2,4}
  idx = s32[3,1] parameter(4)
  g = c64[3,5,4] gather(p, idx), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={1}, index_vector_dim=1, slice_sizes={5,4}
  zi = s32[] constant(0)
  init = (s32[], c64[5,12]) tuple(zi, p)
  w = (s32[], c64[5,12]) while(init), condition=cond, body=body
  wl = c64[5,12] get-tuple-element(w), index=1
  u = c64[5,12] dynamic-update-slice(wl, ds, k, k)
  ROOT out = (c64[3,33,9], c64[3,33,9], c64[5,12], c64[3,5,4]) tuple(d, m, u, g)
}
)";

TEST(ExpandedOps, ComplexStructureHost) { ExpectHostMatchesEvaluator(kComplexStructure); }

TEST(ExpandedOps, ComplexStructureSm90) { ExpectSm90CompilesWithCubins(kComplexStructure); }

// cholesky of a Hermitian positive-definite batch x x^H + (n + 2) I.
constexpr char kComplexCholesky[] = R"(
HloModule complex_cholesky
ENTRY e {
  x = TYPE[3,7,7] parameter(0)
  xr = PART[3,7,7] real(x)
  xi = PART[3,7,7] imag(x)
  nxi = PART[3,7,7] negate(xi)
  xc = TYPE[3,7,7] complex(xr, nxi)
  h = TYPE[3,7,7] dot(x, xc), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}
  r = s32[7,7] iota(), iota_dimension=0
  c = s32[7,7] iota(), iota_dimension=1
  eye = pred[7,7] compare(r, c), direction=EQ
  nine = TYPE[] constant((9, 0))
  zero = TYPE[] constant((0, 0))
  nb = TYPE[7,7] broadcast(nine), dimensions={}
  zb = TYPE[7,7] broadcast(zero), dimensions={}
  diag = TYPE[7,7] select(eye, nb, zb)
  db = TYPE[3,7,7] broadcast(diag), dimensions={1,2}
  a = TYPE[3,7,7] add(h, db)
  ROOT l = TYPE[3,7,7] cholesky(a), lower=LOWER
}
)";

std::string ComplexCholesky(bool c128, bool lower) {
  return absl::StrReplaceAll(ComplexText(kComplexCholesky, c128), {{"LOWER", lower ? "true" : "false"}});
}

TEST(ExpandedOps, ComplexCholeskyHost) {
  ExpectHostMatchesEvaluator(ComplexCholesky(false, true));
  ExpectHostMatchesEvaluator(ComplexCholesky(true, false));
}

TEST(ExpandedOps, ComplexCholeskySm90) { ExpectSm90CompilesWithCubins(ComplexCholesky(false, false)); }

// A complex triangular system (upper, ADJOINT, right side) on a
// well-conditioned triangle.
constexpr char kComplexTriangularSolve[] = R"(
HloModule complex_triangular_solve
ENTRY e {
  x = c64[2,7,7] parameter(0)
  b = c64[2,5,7] parameter(1)
  four = c64[] constant((4, 0.5))
  fb = c64[2,7,7] broadcast(four), dimensions={}
  r = s32[2,7,7] iota(), iota_dimension=1
  c = s32[2,7,7] iota(), iota_dimension=2
  eye = pred[2,7,7] compare(r, c), direction=EQ
  xd = c64[2,7,7] add(x, fb)
  a = c64[2,7,7] select(eye, xd, x)
  ROOT s = c64[2,5,7] triangular-solve(a, b), left_side=false, lower=false, transpose_a=ADJOINT
}
)";

TEST(ExpandedOps, ComplexTriangularSolveHost) { ExpectHostMatchesEvaluator(kComplexTriangularSolve); }

TEST(ExpandedOps, ComplexTriangularSolveSm90) { ExpectSm90CompilesWithCubins(kComplexTriangularSolve); }

// Column-major complex parameter and result: relaid out as real pairs.
constexpr char kComplexLayouts[] = R"(
HloModule complex_layouts, entry_computation_layout={(c64[5,33]{0,1}, c128[7,3]{0,1})->(c64[5,33]{0,1}, c128[7,3]{1,0})}
ENTRY e {
  x = c64[5,33]{0,1} parameter(0)
  y = c128[7,3]{0,1} parameter(1)
  n = c64[5,33]{0,1} multiply(x, x)
  s = c128[7,3]{1,0} sqrt(y)
  ROOT t = (c64[5,33]{0,1}, c128[7,3]{1,0}) tuple(n, s)
}
)";

TEST(ExpandedOps, ComplexLayoutsHost) { ExpectHostMatchesEvaluator(kComplexLayouts); }

TEST(ExpandedOps, ComplexLayoutsSm90) { ExpectSm90CompilesWithCubins(kComplexLayouts); }

// ---- Transformer Engine's scaled softmax custom calls (TeSoftmaxExpander) ----

// Every TE softmax form at odd sizes, in bf16 and f32: the plain forward
// (the corpus module's call, at other sizes), the masked forward with a
// per-batch mask, the causal forward and backward, and the backward fed
// with the forward's own output.
constexpr char kTeSoftmax[] = R"(
HloModule te_softmax
ENTRY e {
  x = bf16[3,2,5,33] parameter(0)
  m = u8[3,1,5,33] parameter(1)
  c = f32[2,9,9] parameter(2)
  dc = f32[2,9,9] parameter(3)
  dy = f32[5,37] parameter(4)
  y = f32[5,37] parameter(5)
  dx = bf16[3,2,5,33] parameter(6)
  f = bf16[3,2,5,33] custom-call(x), custom_call_target="te_scaled_softmax_forward_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={scale_factor = 2.000000e-01 : f64}
  mf = bf16[3,2,5,33] custom-call(x, m), custom_call_target="te_scaled_masked_softmax_forward_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={scale_factor = 2.500000e+00 : f64}
  cf = f32[2,9,9] custom-call(c), custom_call_target="te_scaled_upper_triang_masked_softmax_forward_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={scale_factor = 3.000000e+00 : f64}
  cb = f32[2,9,9] custom-call(dc, cf), custom_call_target="te_scaled_upper_triang_masked_softmax_backward_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={scale_factor = 3.000000e+00 : f64}
  b = f32[5,37] custom-call(dy, y), custom_call_target="te_scaled_softmax_backward_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={scale_factor = 7.500000e-01 : f64}
  fb = bf16[3,2,5,33] custom-call(dx, f), custom_call_target="te_scaled_masked_softmax_backward_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={scale_factor = 2.000000e-01 : f64}
  ROOT t = (bf16[3,2,5,33], bf16[3,2,5,33], f32[2,9,9], f32[2,9,9], f32[5,37], bf16[3,2,5,33]) tuple(f, mf, cf, cb, b, fb)
}
)";

TEST(ExpandedOps, TeSoftmaxHost) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kTeSoftmax);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::vector<Literal>> args = MakeRandomInputs(**module, 11);
  ASSERT_TRUE(args.ok()) << args.status();
  // Mask bytes: 1 (masked) on a pattern, 0 or 2 (kept) elsewhere, and the
  // first row of batch 0 masked everywhere (TE gives it zeros).
  Literal& mask = (*args)[1];
  for (int64_t i = 0; i < mask.element_count(); ++i) mask.SetInt(i, i < 33 ? 1 : (i * 5) % 3);
  ExpectHostMatchesEvaluator(kTeSoftmax, std::move(*args));
}

TEST(ExpandedOps, TeSoftmaxSm90) { ExpectSm90CompilesWithCubins(kTeSoftmax); }

// ---- XLA:CPU's oneDNN layer norm custom call (OneDnnLayerNormExpander) ----

// The corpus call (backends/cpu/tests/thunk_coverage/cpu.hlo: a
// convolution's output in rows of 2, no epsilon) and a bf16 one at odd
// sizes with f32 scale and shift and epsilon 1e-5 (bits 925353388).
constexpr char kOneDnnLayerNorm[] = R"(
HloModule onednn_layer_norm
ENTRY e {
  in = f32[2,16,16,4] parameter(0)
  k = f32[2,2,4,2] parameter(1)
  s = f32[2] parameter(2)
  b = f32[2] parameter(3)
  x = bf16[3,5,33] parameter(4)
  xs = f32[33] parameter(5)
  xb = f32[33] parameter(6)
  conv = f32[2,15,15,2] convolution(in, k), window={size=2x2}, dim_labels=b01f_01io->b01f
  ln = f32[2,15,15,2] custom-call(conv, s, b), custom_call_target="__onednn$layernorm", backend_config="{\"onednn_layer_norm_config\":{\"rescale\":\"SCALE_AND_SHIFT\"}}"
  xn = bf16[3,5,33] custom-call(x, xs, xb), custom_call_target="__onednn$layernorm", backend_config="{\"onednn_layer_norm_config\":{\"rescale\":\"SCALE_AND_SHIFT\",\"epsilon_typecast\":925353388}}"
  ROOT t = (f32[2,15,15,2], bf16[3,5,33]) tuple(ln, xn)
}
)";

TEST(ExpandedOps, OneDnnLayerNormHost) { ExpectHostMatchesEvaluator(kOneDnnLayerNorm); }

TEST(ExpandedOps, OneDnnLayerNormSm90) { ExpectSm90CompilesWithCubins(kOneDnnLayerNorm); }

// Named by --allow_custom_calls, a TE softmax call stays a custom call for
// the runtime's handler: without one registered, the run fails naming it.
TEST(ExpandedOps, TeSoftmaxAllowedStaysACustomCall) {
  constexpr char kHlo[] = R"(
HloModule te_softmax_kept
ENTRY e {
  x = bf16[2,4,7] parameter(0)
  ROOT y = bf16[2,4,7] custom-call(x), custom_call_target="te_scaled_softmax_forward_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={scale_factor = 1.0 : f64}
}
)";
  aot::CompileOptions options;
  options.opt_level = 1;
  options.host_cpu_variants.clear();
  options.production_date = "2026-12-02T00:00:00Z";
  options.allowed_custom_calls = {"te_scaled_softmax_forward_ffi"};
  absl::StatusOr<aot::CompiledArtifact> compiled = aot::Compile(kHlo, options);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  absl::StatusOr<std::unique_ptr<aot::Executable>> exe =
      aot::Executable::LoadFromBytes(compiled->bytes);
  ASSERT_TRUE(exe.ok()) << exe.status();
  std::vector<Literal> args;
  args.push_back(Literal(Shape::Array(PrimitiveType::BF16, {2, 4, 7})));
  absl::StatusOr<std::vector<Literal>> run =
      aot::ExecuteOnLiterals(**exe, gpu::testing::HostExecutor(), args);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("no FFI handler 'te_scaled_softmax_forward_ffi'"),
            std::string::npos)
      << run.status();
}

// ---- row normalizations over rows with unit dims ----

// A layer norm's statistics over [3, 1, 1, 37]: rows with unit dims stay
// rows (reduction_kind.h), run on the host and assembled for sm_90. The
// softmax over one head (kOneHeadSoftmax, below) is the other case.
constexpr char kUnitDimRows[] = R"(
HloModule unit_dim_rows
add_f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  z = f32[] constant(0)
  y = f32[3,1,1,37] parameter(0)
  ys = f32[3,1,1] reduce(y, z), dimensions={3}, to_apply=add_f
  n = f32[] constant(37)
  nb = f32[3,1,1] broadcast(n), dimensions={}
  mean = f32[3,1,1] divide(ys, nb)
  meanb = f32[3,1,1,37] broadcast(mean), dimensions={0,1,2}
  c = f32[3,1,1,37] subtract(y, meanb)
  cc = f32[3,1,1,37] multiply(c, c)
  v = f32[3,1,1] reduce(cc, z), dimensions={3}, to_apply=add_f
  ROOT t = (f32[3,1,1,37], f32[3,1,1]) tuple(c, v)
}
)";

// A softmax over one head, the corpus's TE shape with rows of 33 (odd):
// one kernel on both targets (it took 4 while the reduction canonicalizer
// reshaped its reduces to [64, 33] rows, which the row-normalization
// fusion could not join).
constexpr char kOneHeadSoftmax[] = R"(
HloModule one_head_softmax
max_f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add_f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[4,1,16,33] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[4,1,16] reduce(x, ninf), dimensions={3}, to_apply=max_f
  mb = f32[4,1,16,33] broadcast(m), dimensions={0,1,2}
  d = f32[4,1,16,33] subtract(x, mb)
  ex = f32[4,1,16,33] exponential(d)
  z = f32[] constant(0)
  s = f32[4,1,16] reduce(ex, z), dimensions={3}, to_apply=add_f
  sb = f32[4,1,16,33] broadcast(s), dimensions={0,1,2}
  ROOT sm = f32[4,1,16,33] divide(ex, sb)
}
)";

TEST(ExpandedOps, UnitDimRowsHost) { ExpectHostMatchesEvaluator(kUnitDimRows); }

TEST(ExpandedOps, UnitDimRowsSm90) {
  ExpectSm90CompilesWithCubins(kUnitDimRows);
  ExpectSm90CompilesWithCubins(kOneHeadSoftmax);
}

TEST(ExpandedOps, OneHeadSoftmaxIsOneKernelOnBothTargets) {
  for (const char* target : {"host", "sm_90"}) {
    aot::CompileOptions options;
    options.target = target;
    options.opt_level = 1;
    options.host_cpu_variants.clear();
    options.production_date = "2026-12-02T00:00:00Z";
    absl::StatusOr<aot::CompiledArtifact> compiled = aot::Compile(kOneHeadSoftmax, options);
    ASSERT_TRUE(compiled.ok()) << target << ": " << compiled.status();
    EXPECT_EQ(compiled->statistics.kernel_thunks, 1)
        << target << ": " << compiled->statistics.fusion_stats;
  }
  ExpectHostMatchesEvaluator(kOneHeadSoftmax);
}

}  // namespace
}  // namespace xla
