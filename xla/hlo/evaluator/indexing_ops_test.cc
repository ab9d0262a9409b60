// Tests of gather, scatter, sort and topk in the evaluator, on hand-computed
// examples. Scatter tests with an `add` combiner and all sort tests call
// elementwise ops (add, compare) from the combiner / comparator.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/hlo/evaluator/evaluator_test_util.h"

namespace xla {
namespace {

using evaluator_test::ComplexValues;
using evaluator_test::EvalText;
using evaluator_test::IntValues;
using evaluator_test::MakeIntLiteral;
using evaluator_test::MakeLiteral;
using evaluator_test::Tuple;
using evaluator_test::Values;

Literal Eval(const std::string& hlo, const std::vector<Literal>& args) {
  absl::StatusOr<Literal> r = EvalText(hlo, args);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? std::move(*r) : Literal();
}

// 1, 2, 3, ... as `type` with `dims`.
Literal Iota1(PrimitiveType type, std::vector<int64_t> dims) {
  Literal l(Shape::Array(type, dims));
  for (int64_t i = 0; i < l.element_count(); ++i) l.SetInt(i, i + 1);
  return l;
}

// ----------------------------------------------------------------- gather

TEST(GatherTest, RowsOfAMatrix) {
  const Literal r = Eval(R"(
ENTRY e {
  op = s32[3,4] parameter(0)
  idx = s32[2] parameter(1)
  ROOT g = s32[2,4] gather(op, idx), offset_dims={1}, collapsed_slice_dims={0},
      start_index_map={0}, index_vector_dim=1, slice_sizes={1,4}
})", {Iota1(PrimitiveType::S32, {3, 4}), MakeIntLiteral(PrimitiveType::S32, {2}, {2, 0})});
  EXPECT_EQ(IntValues(r), (std::vector<int64_t>{9, 10, 11, 12, 1, 2, 3, 4}));
}

TEST(GatherTest, StartIndicesAreClamped) {
  const Literal r = Eval(R"(
ENTRY e {
  op = f32[5] parameter(0)
  idx = s32[3,1] parameter(1)
  ROOT g = f32[3,3] gather(op, idx), offset_dims={1}, collapsed_slice_dims={},
      start_index_map={0}, index_vector_dim=1, slice_sizes={3}
})", {MakeLiteral(PrimitiveType::F32, {5}, {0.5, 1.5, 2.5, 3.5, 4.5}),
      MakeIntLiteral(PrimitiveType::S32, {3, 1}, {-3, 2, 4})});
  // Starts -3, 2, 4 clamp to 0, 2, 2 (the largest start that fits 3 of 5).
  EXPECT_EQ(Values(r), (std::vector<double>{0.5, 1.5, 2.5, 2.5, 3.5, 4.5, 2.5, 3.5, 4.5}));
}

TEST(GatherTest, HugeUnsignedIndexClampsHigh) {
  const Literal r = Eval(R"(
ENTRY e {
  op = s16[4] parameter(0)
  idx = u64[2,1] parameter(1)
  ROOT g = s16[2,2] gather(op, idx), offset_dims={1}, collapsed_slice_dims={},
      start_index_map={0}, index_vector_dim=1, slice_sizes={2}
})", {MakeIntLiteral(PrimitiveType::S16, {4}, {-7, 8, -9, 10}),
      MakeIntLiteral(PrimitiveType::U64, {2, 1},
                     {std::numeric_limits<int64_t>::min() + 5, 1})});
  EXPECT_EQ(IntValues(r), (std::vector<int64_t>{-9, 10, 8, -9}));
}

TEST(GatherTest, IndexVectorDimFirstAndTwoDimensionalWindows) {
  // Index vectors are the columns of idx: (1, 3) and (0, 9 -> clamped to 3).
  const Literal r = Eval(R"(
ENTRY e {
  op = s32[3,5] parameter(0)
  idx = s32[2,2] parameter(1)
  ROOT g = s32[2,2,2] gather(op, idx), offset_dims={1,2}, collapsed_slice_dims={},
      start_index_map={0,1}, index_vector_dim=0, slice_sizes={2,2}
})", {Iota1(PrimitiveType::S32, {3, 5}), MakeIntLiteral(PrimitiveType::S32, {2, 2}, {1, 0, 3, 9})});
  // Window at (1,3): 9 10 / 14 15. Window at (0,3): 4 5 / 9 10.
  EXPECT_EQ(IntValues(r), (std::vector<int64_t>{9, 10, 14, 15, 4, 5, 9, 10}));
}

TEST(GatherTest, OffsetDimBeforeBatchDim) {
  // Columns 2, 0, 1 of a 4x3 matrix; the window (rows) is output dim 0.
  const Literal r = Eval(R"(
ENTRY e {
  op = s32[4,3] parameter(0)
  idx = s32[3] parameter(1)
  ROOT g = s32[4,3] gather(op, idx), offset_dims={0}, collapsed_slice_dims={1},
      start_index_map={1}, index_vector_dim=1, slice_sizes={4,1}
})", {Iota1(PrimitiveType::S32, {4, 3}), MakeIntLiteral(PrimitiveType::S32, {3}, {2, 0, 1})});
  EXPECT_EQ(IntValues(r),
            (std::vector<int64_t>{3, 1, 2, 6, 4, 5, 9, 7, 8, 12, 10, 11}));
}

TEST(GatherTest, BatchingDims) {
  // out[b, p, :] = op[b, idx[b, p], :].
  const Literal r = Eval(R"(
ENTRY e {
  op = s32[2,3,2] parameter(0)
  idx = s32[2,2] parameter(1)
  ROOT g = s32[2,2,2] gather(op, idx), offset_dims={2}, collapsed_slice_dims={1},
      start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0},
      index_vector_dim=2, slice_sizes={1,1,2}
})", {Iota1(PrimitiveType::S32, {2, 3, 2}), MakeIntLiteral(PrimitiveType::S32, {2, 2}, {2, 0, 1, 7})});
  // Batch 0 rows 2, 0: (5,6) (1,2). Batch 1 rows 1, 7->2: (9,10) (11,12).
  EXPECT_EQ(IntValues(r), (std::vector<int64_t>{5, 6, 1, 2, 9, 10, 11, 12}));
}

TEST(GatherTest, BatchingDimsNotLeading) {
  // indices [p=3, b=2] with batching dim 1 paired with operand dim 1.
  const Literal r = Eval(R"(
ENTRY e {
  op = s32[4,2] parameter(0)
  idx = s32[3,2] parameter(1)
  ROOT g = s32[3,2] gather(op, idx), offset_dims={}, collapsed_slice_dims={0},
      start_index_map={0}, operand_batching_dims={1}, start_indices_batching_dims={1},
      index_vector_dim=2, slice_sizes={1,1}
})", {Iota1(PrimitiveType::S32, {4, 2}), MakeIntLiteral(PrimitiveType::S32, {3, 2}, {0, 3, 1, 2, 3, 0})});
  // out[p, b] = op[idx[p, b], b].
  EXPECT_EQ(IntValues(r), (std::vector<int64_t>{1, 8, 3, 6, 7, 2}));
}

TEST(GatherTest, BadAttributesAreErrors) {
  absl::StatusOr<Literal> r = EvalText(R"(
ENTRY e {
  op = s32[3,4] parameter(0)
  idx = s32[2] parameter(1)
  ROOT g = s32[2,4] gather(op, idx), offset_dims={1}, collapsed_slice_dims={0},
      start_index_map={5}, index_vector_dim=1, slice_sizes={1,4}
})", {Iota1(PrimitiveType::S32, {3, 4}), MakeIntLiteral(PrimitiveType::S32, {2}, {2, 0})});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "gather 'g'")) << r.status();
}

// ---------------------------------------------------------------- scatter

constexpr char kOverwriteS32[] = R"(
overwrite {
  a = s32[] parameter(0)
  ROOT b = s32[] parameter(1)
}
)";

constexpr char kAddS32[] = R"(
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
)";

TEST(ScatterTest, OverwriteRows) {
  const Literal r = Eval(std::string(kOverwriteS32) + R"(
ENTRY e {
  op = s32[3,4] parameter(0)
  idx = s32[2] parameter(1)
  upd = s32[2,4] parameter(2)
  ROOT s = s32[3,4] scatter(op, idx, upd), update_window_dims={1},
      inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1,
      to_apply=overwrite
})", {Iota1(PrimitiveType::S32, {3, 4}), MakeIntLiteral(PrimitiveType::S32, {2}, {2, 0}),
      MakeIntLiteral(PrimitiveType::S32, {2, 4}, {-1, -2, -3, -4, -5, -6, -7, -8})});
  EXPECT_EQ(IntValues(r), (std::vector<int64_t>{-5, -6, -7, -8, 5, 6, 7, 8, -1, -2, -3, -4}));
}

TEST(ScatterTest, OutOfBoundsWindowsAreSkippedWhole) {
  // Windows of 2 into 5 elements at starts -1 (skip), 3 (fits), 4 (half out:
  // skip entirely), 1 (fits).
  const Literal r = Eval(std::string(kOverwriteS32) + R"(
ENTRY e {
  op = s32[5] parameter(0)
  idx = s32[4,1] parameter(1)
  upd = s32[4,2] parameter(2)
  ROOT s = s32[5] scatter(op, idx, upd), update_window_dims={1},
      inserted_window_dims={}, scatter_dims_to_operand_dims={0}, index_vector_dim=1,
      to_apply=overwrite
})", {Iota1(PrimitiveType::S32, {5}), MakeIntLiteral(PrimitiveType::S32, {4, 1}, {-1, 3, 4, 1}),
      MakeIntLiteral(PrimitiveType::S32, {4, 2}, {10, 11, 20, 21, 30, 31, 40, 41})});
  EXPECT_EQ(IntValues(r), (std::vector<int64_t>{1, 40, 41, 20, 21}));
}

TEST(ScatterTest, DuplicateIndicesApplyInUpdateOrder) {
  const Literal overwrite = Eval(std::string(kOverwriteS32) + R"(
ENTRY e {
  op = s32[3] parameter(0)
  idx = s32[3] parameter(1)
  upd = s32[3] parameter(2)
  ROOT s = s32[3] scatter(op, idx, upd), update_window_dims={}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=overwrite
})", {Iota1(PrimitiveType::S32, {3}), MakeIntLiteral(PrimitiveType::S32, {3}, {0, 2, 0}),
      MakeIntLiteral(PrimitiveType::S32, {3}, {10, 20, 30})});
  EXPECT_EQ(IntValues(overwrite), (std::vector<int64_t>{30, 2, 20}));
}

TEST(ScatterTest, RowMajorUpdateOrderWhenWindowDimsComeFirst) {
  // updates [w=2, s=2]; scatter index s starts at s, so operand element 1 is
  // hit by (w=0, s=1) and then, in row-major update order, by (w=1, s=0).
  const Literal r = Eval(std::string(kOverwriteS32) + R"(
ENTRY e {
  op = s32[3] parameter(0)
  idx = s32[2] parameter(1)
  upd = s32[2,2] parameter(2)
  ROOT s = s32[3] scatter(op, idx, upd), update_window_dims={0}, inserted_window_dims={},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=overwrite
})", {Iota1(PrimitiveType::S32, {3}), MakeIntLiteral(PrimitiveType::S32, {2}, {0, 1}),
      MakeIntLiteral(PrimitiveType::S32, {2, 2}, {100, 101, 110, 111})});
  // upd[w][s]: (0,0)=100 -> 0, (0,1)=101 -> 1, (1,0)=110 -> 1, (1,1)=111 -> 2.
  EXPECT_EQ(IntValues(r), (std::vector<int64_t>{100, 110, 111}));
}

TEST(ScatterTest, BatchingDims) {
  // op[b, idx[b]] = upd[b].
  const Literal r = Eval(std::string(kOverwriteS32) + R"(
ENTRY e {
  op = s32[2,3] parameter(0)
  idx = s32[2] parameter(1)
  upd = s32[2] parameter(2)
  ROOT s = s32[2,3] scatter(op, idx, upd), update_window_dims={}, inserted_window_dims={1},
      input_batching_dims={0}, scatter_indices_batching_dims={0},
      scatter_dims_to_operand_dims={1}, index_vector_dim=1, to_apply=overwrite
})", {Iota1(PrimitiveType::S32, {2, 3}), MakeIntLiteral(PrimitiveType::S32, {2}, {2, 0}),
      MakeIntLiteral(PrimitiveType::S32, {2}, {-1, -2})});
  EXPECT_EQ(IntValues(r), (std::vector<int64_t>{1, 2, -1, -2, 5, 6}));
}

TEST(ScatterTest, VariadicOverwriteReturnsTuple) {
  const Literal r = Eval(R"(
both {
  a0 = f32[] parameter(0)
  a1 = s8[] parameter(1)
  u0 = f32[] parameter(2)
  u1 = s8[] parameter(3)
  ROOT t = (f32[], s8[]) tuple(u0, u1)
}
ENTRY e {
  op0 = f32[4] parameter(0)
  op1 = s8[4] parameter(1)
  idx = s32[2] parameter(2)
  upd0 = f32[2] parameter(3)
  upd1 = s8[2] parameter(4)
  ROOT s = (f32[4], s8[4]) scatter(op0, op1, idx, upd0, upd1), update_window_dims={},
      inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1,
      to_apply=both
})", {MakeLiteral(PrimitiveType::F32, {4}, {0.5, 1.5, 2.5, 3.5}),
      MakeIntLiteral(PrimitiveType::S8, {4}, {1, 2, 3, 4}),
      MakeIntLiteral(PrimitiveType::S32, {2}, {3, 1}),
      MakeLiteral(PrimitiveType::F32, {2}, {-0.25, -8}),
      MakeIntLiteral(PrimitiveType::S8, {2}, {-128, 127})});
  ASSERT_EQ(r.tuple_elements().size(), 2u);
  EXPECT_EQ(Values(r.tuple_elements()[0]), (std::vector<double>{0.5, -8, 2.5, -0.25}));
  EXPECT_EQ(IntValues(r.tuple_elements()[1]), (std::vector<int64_t>{1, 127, 3, -128}));
}

// Needs the elementwise `add`.
TEST(ScatterTest, AddCombinerAccumulatesDuplicates) {
  const Literal r = Eval(std::string(kAddS32) + R"(
ENTRY e {
  op = s32[3] parameter(0)
  idx = s32[4,1] parameter(1)
  upd = s32[4] parameter(2)
  ROOT s = s32[3] scatter(op, idx, upd), update_window_dims={}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
})", {Iota1(PrimitiveType::S32, {3}), MakeIntLiteral(PrimitiveType::S32, {4, 1}, {0, 2, 0, 0}),
      MakeIntLiteral(PrimitiveType::S32, {4}, {10, 20, 30, 40})});
  EXPECT_EQ(IntValues(r), (std::vector<int64_t>{81, 2, 23}));
}

// Complex multiply combiner, a duplicate index: x[1] * i * (2 + i), by
// hand (1 + 3i) i = -3 + i, (-3 + i)(2 + i) = -7 - i; (1 - 2i)(0.5 - 2i) = -3.5 - 3i.
TEST(ScatterTest, ComplexMultiplyCombiner) {
  const Literal r = Eval(R"(
mul {
  a = c64[] parameter(0)
  b = c64[] parameter(1)
  ROOT m = c64[] multiply(a, b)
}
ENTRY e {
  x = c64[4] constant({(2, 1), (1, 3), (2, -1), (1, -2)})
  i = s32[3,1] constant({{1}, {3}, {1}})
  u = c64[3] constant({(0, 1), (0.5, -2), (2, 1)})
  ROOT s = c64[4] scatter(x, i, u), update_window_dims={}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=mul
})", {});
  EXPECT_EQ(ComplexValues(r), (std::vector<double>{2, 1, -7, -1, 2, -1, -3.5, -3}));
}

TEST(ScatterTest, MismatchedUpdatesAreErrors) {
  absl::StatusOr<Literal> r = EvalText(std::string(kOverwriteS32) + R"(
ENTRY e {
  op = s32[3] parameter(0)
  idx = s32[2] parameter(1)
  upd = s32[3] parameter(2)
  ROOT s = s32[3] scatter(op, idx, upd), update_window_dims={}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=overwrite
})", {Iota1(PrimitiveType::S32, {3}), MakeIntLiteral(PrimitiveType::S32, {2}, {0, 1}),
      Iota1(PrimitiveType::S32, {3})});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "scatter 's'")) << r.status();
}

// ------------------------------------------------------------------- sort
// Every sort test calls `compare` in its comparator.

TEST(SortTest, OneOperandAlongLastDim) {
  const Literal r = Eval(R"(
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = f32[2,5] parameter(0)
  ROOT s = f32[2,5] sort(x), dimensions={1}, to_apply=lt
})", {MakeLiteral(PrimitiveType::F32, {2, 5}, {3, -1, 2.5, 7, 0, 9, 8, -7, 6, 5})});
  EXPECT_EQ(Values(r), (std::vector<double>{-1, 0, 2.5, 3, 7, -7, 5, 6, 8, 9}));
}

TEST(SortTest, AlongFirstDimDescending) {
  const Literal r = Eval(R"(
gt {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=GT
}
ENTRY e {
  x = s32[3,2] parameter(0)
  ROOT s = s32[3,2] sort(x), dimensions={0}, to_apply=gt
})", {MakeIntLiteral(PrimitiveType::S32, {3, 2}, {1, 6, 3, 4, 2, 5})});
  EXPECT_EQ(IntValues(r), (std::vector<int64_t>{3, 6, 2, 5, 1, 4}));
}

TEST(SortTest, KeysAndValuesStableOnTies) {
  const Literal r = Eval(R"(
by_key {
  k0 = s32[] parameter(0)
  k1 = s32[] parameter(1)
  v0 = f32[] parameter(2)
  v1 = f32[] parameter(3)
  ROOT r = pred[] compare(k0, k1), direction=LT
}
ENTRY e {
  k = s32[7] parameter(0)
  v = f32[7] parameter(1)
  ROOT s = (s32[7], f32[7]) sort(k, v), dimensions={0}, is_stable=true, to_apply=by_key
})", {MakeIntLiteral(PrimitiveType::S32, {7}, {3, 1, 3, 2, 1, 3, 0}),
      MakeLiteral(PrimitiveType::F32, {7}, {0, 1, 2, 3, 4, 5, 6})});
  ASSERT_EQ(r.tuple_elements().size(), 2u);
  EXPECT_EQ(IntValues(r.tuple_elements()[0]), (std::vector<int64_t>{0, 1, 1, 2, 3, 3, 3}));
  EXPECT_EQ(Values(r.tuple_elements()[1]), (std::vector<double>{6, 1, 4, 3, 0, 2, 5}));
}

// JAX's complex order: by real part, ties by imaginary part (the
// comparator JAX writes for jnp.sort on c64, shortened).
TEST(SortTest, ComplexLexicographicWithRealTies) {
  const Literal r = Eval(R"(
lt {
  a = c128[] parameter(0)
  b = c128[] parameter(1)
  ar = f64[] real(a)
  br = f64[] real(b)
  ai = f64[] imag(a)
  bi = f64[] imag(b)
  l1 = pred[] compare(ar, br), direction=LT
  e1 = pred[] compare(ar, br), direction=EQ
  l2 = pred[] compare(ai, bi), direction=LT
  a2 = pred[] and(e1, l2)
  ROOT o = pred[] or(l1, a2)
}
ENTRY e {
  x = c128[5] constant({(2, 1), (1, 3), (2, -1), (1, -2), (0.5, 4)})
  ROOT s = c128[5] sort(x), dimensions={0}, is_stable=true, to_apply=lt
})", {});
  EXPECT_EQ(ComplexValues(r), (std::vector<double>{0.5, 4, 1, -2, 1, 3, 2, -1, 2, 1}));
}

TEST(SortTest, ComparatorOnSecondOperand) {
  // Sort three operands by the middle one, descending.
  const Literal r = Eval(R"(
cmp {
  a0 = u8[] parameter(0)
  a1 = u8[] parameter(1)
  b0 = s64[] parameter(2)
  b1 = s64[] parameter(3)
  c0 = pred[] parameter(4)
  c1 = pred[] parameter(5)
  ROOT r = pred[] compare(b0, b1), direction=GT
}
ENTRY e {
  a = u8[4] parameter(0)
  b = s64[4] parameter(1)
  c = pred[4] parameter(2)
  ROOT s = (u8[4], s64[4], pred[4]) sort(a, b, c), dimensions={0}, to_apply=cmp
})", {MakeIntLiteral(PrimitiveType::U8, {4}, {10, 20, 30, 40}),
      MakeIntLiteral(PrimitiveType::S64, {4}, {-5, 7, 0, 7}),
      MakeIntLiteral(PrimitiveType::PRED, {4}, {1, 0, 0, 1})});
  EXPECT_EQ(IntValues(r.tuple_elements()[0]), (std::vector<int64_t>{20, 40, 30, 10}));
  EXPECT_EQ(IntValues(r.tuple_elements()[1]), (std::vector<int64_t>{7, 7, 0, -5}));
  EXPECT_EQ(IntValues(r.tuple_elements()[2]), (std::vector<int64_t>{0, 1, 0, 1}));
}

TEST(SortTest, Sorts33RandomishValuesLikeStdSort) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < 33; ++i) v.push_back((i * 37 + 11) % 29 - 14);
  const Literal r = Eval(R"(
lt {
  a = s16[] parameter(0)
  b = s16[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = s16[33] parameter(0)
  ROOT s = s16[33] sort(x), dimensions={0}, to_apply=lt
})", {MakeIntLiteral(PrimitiveType::S16, {33}, v)});
  std::sort(v.begin(), v.end());
  EXPECT_EQ(IntValues(r), v);
}

// ------------------------------------------------------------------- topk

TEST(TopKTest, LargestWithTiesAndNaN) {
  const double nan = std::nan("");
  const Literal r = Eval(R"(
ENTRY e {
  x = f32[2,6] parameter(0)
  ROOT t = (f32[2,3], s32[2,3]) topk(x), k=3, largest=true
})", {MakeLiteral(PrimitiveType::F32, {2, 6}, {1, 5, -2, 5, 0, 3, -1, nan, 4, -0.0, 0, 4})});
  const std::vector<double> values = Values(r.tuple_elements()[0]);
  EXPECT_EQ(values[0], 5);
  EXPECT_EQ(values[1], 5);
  EXPECT_EQ(values[2], 3);
  EXPECT_TRUE(std::isnan(values[3]));
  EXPECT_EQ(values[4], 4);
  EXPECT_EQ(values[5], 4);
  EXPECT_EQ(IntValues(r.tuple_elements()[1]), (std::vector<int64_t>{1, 3, 5, 1, 2, 5}));
}

TEST(TopKTest, Smallest) {
  const Literal r = Eval(R"(
ENTRY e {
  x = s32[7] parameter(0)
  ROOT t = (s32[2], s32[2]) topk(x), k=2, largest=false
})", {MakeIntLiteral(PrimitiveType::S32, {7}, {4, -3, 8, -3, 0, 9, 1})});
  EXPECT_EQ(IntValues(r.tuple_elements()[0]), (std::vector<int64_t>{-3, -3}));
  EXPECT_EQ(IntValues(r.tuple_elements()[1]), (std::vector<int64_t>{1, 3}));
}

// XLA's TopK custom call: the comparator decides the order (here a
// TOTALORDER GT as JAX emits, so NaN ranks first and ties keep the lower
// index), k is the result's minor size.
TEST(TopKTest, CustomCallSortsByItsComparator) {
  const double nan = std::nan("");
  const Literal r = Eval(R"(
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ia = s32[] parameter(2)
  ib = s32[] parameter(3)
  ROOT gt = pred[] compare(a, b), direction=GT, type=TOTALORDER
}
ENTRY e {
  x = f32[2,6] parameter(0)
  ROOT t = (f32[2,3], s32[2,3]) custom-call(x), custom_call_target="TopK", called_computations={cmp}
})", {MakeLiteral(PrimitiveType::F32, {2, 6}, {1, 5, -2, 5, 0, 3, -1, nan, 4, -0.0, 0, 4})});
  const std::vector<double> values = Values(r.tuple_elements()[0]);
  EXPECT_EQ(values[0], 5);
  EXPECT_EQ(values[1], 5);
  EXPECT_EQ(values[2], 3);
  EXPECT_TRUE(std::isnan(values[3]));
  EXPECT_EQ(values[4], 4);
  EXPECT_EQ(values[5], 4);
  EXPECT_EQ(IntValues(r.tuple_elements()[1]), (std::vector<int64_t>{1, 3, 5, 1, 2, 5}));
}

TEST(TopKTest, CustomCallNeedsAFourParameterComparator) {
  absl::StatusOr<Literal> r = EvalText(R"(
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT gt = pred[] compare(a, b), direction=GT
}
ENTRY e {
  x = f32[6] parameter(0)
  ROOT my_topk = (f32[3], s32[3]) custom-call(x), custom_call_target="TopK", called_computations={cmp}
})", {MakeLiteral(PrimitiveType::F32, {6}, {1, 2, 3, 4, 5, 6})});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("my_topk"), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find("4 parameters"), std::string::npos) << r.status();
}

}  // namespace
}  // namespace xla
