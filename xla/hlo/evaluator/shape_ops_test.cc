// Tests of the shape family: broadcast, reshape, transpose, slice,
// dynamic-(update-)slice with clamped starts, concatenate, pad, reverse,
// iota, bitcast and dimension sizes; plus round-trip properties on random
// data.
#include <complex>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/evaluator/evaluator_test_util.h"

namespace xla {
namespace {

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

// 0, 1, 2, ... as s32 with `dims`.
Literal Counting(std::vector<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<int64_t> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(i);
  return MakeIntLiteral(PrimitiveType::S32, dims, v);
}

Literal RandomF32(std::vector<int64_t> dims, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-100.0, 100.0);
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(dist(gen));
  return MakeLiteral(PrimitiveType::F32, dims, v);
}

TEST(ShapeOps, BroadcastMapsOperandDimensions) {
  Literal r = Eval(R"(
ENTRY e {
  a = s32[3] constant({7, 8, 9})
  ROOT b = s32[2,3] broadcast(a), dimensions={1}
})");
  EXPECT_EQ(IntValues(r), (std::vector<int64_t>{7, 8, 9, 7, 8, 9}));
  Literal c = Eval(R"(
ENTRY e {
  a = s32[3] constant({7, 8, 9})
  ROOT b = s32[3,2] broadcast(a), dimensions={0}
})");
  EXPECT_EQ(IntValues(c), (std::vector<int64_t>{7, 7, 8, 8, 9, 9}));
  Literal d = Eval(R"(
ENTRY e {
  a = f32[] constant(1.5)
  ROOT b = f32[3,5] broadcast(a), dimensions={}
})");
  EXPECT_EQ(Values(d), std::vector<double>(15, 1.5));
  Literal e = Eval(R"(
ENTRY e {
  a = s32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  ROOT b = s32[3,4,2] broadcast(a), dimensions={2,0}
})");
  // b[i,j,k] = a[k,i].
  std::vector<int64_t> want;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 2; ++k) want.push_back(k * 3 + i + 1);
  EXPECT_EQ(IntValues(e), want);
}

TEST(ShapeOps, ReshapeKeepsRowMajorOrder) {
  Literal r = Eval(R"(
ENTRY e {
  a = s32[3,5] parameter(0)
  ROOT b = s32[5,3] reshape(a)
})",
                   {Counting({3, 5})});
  EXPECT_EQ(r.shape().dimensions(), (std::vector<int64_t>{5, 3}));
  EXPECT_EQ(IntValues(r), IntValues(Counting({15})));
}

TEST(ShapeOps, TransposePermutesIndices) {
  Literal r = Eval(R"(
ENTRY e {
  a = s32[3,5] parameter(0)
  ROOT b = s32[5,3] transpose(a), dimensions={1,0}
})",
                   {Counting({3, 5})});
  std::vector<int64_t> want;
  for (int j = 0; j < 5; ++j)
    for (int i = 0; i < 3; ++i) want.push_back(i * 5 + j);
  EXPECT_EQ(IntValues(r), want);
  Literal t = Eval(R"(
ENTRY e {
  a = s32[2,3,4] parameter(0)
  ROOT b = s32[4,2,3] transpose(a), dimensions={2,0,1}
})",
                   {Counting({2, 3, 4})});
  // b[i,j,k] = a[j,k,i].
  std::vector<int64_t> want3;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 3; ++k) want3.push_back(j * 12 + k * 4 + i);
  EXPECT_EQ(IntValues(t), want3);
}

TEST(ShapeOps, TransposeTwiceIsTheIdentity) {
  Literal in = RandomF32({3, 4, 5, 2}, 17);
  Literal r = Eval(R"(
ENTRY e {
  a = f32[3,4,5,2] parameter(0)
  t = f32[5,2,3,4] transpose(a), dimensions={2,3,0,1}
  ROOT u = f32[3,4,5,2] transpose(t), dimensions={2,3,0,1}
})",
                   {in});
  EXPECT_EQ(r, in);
}

TEST(ShapeOps, SliceWithStrides) {
  Literal r = Eval(R"(
ENTRY e {
  a = s32[3,5] parameter(0)
  ROOT b = s32[2,2] slice(a), slice={[0:3:2], [1:5:2]}
})",
                   {Counting({3, 5})});
  EXPECT_EQ(IntValues(r), (std::vector<int64_t>{1, 3, 11, 13}));
  Literal s = Eval(R"(
ENTRY e {
  a = s32[33] parameter(0)
  ROOT b = s32[6] slice(a), slice={[4:33:5]}
})",
                   {Counting({33})});
  EXPECT_EQ(IntValues(s), (std::vector<int64_t>{4, 9, 14, 19, 24, 29}));
}

TEST(ShapeOps, DynamicSliceClampsOutOfRangeStarts) {
  const std::string hlo = R"(
ENTRY e {
  a = s32[3,7] parameter(0)
  i = s32[] parameter(1)
  j = s32[] parameter(2)
  ROOT b = s32[2,3] dynamic-slice(a, i, j), dynamic_slice_sizes={2,3}
})";
  auto run = [&](int64_t i, int64_t j) {
    return IntValues(Eval(hlo, {Counting({3, 7}), MakeIntLiteral(PrimitiveType::S32, {}, {i}),
                                MakeIntLiteral(PrimitiveType::S32, {}, {j})}));
  };
  EXPECT_EQ(run(0, 1), (std::vector<int64_t>{1, 2, 3, 8, 9, 10}));
  EXPECT_EQ(run(5, 6), (std::vector<int64_t>{11, 12, 13, 18, 19, 20}));  // clamped to (1, 4)
  EXPECT_EQ(run(-3, -100), (std::vector<int64_t>{0, 1, 2, 7, 8, 9}));     // clamped to (0, 0)
  // Unsigned starts above INT64_MAX clamp like any large start.
  Literal u = Eval(R"(
ENTRY e {
  a = s32[9] parameter(0)
  i = u64[] constant(18446744073709551615)
  ROOT b = s32[2] dynamic-slice(a, i), dynamic_slice_sizes={2}
})",
                   {Counting({9})});
  EXPECT_EQ(IntValues(u), (std::vector<int64_t>{7, 8}));
}

TEST(ShapeOps, DynamicUpdateSliceClampsStarts) {
  const std::string hlo = R"(
ENTRY e {
  a = s32[3,4] parameter(0)
  u = s32[2,2] constant({{-1, -2}, {-3, -4}})
  i = s32[] parameter(1)
  j = s32[] parameter(2)
  ROOT b = s32[3,4] dynamic-update-slice(a, u, i, j)
})";
  Literal r = Eval(hlo, {Counting({3, 4}), MakeIntLiteral(PrimitiveType::S32, {}, {9}),
                         MakeIntLiteral(PrimitiveType::S32, {}, {1})});
  EXPECT_EQ(IntValues(r), (std::vector<int64_t>{0, 1, 2, 3, 4, -1, -2, 7, 8, -3, -4, 11}));
  Literal s = Eval(hlo, {Counting({3, 4}), MakeIntLiteral(PrimitiveType::S32, {}, {-5}),
                         MakeIntLiteral(PrimitiveType::S32, {}, {3})});
  EXPECT_EQ(IntValues(s), (std::vector<int64_t>{0, 1, -1, -2, 4, 5, -3, -4, 8, 9, 10, 11}));
}

TEST(ShapeOps, ConcatenateAlongEachDimension) {
  Literal r = Eval(R"(
ENTRY e {
  a = s32[2,1] constant({{1}, {2}})
  b = s32[2,3] constant({{3, 4, 5}, {6, 7, 8}})
  c = s32[2,2] constant({{9, 10}, {11, 12}})
  ROOT d = s32[2,6] concatenate(a, b, c), dimensions={1}
})");
  EXPECT_EQ(IntValues(r), (std::vector<int64_t>{1, 3, 4, 5, 9, 10, 2, 6, 7, 8, 11, 12}));
  Literal s = Eval(R"(
ENTRY e {
  a = f32[1,2] constant({{1, 2}})
  b = f32[2,2] constant({{3, 4}, {5, 6}})
  ROOT d = f32[3,2] concatenate(a, b), dimensions={0}
})");
  EXPECT_EQ(Values(s), (std::vector<double>{1, 2, 3, 4, 5, 6}));
}

TEST(ShapeOps, PadWithInteriorAndNegativeEdges) {
  Literal r = Eval(R"(
ENTRY e {
  a = s32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  z = s32[] constant(0)
  ROOT p = s32[4,7] pad(a, z), padding=1_1x0_2_1
})");
  EXPECT_EQ(IntValues(r), (std::vector<int64_t>{0, 0, 0, 0, 0, 0, 0,  //
                                                1, 0, 2, 0, 3, 0, 0,  //
                                                4, 0, 5, 0, 6, 0, 0,  //
                                                0, 0, 0, 0, 0, 0, 0}));
  Literal n = Eval(R"(
ENTRY e {
  a = s32[5] constant({1, 2, 3, 4, 5})
  z = s32[] constant(-9)
  ROOT p = s32[6] pad(a, z), padding=-2_-1_1
})");
  // Interior-padded: 1 x 2 x 3 x 4 x 5 (9 wide); drop 2 low and 1 high.
  EXPECT_EQ(IntValues(n), (std::vector<int64_t>{2, -9, 3, -9, 4, -9}));
}

TEST(ShapeOps, PadThenSliceGivesTheInput) {
  Literal in = RandomF32({3, 5}, 5);
  Literal r = Eval(R"(
ENTRY e {
  a = f32[3,5] parameter(0)
  z = f32[] constant(-1)
  p = f32[8,20] pad(a, z), padding=2_1_1x3_4_2
  ROOT s = f32[3,5] slice(p), slice={[2:7:2], [3:16:3]}
})",
                   {in});
  EXPECT_EQ(r, in);
}

TEST(ShapeOps, ReverseSelectedDimensions) {
  Literal r = Eval(R"(
ENTRY e {
  a = s32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  ROOT b = s32[2,3] reverse(a), dimensions={1}
})");
  EXPECT_EQ(IntValues(r), (std::vector<int64_t>{3, 2, 1, 6, 5, 4}));
  Literal s = Eval(R"(
ENTRY e {
  a = s32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  ROOT b = s32[2,3] reverse(a), dimensions={0,1}
})");
  EXPECT_EQ(IntValues(s), (std::vector<int64_t>{6, 5, 4, 3, 2, 1}));
}

TEST(ShapeOps, IotaOfEveryKindOfType) {
  Literal r = Eval("ENTRY e {\n  ROOT i = s32[3,4] iota(), iota_dimension=1\n}");
  EXPECT_EQ(IntValues(r), (std::vector<int64_t>{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3}));
  Literal f = Eval("ENTRY e {\n  ROOT i = f32[3,2] iota(), iota_dimension=0\n}");
  EXPECT_EQ(Values(f), (std::vector<double>{0, 0, 1, 1, 2, 2}));
  // bf16 holds 8 significant bits: 257 ties to 256, 259 to 260.
  Literal b = Eval("ENTRY e {\n  ROOT i = bf16[300] iota(), iota_dimension=0\n}");
  EXPECT_EQ(b.GetDouble(255), 255.0);
  EXPECT_EQ(b.GetDouble(257), 256.0);
  EXPECT_EQ(b.GetDouble(259), 260.0);
  Literal u = Eval("ENTRY e {\n  ROOT i = u8[300] iota(), iota_dimension=0\n}");
  EXPECT_EQ(u.GetInt(255), 255);
  EXPECT_EQ(u.GetInt(256), 0);  // wraps
  EXPECT_EQ(u.GetInt(299), 43);
}

TEST(ShapeOps, BitcastReinterpretsRowMajorData) {
  Literal r = Eval(R"(
ENTRY e {
  a = s32[3,5] parameter(0)
  ROOT b = s32[15] bitcast(a)
})",
                   {Counting({3, 5})});
  EXPECT_EQ(IntValues(r), IntValues(Counting({15})));
  Literal f = Eval(R"(
ENTRY e {
  a = f32[2] constant({1, -2})
  ROOT b = u32[2] bitcast(a)
})");
  EXPECT_EQ(IntValues(f), (std::vector<int64_t>{0x3F800000, 0xC0000000}));
}

TEST(ShapeOps, DimensionSizes) {
  Literal r = Eval(R"(
ENTRY e {
  a = f32[3,5] parameter(0)
  ROOT s = s32[] get-dimension-size(a), dimensions={1}
})",
                   {RandomF32({3, 5}, 1)});
  EXPECT_EQ(r.GetInt(0), 5);
  Literal in = RandomF32({4}, 2);
  Literal s = Eval(R"(
ENTRY e {
  a = f32[4] parameter(0)
  n = s32[] constant(4)
  ROOT s = f32[<=4] set-dimension-size(a, n), dimensions={0}
})",
                   {in});
  EXPECT_EQ(Values(s), Values(in));
}

TEST(ShapeOps, MovesElementsOfEveryWidth) {
  Literal r = Eval(R"(
ENTRY e {
  c = c128[2,3] constant({{(1, -1), (2, -2), (3, -3)}, {(4, -4), (5, -5), (6, -6)}})
  t = c128[3,2] transpose(c), dimensions={1,0}
  p = pred[5] constant({true, false, false, true, true})
  s = pred[2] slice(p), slice={[2:5:2]}
  h = s4[4] constant({-8, 7, -1, 2})
  v = s4[4] reverse(h), dimensions={0}
  ROOT o = (c128[3,2], pred[2], s4[4]) tuple(t, s, v)
})");
  const auto& t = r.tuple_elements();
  EXPECT_EQ(t[0].GetComplex(1), std::complex<double>(4, -4));
  EXPECT_EQ(t[0].GetComplex(4), std::complex<double>(3, -3));
  EXPECT_EQ(IntValues(t[1]), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(IntValues(t[2]), (std::vector<int64_t>{2, -1, 7, -8}));
}

TEST(ShapeOps, BadAttributesAreErrors) {
  absl::StatusOr<Literal> r = EvalText(R"(
ENTRY e {
  a = s32[3] constant({1, 2, 3})
  ROOT b = s32[2] slice(a), slice={[0:4]}
})",
                                       {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("slice 'b'"), std::string::npos) << r.status();
}

}  // namespace
}  // namespace xla
