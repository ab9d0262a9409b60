// Tests of the reduce family: reduce (any dims, variadic, order of
// evaluation, trivial-combiner fast path), reduce-window (padding, strides,
// dilations, variadic) and select-and-scatter.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/evaluator/evaluator_test_util.h"

namespace xla {
namespace {

using evaluator_test::ComplexValues;
using evaluator_test::EvalText;
using evaluator_test::IntValues;
using evaluator_test::MakeIntLiteral;
using evaluator_test::MakeLiteral;
using evaluator_test::Values;

Literal Eval(const std::string& hlo, const std::vector<Literal>& args = {}) {
  absl::StatusOr<Literal> r = EvalText(hlo, args);
  EXPECT_TRUE(r.ok()) << r.status() << "\n" << hlo;
  return r.ok() ? std::move(*r) : Literal();
}

Literal Counting(PrimitiveType type, std::vector<int64_t> dims, int64_t first = 0) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<int64_t> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(first + i);
  return MakeIntLiteral(type, dims, v);
}

Literal RandomLiteral(PrimitiveType type, std::vector<int64_t> dims, uint32_t seed, double lo,
                      double hi) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(dist(gen));
  return MakeLiteral(type, dims, v);
}

constexpr char kAddS32[] = R"(
add {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT s = s32[] add(x, y)
}
)";

// acc * 2 + x: not commutative, so the result reveals the order of folding.
constexpr char kTwiceAccPlusX[] = R"(
twice {
  acc = s32[] parameter(0)
  x = s32[] parameter(1)
  two = s32[] constant(2)
  m = s32[] multiply(acc, two)
  ROOT s = s32[] add(m, x)
}
)";

TEST(Reduce, SumsOverAnyDimensions) {
  const std::string hlo = absl::StrCat(kAddS32, R"(
ENTRY e {
  a = s32[3,5] parameter(0)
  z = s32[] constant(0)
  r1 = s32[3] reduce(a, z), dimensions={1}, to_apply=add
  r0 = s32[5] reduce(a, z), dimensions={0}, to_apply=add
  all = s32[] reduce(a, z), dimensions={0,1}, to_apply=add
  none = s32[3,5] reduce(a, z), dimensions={}, to_apply=add
  ROOT t = (s32[3], s32[5], s32[], s32[3,5]) tuple(r1, r0, all, none)
})");
  Literal a = Counting(PrimitiveType::S32, {3, 5});
  Literal r = Eval(hlo, {a});
  const auto& t = r.tuple_elements();
  EXPECT_EQ(IntValues(t[0]), (std::vector<int64_t>{10, 35, 60}));
  EXPECT_EQ(IntValues(t[1]), (std::vector<int64_t>{15, 18, 21, 24, 27}));
  EXPECT_EQ(t[2].GetInt(0), 105);
  EXPECT_EQ(t[3], a);
}

TEST(Reduce, FoldsInRowMajorOrderOfTheReducedIndex) {
  const std::string hlo = absl::StrCat(kTwiceAccPlusX, R"(
ENTRY e {
  a = s32[2,3] parameter(0)
  z = s32[] constant(0)
  all = s32[] reduce(a, z), dimensions={1,0}, to_apply=twice
  cols = s32[3] reduce(a, z), dimensions={0}, to_apply=twice
  ROOT t = (s32[], s32[3]) tuple(all, cols)
})");
  Literal r = Eval(hlo, {Counting(PrimitiveType::S32, {2, 3}, 1)});
  // 1, 2, ..., 6 in row-major order: ((((1*2+2)*2+3)*2+4)*2+5)*2+6.
  EXPECT_EQ(r.tuple_elements()[0].GetInt(0), 120);
  // Column j folds a[0][j] then a[1][j]: (0*2 + a0)*2 + a1.
  EXPECT_EQ(IntValues(r.tuple_elements()[1]), (std::vector<int64_t>{6, 9, 12}));
}

TEST(Reduce, KeepsTheMiddleDimensionOfARank3Input) {
  const std::string hlo = absl::StrCat(kAddS32, R"(
ENTRY e {
  a = s32[2,3,4] parameter(0)
  z = s32[] constant(1000)
  ROOT r = s32[3] reduce(a, z), dimensions={0,2}, to_apply=add
})");
  // r[j] = 1000 + sum_{i,k} (12 i + 4 j + k) = 1000 + 8 * 4 j + 2 * 6 + 4 * 12.
  EXPECT_EQ(IntValues(Eval(hlo, {Counting(PrimitiveType::S32, {2, 3, 4})})),
            (std::vector<int64_t>{1060, 1092, 1124}));
}

TEST(Reduce, EmptyReducedDimensionGivesTheInit) {
  const std::string hlo = absl::StrCat(kAddS32, R"(
ENTRY e {
  a = s32[3,0] parameter(0)
  z = s32[] constant(-4)
  ROOT r = s32[3] reduce(a, z), dimensions={1}, to_apply=add
})");
  EXPECT_EQ(IntValues(Eval(hlo, {Literal(Shape::Array(PrimitiveType::S32, {3, 0}))})),
            (std::vector<int64_t>{-4, -4, -4}));
}

TEST(Reduce, VariadicArgmaxReturnsATuple) {
  const std::string hlo = R"(
argmax {
  mv = f32[] parameter(0)
  mi = s32[] parameter(1)
  v = f32[] parameter(2)
  i = s32[] parameter(3)
  gt = pred[] compare(v, mv), direction=GT
  eq = pred[] compare(v, mv), direction=EQ
  lt = pred[] compare(i, mi), direction=LT
  tie = pred[] and(eq, lt)
  take = pred[] or(gt, tie)
  nv = f32[] select(take, v, mv)
  ni = s32[] select(take, i, mi)
  ROOT r = (f32[], s32[]) tuple(nv, ni)
}

ENTRY e {
  a = f32[2,7] parameter(0)
  idx = s32[2,7] iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  ROOT r = (f32[2], s32[2]) reduce(a, idx, ninf, zero), dimensions={1}, to_apply=argmax
})";
  Literal a = MakeLiteral(PrimitiveType::F32, {2, 7},
                          {3, 9, -1, 9, 2, 0, 8,  //
                           -5, -4, -3, -2, -1, -0.5, -7});
  Literal r = Eval(hlo, {a});
  EXPECT_EQ(Values(r.tuple_elements()[0]), (std::vector<double>{9, -0.5}));
  EXPECT_EQ(IntValues(r.tuple_elements()[1]), (std::vector<int64_t>{1, 5}));
}

// Sequential f32 sum in row-major order, rounded at every step.
float SequentialSum(const Literal& l) {
  float s = 0;
  for (int64_t i = 0; i < l.element_count(); ++i) s += static_cast<float>(l.GetDouble(i));
  return s;
}

double KahanSum(const Literal& l) {
  double sum = 0, c = 0;
  for (int64_t i = 0; i < l.element_count(); ++i) {
    const double y = l.GetDouble(i) - c;
    const double t = sum + y;
    c = (t - sum) - y;
    sum = t;
  }
  return sum;
}

TEST(Reduce, F32SumMatchesSequentialAndKahanSums) {
  const std::string hlo = R"(
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY e {
  a = f32[33,37] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(a, z), dimensions={0,1}, to_apply=add
})";
  for (uint32_t seed : {1u, 2u, 3u}) {
    Literal a = RandomLiteral(PrimitiveType::F32, {33, 37}, seed, -10, 10);
    Literal r = Eval(hlo, {a});
    EXPECT_EQ(static_cast<float>(r.GetDouble(0)), SequentialSum(a)) << seed;
    double abs_sum = 0;
    for (int64_t i = 0; i < a.element_count(); ++i) abs_sum += std::fabs(a.GetDouble(i));
    // Sequential f32 summation error is at most (n - 1) * eps * sum |x|.
    EXPECT_NEAR(r.GetDouble(0), KahanSum(a), 1221 * 6e-8 * abs_sum) << seed;
  }
}

// The fast path for a root add/max/... of the parameters must round exactly
// like calling the computation: compare against a reducer the fast path does
// not recognize (the same op, then a no-op copy).
TEST(Reduce, TrivialCombinerFastPathMatchesCallingTheComputation) {
  for (const char* op : {"add", "multiply", "maximum", "minimum"}) {
    const std::string hlo = absl::StrCat(R"(
fast {
  x = bf16[] parameter(0)
  y = bf16[] parameter(1)
  ROOT s = bf16[] )", op, R"((y, x)
}

slow {
  x = bf16[] parameter(0)
  y = bf16[] parameter(1)
  s = bf16[] )", op, R"((y, x)
  ROOT c = bf16[] copy(s)
}

ENTRY e {
  a = bf16[5,41] parameter(0)
  one = bf16[] constant(1)
  f = bf16[5] reduce(a, one), dimensions={1}, to_apply=fast
  s = bf16[5] reduce(a, one), dimensions={1}, to_apply=slow
  ROOT t = (bf16[5], bf16[5]) tuple(f, s)
})");
    Literal a = RandomLiteral(PrimitiveType::BF16, {5, 41}, 7, 0.5, 1.5);
    a.SetDouble(3, std::nan(""));
    Literal r = Eval(hlo, {a});
    EXPECT_EQ(r.tuple_elements()[0], r.tuple_elements()[1]) << op;
  }
}

TEST(Reduce, MixedPrecisionReducerConvertsArguments) {
  const std::string hlo = R"(
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY e {
  a = bf16[4] constant({256, 1, 1, 1})
  z = bf16[] constant(0)
  ROOT r = bf16[] reduce(a, z), dimensions={0}, to_apply=add
})";
  // Each step rounds back to bf16: 256 + 1 = 257 ties to 256.
  EXPECT_EQ(Eval(hlo).GetDouble(0), 256.0);
}

constexpr char kAddF32[] = R"(
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
)";

std::string ReduceWindow1D(int64_t out, const std::string& window) {
  return absl::StrCat(kAddF32, R"(
ENTRY e {
  a = f32[5] constant({1, 2, 3, 4, 5})
  z = f32[] constant(0)
  ROOT r = f32[)", out, "] reduce-window(a, z), window={", window, "}, to_apply=add\n}\n");
}

TEST(ReduceWindow, PaddingStridesAndDilations) {
  EXPECT_EQ(Values(Eval(ReduceWindow1D(4, "size=2"))), (std::vector<double>{3, 5, 7, 9}));
  EXPECT_EQ(Values(Eval(ReduceWindow1D(6, "size=2 pad=1_1"))),
            (std::vector<double>{1, 3, 5, 7, 9, 5}));
  EXPECT_EQ(Values(Eval(ReduceWindow1D(2, "size=2 stride=2"))), (std::vector<double>{3, 7}));
  // Base dilation 2: 1 _ 2 _ 3 _ 4 _ 5; windows of 3.
  EXPECT_EQ(Values(Eval(ReduceWindow1D(7, "size=3 lhs_dilate=2"))),
            (std::vector<double>{3, 2, 5, 3, 7, 4, 9}));
  // Window dilation 2: pairs (0,2), (1,3), (2,4).
  EXPECT_EQ(Values(Eval(ReduceWindow1D(3, "size=2 rhs_dilate=2"))),
            (std::vector<double>{4, 6, 8}));
  // Negative padding crops.
  EXPECT_EQ(Values(Eval(ReduceWindow1D(2, "size=2 pad=-1_-1"))), (std::vector<double>{5, 7}));
}

TEST(ReduceWindow, TwoDimensionalMaxPool) {
  const std::string hlo = R"(
max {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT m = s32[] maximum(x, y)
}

ENTRY e {
  a = s32[3,5] parameter(0)
  lo = s32[] constant(-2147483648)
  ROOT r = s32[2,2] reduce-window(a, lo), window={size=2x2 stride=1x2}, to_apply=max
})";
  EXPECT_EQ(IntValues(Eval(hlo, {Counting(PrimitiveType::S32, {3, 5})})),
            (std::vector<int64_t>{6, 8, 11, 13}));
}

TEST(ReduceWindow, VariadicSumAndMax) {
  const std::string hlo = R"(
summax {
  s = s32[] parameter(0)
  m = s32[] parameter(1)
  x = s32[] parameter(2)
  y = s32[] parameter(3)
  ns = s32[] add(s, x)
  nm = s32[] maximum(m, y)
  ROOT r = (s32[], s32[]) tuple(ns, nm)
}

ENTRY e {
  a = s32[6] constant({4, -1, 7, 2, 0, 5})
  b = s32[6] constant({1, 8, 3, 6, 2, 9})
  z = s32[] constant(0)
  lo = s32[] constant(-100)
  ROOT r = (s32[2], s32[2]) reduce-window(a, b, z, lo), window={size=3 stride=3}, to_apply=summax
})";
  Literal r = Eval(hlo);
  EXPECT_EQ(IntValues(r.tuple_elements()[0]), (std::vector<int64_t>{10, 7}));
  EXPECT_EQ(IntValues(r.tuple_elements()[1]), (std::vector<int64_t>{8, 9}));
}

TEST(ReduceWindow, OneByOneWindowIsTheIdentity) {
  const std::string hlo = absl::StrCat(kAddF32, R"(
ENTRY e {
  a = f32[7,33] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[7,33] reduce-window(a, z), window={size=1x1}, to_apply=add
})");
  Literal a = RandomLiteral(PrimitiveType::F32, {7, 33}, 11, -1e3, 1e3);
  EXPECT_EQ(Eval(hlo, {a}), a);
}

// Padding and base dilation are the same as reducing an explicitly padded
// input (pad with the init value, interior padding for the dilation).
TEST(ReduceWindow, PaddingAndBaseDilationEqualAnExplicitPad) {
  const std::string hlo = R"(
add {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT s = s32[] add(x, y)
}

ENTRY e {
  a = s32[5,7] parameter(0)
  z = s32[] constant(0)
  w = s32[5,3] reduce-window(a, z),
    window={size=3x2 stride=2x3 pad=1_2x2_0 lhs_dilate=2x1 rhs_dilate=1x2}, to_apply=add
  p = s32[12,9] pad(a, z), padding=1_2_1x2_0_0
  v = s32[5,3] reduce-window(p, z), window={size=3x2 stride=2x3 rhs_dilate=1x2}, to_apply=add
  ROOT t = (s32[5,3], s32[5,3]) tuple(w, v)
})";
  std::vector<int64_t> values;
  std::mt19937 gen(3);
  for (int i = 0; i < 35; ++i) values.push_back(static_cast<int64_t>(gen() % 2001) - 1000);
  Literal r = Eval(hlo, {MakeIntLiteral(PrimitiveType::S32, {5, 7}, values)});
  EXPECT_EQ(r.tuple_elements()[0], r.tuple_elements()[1]);
  // Spot check: output (0,0) covers padded rows 0..2 (pad, a[0], hole) and
  // columns 0 and 2 (pad, a[.][0]).
  EXPECT_EQ(r.tuple_elements()[0].GetInt(0), values[0]);
}

constexpr char kSelectScatterComputations[] = R"(
ge {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT c = pred[] compare(x, y), direction=GE
}

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
)";

TEST(SelectAndScatter, MaxPoolGradient) {
  const std::string hlo = absl::StrCat(kSelectScatterComputations, R"(
ENTRY e {
  a = f32[6] constant({1, 5, 3, 3, 2, 6})
  s = f32[3] constant({10, 20, 30})
  z = f32[] constant(0)
  ROOT r = f32[6] select-and-scatter(a, s, z), window={size=2 stride=2}, select=ge, scatter=add
})");
  // The tie [3, 3] keeps the first element (GE holds).
  EXPECT_EQ(Values(Eval(hlo)), (std::vector<double>{0, 10, 20, 0, 0, 30}));
}

TEST(SelectAndScatter, OverlappingWindowsAccumulateAndPaddingIsSkipped) {
  const std::string hlo = absl::StrCat(kSelectScatterComputations, R"(
ENTRY e {
  a = f32[3] constant({1, 9, 2})
  s = f32[4] constant({1, 2, 4, 8})
  z = f32[] constant(0.5)
  ROOT r = f32[3] select-and-scatter(a, s, z), window={size=2 pad=1_1}, select=ge, scatter=add
})");
  // Windows: [pad,1] -> 0; [1,9] -> 1; [9,2] -> 1; [2,pad] -> 2.
  EXPECT_EQ(Values(Eval(hlo)), (std::vector<double>{1.5, 6.5, 8.5}));
}

TEST(SelectAndScatter, TwoDimensional) {
  const std::string hlo = absl::StrCat(kSelectScatterComputations, R"(
ENTRY e {
  a = f32[4,4] constant({{1, 2, 3, 4}, {8, 7, 6, 5}, {9, 1, 1, 0}, {1, 1, 3, 2}})
  s = f32[2,2] constant({{1, 2}, {3, 4}})
  z = f32[] constant(0)
  ROOT r = f32[4,4] select-and-scatter(a, s, z), window={size=2x2 stride=2x2}, select=ge,
    scatter=add
})");
  EXPECT_EQ(Values(Eval(hlo)), (std::vector<double>{0, 0, 0, 0,  //
                                                   1, 0, 2, 0,  //
                                                   3, 0, 0, 0,  //
                                                   0, 0, 4, 0}));
}

// The compare fast path (plain and swapped parameters) and the trivial
// scatter agree with computations that must be called.
TEST(SelectAndScatter, FastPathsMatchCalledComputations) {
  const std::string hlo = R"(
ge {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT c = pred[] compare(x, y), direction=GE
}

le_swapped {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT c = pred[] compare(y, x), direction=LE
}

not_lt {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  c = pred[] compare(x, y), direction=LT
  ROOT n = pred[] not(c)
}

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

add_copy {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  s = f32[] add(x, y)
  ROOT c = f32[] copy(s)
}

ENTRY e {
  a = f32[5,7] parameter(0)
  s = f32[4,3] parameter(1)
  z = f32[] constant(0)
  r0 = f32[5,7] select-and-scatter(a, s, z), window={size=2x3 stride=1x2}, select=ge, scatter=add
  r1 = f32[5,7] select-and-scatter(a, s, z), window={size=2x3 stride=1x2}, select=le_swapped,
    scatter=add
  r2 = f32[5,7] select-and-scatter(a, s, z), window={size=2x3 stride=1x2}, select=not_lt,
    scatter=add_copy
  ROOT t = (f32[5,7], f32[5,7], f32[5,7]) tuple(r0, r1, r2)
})";
  std::mt19937 gen(9);
  std::vector<double> a, s;
  for (int i = 0; i < 35; ++i) a.push_back(static_cast<double>(gen() % 4));  // many ties
  for (int i = 0; i < 12; ++i) s.push_back(1.0 + i);
  Literal r = Eval(hlo, {MakeLiteral(PrimitiveType::F32, {5, 7}, a),
                         MakeLiteral(PrimitiveType::F32, {4, 3}, s)});
  EXPECT_EQ(r.tuple_elements()[0], r.tuple_elements()[1]);
  EXPECT_EQ(r.tuple_elements()[0], r.tuple_elements()[2]);
  double total = 0;
  for (double v : Values(r.tuple_elements()[0])) total += v;
  EXPECT_EQ(total, 78.0);  // every source value lands once
}

// Complex reduce-window and reduce, by hand. A 2x2 window with one padding
// row above: (1+i) + 2 = 3+i, 2 + 3i; (1+i) + 2 + (-1+2i) + (1-i) = 3+2i,
// 2 + 3i + (1-i) + (4+4i) = 7+6i. Row products: (1+i) 2 (3i) = -6+6i,
// (-1+2i)(1-i)(4+4i) = -8+16i. A cumulative product (JAX's cumprod):
// 2+i, -1+7i, 5+15i.
TEST(ReduceWindow, ComplexAddProductAndCumulativeProduct) {
  const Literal r = Eval(R"(
add {
  a = c64[] parameter(0)
  b = c64[] parameter(1)
  ROOT s = c64[] add(a, b)
}
mul {
  a = c64[] parameter(0)
  b = c64[] parameter(1)
  ROOT m = c64[] multiply(a, b)
}
ENTRY e {
  y = c64[2,3] constant({{(1, 1), (2, 0), (0, 3)}, {(-1, 2), (1, -1), (4, 4)}})
  zero = c64[] constant((0, 0))
  one = c64[] constant((1, 0))
  rw = c64[2,2] reduce-window(y, zero), window={size=2x2 pad=1_0x0_0}, to_apply=add
  p = c64[2] reduce(y, one), dimensions={1}, to_apply=mul
  x = c64[3] constant({(2, 1), (1, 3), (2, -1)})
  cp = c64[3] reduce-window(x, one), window={size=3 pad=2_0}, to_apply=mul
  ROOT t = (c64[2,2], c64[2], c64[3]) tuple(rw, p, cp)
})");
  ASSERT_EQ(r.tuple_elements().size(), 3u);
  EXPECT_EQ(ComplexValues(r.tuple_elements()[0]), (std::vector<double>{3, 1, 2, 3, 3, 2, 7, 6}));
  EXPECT_EQ(ComplexValues(r.tuple_elements()[1]), (std::vector<double>{-6, 6, -8, 16}));
  EXPECT_EQ(ComplexValues(r.tuple_elements()[2]), (std::vector<double>{2, 1, -1, 7, 5, 15}));
}

// A complex source onto a real operand: the result has the operand's type
// and holds the real part of init + the selected sources (hand-computed:
// windows [1, 5] and [3, 2] select 5 and 3).
TEST(SelectAndScatter, ComplexSourceOntoARealOperandKeepsTheRealPart) {
  const std::string hlo = absl::StrCat(kSelectScatterComputations, R"(
cadd {
  x = c64[] parameter(0)
  y = c64[] parameter(1)
  ROOT s = c64[] add(x, y)
}
ENTRY e {
  a = f32[4] constant({1, 5, 3, 2})
  s = c64[2] constant({(1, 2), (3, 4)})
  z = c64[] constant((10, 7))
  ROOT r = f32[4] select-and-scatter(a, s, z), window={size=2 stride=2}, select=ge, scatter=cadd
})");
  EXPECT_EQ(Values(Eval(hlo)), (std::vector<double>{10, 11, 13, 10}));
}

}  // namespace
}  // namespace xla
