// Tests of the elementwise family: arithmetic and its edge cases (NaN, signed
// zero, integer division by zero, shifts past the width, 64-bit exactness),
// compare (incl. TOTALORDER), select, clamp, conversions and rounding.
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "xla/hlo/evaluator/evaluator_test_util.h"
#include "xla/types/float_format.h"

namespace xla {
namespace {

using evaluator_test::EvalText;
using evaluator_test::IntValues;
using evaluator_test::MakeIntLiteral;
using evaluator_test::MakeLiteral;
using evaluator_test::Values;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Literal Eval(const std::string& hlo, const std::vector<Literal>& args = {}) {
  absl::StatusOr<Literal> r = EvalText(hlo, args);
  EXPECT_TRUE(r.ok()) << r.status() << "\n" << hlo;
  return r.ok() ? std::move(*r) : Literal();
}

// `ROOT r = <out>[dims] op(p0, p1)<attrs>` over two parameters of `in`.
std::string Binary(const std::string& in, const std::string& dims, const std::string& op,
                   const std::string& out = "", const std::string& attrs = "") {
  const std::string o = out.empty() ? in : out;
  return absl::StrCat("ENTRY e {\n  a = ", in, "[", dims, "] parameter(0)\n  b = ", in, "[", dims,
                      "] parameter(1)\n  ROOT r = ", o, "[", dims, "] ", op, "(a, b)", attrs,
                      "\n}\n");
}

std::string Unary(const std::string& in, const std::string& dims, const std::string& op,
                  const std::string& out = "", const std::string& attrs = "") {
  const std::string o = out.empty() ? in : out;
  return absl::StrCat("ENTRY e {\n  a = ", in, "[", dims, "] parameter(0)\n  ROOT r = ", o, "[",
                      dims, "] ", op, "(a)", attrs, "\n}\n");
}

uint32_t F32Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

TEST(Elementwise, F32ArithmeticOn3x5RoundsOnceToF32) {
  std::vector<double> a, b;
  for (int i = 0; i < 15; ++i) {
    a.push_back(0.1 * (i + 1) - 0.77);
    b.push_back(0.3 / (i + 2) + 1.0 / 7);
  }
  Literal la = MakeLiteral(PrimitiveType::F32, {3, 5}, a);
  Literal lb = MakeLiteral(PrimitiveType::F32, {3, 5}, b);
  struct Case {
    const char* op;
    float (*f)(float, float);
  } cases[] = {{"add", [](float x, float y) { return x + y; }},
               {"subtract", [](float x, float y) { return x - y; }},
               {"multiply", [](float x, float y) { return x * y; }},
               {"divide", [](float x, float y) { return x / y; }}};
  for (const Case& c : cases) {
    Literal r = Eval(Binary("f32", "3,5", c.op), {la, lb});
    for (int i = 0; i < 15; ++i) {
      const float x = static_cast<float>(la.GetDouble(i));
      const float y = static_cast<float>(lb.GetDouble(i));
      EXPECT_EQ(r.GetBits(i), F32Bits(c.f(x, y))) << c.op << " at " << i;
    }
  }
}

TEST(Elementwise, Bf16AddRoundsTiesToEven) {
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even gives 1.
  // 1.0078125 + 2^-8 is halfway between 1.0078125 (odd) and 1.015625 (even).
  Literal a = MakeLiteral(PrimitiveType::BF16, {3}, {1.0, 1.0078125, 3.0});
  Literal b = MakeLiteral(PrimitiveType::BF16, {3}, {0.00390625, 0.00390625, 0.5});
  Literal r = Eval(Binary("bf16", "3", "add"), {a, b});
  EXPECT_EQ(Values(r), (std::vector<double>{1.0, 1.015625, 3.5}));
}

TEST(Elementwise, MaxMinPropagateNaNAndOrderSignedZeros) {
  Literal a = MakeLiteral(PrimitiveType::F32, {6}, {-0.0, 0.0, kNaN, 1.0, -kInf, 2.5});
  Literal b = MakeLiteral(PrimitiveType::F32, {6}, {0.0, -0.0, 1.0, kNaN, 3.0, -7.0});
  Literal mx = Eval(Binary("f32", "6", "maximum"), {a, b});
  Literal mn = Eval(Binary("f32", "6", "minimum"), {a, b});
  EXPECT_EQ(mx.GetBits(0), 0u);                    // max(-0, +0) = +0
  EXPECT_EQ(mx.GetBits(1), 0u);                    // max(+0, -0) = +0
  EXPECT_EQ(mn.GetBits(0), 0x80000000u);           // min(-0, +0) = -0
  EXPECT_EQ(mn.GetBits(1), 0x80000000u);           // min(+0, -0) = -0
  EXPECT_TRUE(std::isnan(mx.GetDouble(2)));
  EXPECT_TRUE(std::isnan(mx.GetDouble(3)));
  EXPECT_TRUE(std::isnan(mn.GetDouble(2)));
  EXPECT_TRUE(std::isnan(mn.GetDouble(3)));
  EXPECT_EQ(mx.GetDouble(4), 3.0);
  EXPECT_EQ(mn.GetDouble(4), -kInf);
  EXPECT_EQ(mx.GetDouble(5), 2.5);
  EXPECT_EQ(mn.GetDouble(5), -7.0);
}

TEST(Elementwise, IntegerMaxMinRespectSignedness) {
  Literal a = MakeIntLiteral(PrimitiveType::U32, {2}, {0xFFFFFFFF, 3});
  Literal b = MakeIntLiteral(PrimitiveType::U32, {2}, {1, 4});
  EXPECT_EQ(IntValues(Eval(Binary("u32", "2", "maximum"), {a, b})),
            (std::vector<int64_t>{0xFFFFFFFF, 4}));
  Literal c = MakeIntLiteral(PrimitiveType::S32, {2}, {-1, 3});
  Literal d = MakeIntLiteral(PrimitiveType::S32, {2}, {1, -4});
  EXPECT_EQ(IntValues(Eval(Binary("s32", "2", "minimum"), {c, d})),
            (std::vector<int64_t>{-1, -4}));
}

TEST(Elementwise, IntegerDivisionByZeroAndOverflowFollowXla) {
  const int64_t kMin32 = std::numeric_limits<int32_t>::min();
  Literal a = MakeIntLiteral(PrimitiveType::S32, {5}, {7, -7, kMin32, kMin32, -9});
  Literal b = MakeIntLiteral(PrimitiveType::S32, {5}, {0, 0, -1, 3, 4});
  EXPECT_EQ(IntValues(Eval(Binary("s32", "5", "divide"), {a, b})),
            (std::vector<int64_t>{-1, -1, kMin32, kMin32 / 3, -2}));
  EXPECT_EQ(IntValues(Eval(Binary("s32", "5", "remainder"), {a, b})),
            (std::vector<int64_t>{7, -7, 0, kMin32 % 3, -1}));

  const int64_t kMin64 = std::numeric_limits<int64_t>::min();
  Literal c = MakeIntLiteral(PrimitiveType::S64, {3}, {kMin64, kMin64, 5});
  Literal d = MakeIntLiteral(PrimitiveType::S64, {3}, {-1, 0, -1});
  EXPECT_EQ(IntValues(Eval(Binary("s64", "3", "divide"), {c, d})),
            (std::vector<int64_t>{kMin64, -1, -5}));
  EXPECT_EQ(IntValues(Eval(Binary("s64", "3", "remainder"), {c, d})),
            (std::vector<int64_t>{0, kMin64, 0}));

  Literal e = MakeIntLiteral(PrimitiveType::S8, {2}, {-128, 100});
  Literal f = MakeIntLiteral(PrimitiveType::S8, {2}, {-1, 0});
  EXPECT_EQ(IntValues(Eval(Binary("s8", "2", "divide"), {e, f})),
            (std::vector<int64_t>{-128, -1}));

  Literal u = MakeIntLiteral(PrimitiveType::U32, {3}, {7, 7, 0xFFFFFFF0});
  Literal v = MakeIntLiteral(PrimitiveType::U32, {3}, {0, 2, 7});
  EXPECT_EQ(IntValues(Eval(Binary("u32", "3", "divide"), {u, v})),
            (std::vector<int64_t>{0xFFFFFFFF, 3, 0xFFFFFFF0 / 7}));
  EXPECT_EQ(IntValues(Eval(Binary("u32", "3", "remainder"), {u, v})),
            (std::vector<int64_t>{7, 1, 0xFFFFFFF0 % 7}));
}

TEST(Elementwise, FloatRemainderIsFmod) {
  Literal a = MakeLiteral(PrimitiveType::F32, {4}, {-7.5, 7.5, 5.0, 1.0});
  Literal b = MakeLiteral(PrimitiveType::F32, {4}, {2.0, -2.0, 0.0, kInf});
  Literal r = Eval(Binary("f32", "4", "remainder"), {a, b});
  EXPECT_EQ(r.GetDouble(0), -1.5);
  EXPECT_EQ(r.GetDouble(1), 1.5);
  EXPECT_TRUE(std::isnan(r.GetDouble(2)));
  EXPECT_EQ(r.GetDouble(3), 1.0);
}

TEST(Elementwise, ShiftsPastTheWidthFollowXla) {
  Literal a = MakeIntLiteral(PrimitiveType::S32, {6}, {1, -8, -8, 8, 0x40000000, -1});
  Literal b = MakeIntLiteral(PrimitiveType::S32, {6}, {31, 2, 40, 40, -1, 32});
  EXPECT_EQ(IntValues(Eval(Binary("s32", "6", "shift-left"), {a, b})),
            (std::vector<int64_t>{std::numeric_limits<int32_t>::min(), -32, 0, 0, 0, 0}));
  EXPECT_EQ(IntValues(Eval(Binary("s32", "6", "shift-right-arithmetic"), {a, b})),
            (std::vector<int64_t>{0, -2, -1, 0, 0, -1}));
  EXPECT_EQ(IntValues(Eval(Binary("s32", "6", "shift-right-logical"), {a, b})),
            (std::vector<int64_t>{0, 0x3FFFFFFE, 0, 0, 0, 0}));

  Literal c = MakeIntLiteral(PrimitiveType::U8, {4}, {0x81, 0x81, 0x81, 0xFF});
  Literal d = MakeIntLiteral(PrimitiveType::U8, {4}, {1, 7, 8, 255});
  EXPECT_EQ(IntValues(Eval(Binary("u8", "4", "shift-left"), {c, d})),
            (std::vector<int64_t>{0x02, 0x80, 0, 0}));
  EXPECT_EQ(IntValues(Eval(Binary("u8", "4", "shift-right-logical"), {c, d})),
            (std::vector<int64_t>{0x40, 1, 0, 0}));
  // Unsigned values shift arithmetically as their signed reinterpretation.
  EXPECT_EQ(IntValues(Eval(Binary("u8", "4", "shift-right-arithmetic"), {c, d})),
            (std::vector<int64_t>{0xC0, 0xFF, 0xFF, 0xFF}));
}

TEST(Elementwise, SixtyFourBitIntegersAreExact) {
  const uint64_t big = (uint64_t{1} << 63) + 12345;  // > 2^53
  Literal a = MakeIntLiteral(PrimitiveType::U64, {3},
                             {static_cast<int64_t>(big), -1, (int64_t{1} << 53) + 1});
  Literal b = MakeIntLiteral(PrimitiveType::U64, {3}, {1, 1, 2});
  Literal sum = Eval(Binary("u64", "3", "add"), {a, b});
  EXPECT_EQ(sum.GetBits(0), big + 1);
  EXPECT_EQ(sum.GetBits(1), 0u);  // wraps
  EXPECT_EQ(sum.GetBits(2), (uint64_t{1} << 53) + 3);
  Literal prod = Eval(Binary("u64", "3", "multiply"), {a, b});
  EXPECT_EQ(prod.GetBits(2), (uint64_t{1} << 54) + 2);

  const int64_t x = (int64_t{1} << 62) + 7;
  Literal c = MakeIntLiteral(PrimitiveType::S64, {2}, {x, -x});
  Literal d = MakeIntLiteral(PrimitiveType::S64, {2}, {3, 5});
  Literal mul = Eval(Binary("s64", "2", "multiply"), {c, d});
  EXPECT_EQ(mul.GetInt(0), static_cast<int64_t>(static_cast<uint64_t>(x) * 3));
  Literal div = Eval(Binary("s64", "2", "divide"), {c, d});
  EXPECT_EQ(div.GetInt(1), -x / 5);
}

TEST(Elementwise, IntegerPowerFollowsXla) {
  Literal a = MakeIntLiteral(PrimitiveType::S32, {7}, {2, 3, 1, -1, 0, 3, -2});
  Literal b = MakeIntLiteral(PrimitiveType::S32, {7}, {10, -1, -5, -1, 0, 40, 3});
  const int64_t wrapped = static_cast<int32_t>(static_cast<uint32_t>(12157665459056928801ull));
  EXPECT_EQ(IntValues(Eval(Binary("s32", "7", "power"), {a, b})),
            (std::vector<int64_t>{1024, 0, 1, 0, 1, wrapped, -8}));
  Literal f = MakeLiteral(PrimitiveType::F32, {4}, {2.0, 1.0, kNaN, -8.0});
  Literal g = MakeLiteral(PrimitiveType::F32, {4}, {-2.0, kNaN, 0.0, 1.0 / 3});
  Literal r = Eval(Binary("f32", "4", "power"), {f, g});
  EXPECT_EQ(r.GetDouble(0), 0.25);
  EXPECT_EQ(r.GetDouble(1), 1.0);
  EXPECT_EQ(r.GetDouble(2), 1.0);
  EXPECT_TRUE(std::isnan(r.GetDouble(3)));
}

TEST(Elementwise, BitwiseAndCountingOps) {
  Literal a = MakeIntLiteral(PrimitiveType::S32, {4}, {0, 1, -1, 0x00F0F000});
  EXPECT_EQ(IntValues(Eval(Unary("s32", "4", "popcnt"), {a})),
            (std::vector<int64_t>{0, 1, 32, 8}));
  EXPECT_EQ(IntValues(Eval(Unary("s32", "4", "count-leading-zeros"), {a})),
            (std::vector<int64_t>{32, 31, 0, 8}));
  EXPECT_EQ(IntValues(Eval(Unary("s32", "4", "not"), {a})),
            (std::vector<int64_t>{-1, -2, 0, ~0x00F0F000}));
  Literal u = MakeIntLiteral(PrimitiveType::U8, {3}, {0, 1, 0x80});
  EXPECT_EQ(IntValues(Eval(Unary("u8", "3", "count-leading-zeros"), {u})),
            (std::vector<int64_t>{8, 7, 0}));
  EXPECT_EQ(IntValues(Eval(Unary("u8", "3", "not"), {u})),
            (std::vector<int64_t>{255, 254, 0x7F}));
  Literal p = MakeIntLiteral(PrimitiveType::PRED, {2}, {0, 1});
  Literal q = MakeIntLiteral(PrimitiveType::PRED, {2}, {1, 1});
  EXPECT_EQ(IntValues(Eval(Unary("pred", "2", "not"), {p})), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(IntValues(Eval(Binary("pred", "2", "xor"), {p, q})), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(IntValues(Eval(Binary("pred", "2", "and"), {p, q})), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(IntValues(Eval(Binary("pred", "2", "or"), {p, q})), (std::vector<int64_t>{1, 1}));
  Literal s = MakeIntLiteral(PrimitiveType::S32, {2}, {0x0FF0, -1});
  Literal t = MakeIntLiteral(PrimitiveType::S32, {2}, {0x00FF, 0x1234});
  EXPECT_EQ(IntValues(Eval(Binary("s32", "2", "and"), {s, t})),
            (std::vector<int64_t>{0x00F0, 0x1234}));
}

TEST(Elementwise, UnaryFloatFunctions) {
  Literal a = MakeLiteral(PrimitiveType::F32, {5}, {2.25, 4.0, -27.0, 0.0, 1.0});
  EXPECT_EQ(Values(Eval(Unary("f32", "5", "sqrt"), {a}))[0], 1.5);
  EXPECT_EQ(Values(Eval(Unary("f32", "5", "rsqrt"), {a}))[1], 0.5);
  EXPECT_EQ(Values(Eval(Unary("f32", "5", "cbrt"), {a}))[2], -3.0);
  EXPECT_EQ(Values(Eval(Unary("f32", "5", "exponential"), {a}))[3], 1.0);
  EXPECT_EQ(Values(Eval(Unary("f32", "5", "log"), {a}))[4], 0.0);
  EXPECT_EQ(Values(Eval(Unary("f32", "5", "logistic"), {a}))[3], 0.5);
  EXPECT_EQ(Values(Eval(Unary("f32", "5", "tanh"), {a}))[3], 0.0);
  // exp(1) rounded once to f32, and other transcendental values.
  EXPECT_EQ(Eval(Unary("f32", "5", "exponential"), {a}).GetBits(4), F32Bits(2.71828182845904f));
  EXPECT_NEAR(Values(Eval(Unary("f32", "5", "sine"), {a}))[4], 0.8414709848, 1e-7);
  EXPECT_NEAR(Values(Eval(Unary("f32", "5", "atan"), {a}))[4], 0.7853981634, 1e-7);
  EXPECT_NEAR(Values(Eval(Unary("f32", "5", "erf"), {a}))[4], 0.8427007929, 1e-7);
  EXPECT_NEAR(Values(Eval(Unary("f32", "5", "exponential-minus-one"), {a}))[4], 1.718281828,
              1e-6);
  EXPECT_NEAR(Values(Eval(Unary("f32", "5", "log-plus-one"), {a}))[4], 0.6931471806, 1e-7);
  Literal n = MakeLiteral(PrimitiveType::F32, {3}, {-1.0, kNaN, kInf});
  Literal s = Eval(Unary("f32", "3", "sqrt"), {n});
  EXPECT_TRUE(std::isnan(s.GetDouble(0)));
  EXPECT_TRUE(std::isnan(s.GetDouble(1)));
  EXPECT_EQ(s.GetDouble(2), kInf);
}

TEST(Elementwise, RoundingAndSign) {
  Literal a = MakeLiteral(PrimitiveType::F32, {7}, {2.5, 3.5, -2.5, 0.5, -0.5, -1.7, 1.2});
  EXPECT_EQ(Values(Eval(Unary("f32", "7", "round-nearest-afz"), {a})),
            (std::vector<double>{3, 4, -3, 1, -1, -2, 1}));
  Literal even = Eval(Unary("f32", "7", "round-nearest-even"), {a});
  EXPECT_EQ(Values(even), (std::vector<double>{2, 4, -2, 0, -0.0, -2, 1}));
  EXPECT_EQ(even.GetBits(4), 0x80000000u);  // -0.5 rounds to -0
  EXPECT_EQ(Values(Eval(Unary("f32", "7", "floor"), {a})),
            (std::vector<double>{2, 3, -3, 0, -1, -2, 1}));
  EXPECT_EQ(Values(Eval(Unary("f32", "7", "ceil"), {a})),
            (std::vector<double>{3, 4, -2, 1, -0.0, -1, 2}));
  Literal b = MakeLiteral(PrimitiveType::F32, {5}, {-3.0, -0.0, 0.0, kNaN, 1e-30});
  Literal sign = Eval(Unary("f32", "5", "sign"), {b});
  EXPECT_EQ(sign.GetDouble(0), -1.0);
  EXPECT_EQ(sign.GetBits(1), 0x80000000u);
  EXPECT_EQ(sign.GetBits(2), 0u);
  EXPECT_TRUE(std::isnan(sign.GetDouble(3)));
  EXPECT_EQ(sign.GetDouble(4), 1.0);
  const int64_t kMin = std::numeric_limits<int32_t>::min();
  Literal c = MakeIntLiteral(PrimitiveType::S32, {4}, {-5, 0, 7, kMin});
  EXPECT_EQ(IntValues(Eval(Unary("s32", "4", "sign"), {c})), (std::vector<int64_t>{-1, 0, 1, -1}));
  EXPECT_EQ(IntValues(Eval(Unary("s32", "4", "abs"), {c})), (std::vector<int64_t>{5, 0, 7, kMin}));
  EXPECT_EQ(IntValues(Eval(Unary("s32", "4", "negate"), {c})),
            (std::vector<int64_t>{5, 0, -7, kMin}));
}

TEST(Elementwise, IsFiniteGivesPred) {
  Literal a = MakeLiteral(PrimitiveType::F16, {4}, {1.0, kInf, -kInf, kNaN});
  EXPECT_EQ(IntValues(Eval(Unary("f16", "4", "is-finite", "pred"), {a})),
            (std::vector<int64_t>{1, 0, 0, 0}));
}

TEST(Elementwise, CompareAllDirectionsAndTypes) {
  Literal a = MakeLiteral(PrimitiveType::F32, {4}, {1.0, kNaN, -0.0, 2.0});
  Literal b = MakeLiteral(PrimitiveType::F32, {4}, {2.0, kNaN, 0.0, 2.0});
  const std::vector<std::pair<std::string, std::vector<int64_t>>> expected = {
      {"EQ", {0, 0, 1, 1}}, {"NE", {1, 1, 0, 0}}, {"LT", {1, 0, 0, 0}},
      {"LE", {1, 0, 1, 1}}, {"GT", {0, 0, 0, 0}}, {"GE", {0, 0, 1, 1}}};
  for (const auto& [dir, want] : expected) {
    Literal r = Eval(Binary("f32", "4", "compare", "pred", ", direction=" + dir), {a, b});
    EXPECT_EQ(IntValues(r), want) << dir;
  }
  Literal u = MakeIntLiteral(PrimitiveType::U32, {2}, {0xFFFFFFFF, 1});
  Literal v = MakeIntLiteral(PrimitiveType::U32, {2}, {1, 1});
  EXPECT_EQ(IntValues(Eval(Binary("u32", "2", "compare", "pred", ", direction=GT"), {u, v})),
            (std::vector<int64_t>{1, 0}));
  const int64_t big = (int64_t{1} << 60) + 1;
  Literal s = MakeIntLiteral(PrimitiveType::S64, {2}, {big, -big});
  Literal t = MakeIntLiteral(PrimitiveType::S64, {2}, {big - 1, -big});
  EXPECT_EQ(IntValues(Eval(Binary("s64", "2", "compare", "pred", ", direction=GT"), {s, t})),
            (std::vector<int64_t>{1, 0}));
  const std::string complex_eq = R"(
ENTRY e {
  a = c64[3] constant({(1, 2), (0, -1), (3, 3)})
  b = c64[3] constant({(1, 2), (0, 1), (3, 3.5)})
  eq = pred[3] compare(a, b), direction=EQ
  ne = pred[3] compare(a, b), direction=NE
  ROOT t = (pred[3], pred[3]) tuple(eq, ne)
})";
  Literal c = Eval(complex_eq);
  EXPECT_EQ(IntValues(c.tuple_elements()[0]), (std::vector<int64_t>{1, 0, 0}));
  EXPECT_EQ(IntValues(c.tuple_elements()[1]), (std::vector<int64_t>{0, 1, 1}));
}

TEST(Elementwise, TotalOrderCompareOrdersNaNsInfsAndZeros) {
  // Ascending in the total order.
  const std::vector<double> order = {-kNaN, -kInf, -1.5, -1e-40, -0.0, 0.0, 1e-40, 2.0, kInf, kNaN};
  const int n = static_cast<int>(order.size());
  std::vector<double> lhs, rhs;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      lhs.push_back(order[i]);
      rhs.push_back(order[j]);
    }
  }
  for (const char* type : {"f32", "f64", "bf16"}) {
    const PrimitiveType t = *PrimitiveTypeFromName(type);
    Literal a = MakeLiteral(t, {n * n}, lhs);
    Literal b = MakeLiteral(t, {n * n}, rhs);
    // MakeLiteral keeps the sign of -NaN only for f32/f64; set bf16's by hand
    // (lhs row 0 and rhs column 0 hold order[0]).
    if (t == PrimitiveType::BF16) {
      for (int k = 0; k < n; ++k) {
        a.SetBits(k, 0xFFC0);
        b.SetBits(k * n, 0xFFC0);
      }
    }
    const std::string dims = absl::StrCat(n * n);
    Literal lt = Eval(Binary(type, dims, "compare", "pred", ", direction=LT, type=TOTALORDER"),
                      {a, b});
    Literal eq = Eval(Binary(type, dims, "compare", "pred", ", direction=EQ, type=TOTALORDER"),
                      {a, b});
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        EXPECT_EQ(lt.GetBits(i * n + j), i < j ? 1u : 0u) << type << " " << i << "," << j;
        EXPECT_EQ(eq.GetBits(i * n + j), i == j ? 1u : 0u) << type << " " << i << "," << j;
      }
    }
  }
}

TEST(Elementwise, SelectWithArrayAndScalarPredicates) {
  const std::string hlo = R"(
ENTRY e {
  p = pred[2,3] constant({{true, false, true}, {false, false, true}})
  a = s32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  b = s32[2,3] constant({{-1, -2, -3}, {-4, -5, -6}})
  s = pred[] constant(false)
  x = s32[2,3] select(p, a, b)
  y = s32[2,3] select(s, a, b)
  ROOT t = (s32[2,3], s32[2,3]) tuple(x, y)
})";
  Literal r = Eval(hlo);
  EXPECT_EQ(IntValues(r.tuple_elements()[0]), (std::vector<int64_t>{1, -2, 3, -4, -5, 6}));
  EXPECT_EQ(IntValues(r.tuple_elements()[1]), (std::vector<int64_t>{-1, -2, -3, -4, -5, -6}));
}

TEST(Elementwise, ClampWithScalarAndArrayBounds) {
  const std::string hlo = R"(
ENTRY e {
  lo = f32[] constant(-1)
  hi = f32[] constant(2.5)
  x = f32[5] constant({-3, 0.5, 7, nan, -0})
  a = f32[5] clamp(lo, x, hi)
  l2 = f32[5] constant({0, 1, 2, 3, 0})
  h2 = f32[5] constant({1, 2, 3, 4, 0})
  b = f32[5] clamp(l2, x, h2)
  ROOT t = (f32[5], f32[5]) tuple(a, b)
})";
  Literal r = Eval(hlo);
  const Literal& a = r.tuple_elements()[0];
  EXPECT_EQ(a.GetDouble(0), -1.0);
  EXPECT_EQ(a.GetDouble(1), 0.5);
  EXPECT_EQ(a.GetDouble(2), 2.5);
  EXPECT_TRUE(std::isnan(a.GetDouble(3)));
  EXPECT_EQ(a.GetBits(4), 0x80000000u);
  const Literal& b = r.tuple_elements()[1];
  EXPECT_EQ(b.GetDouble(0), 0.0);
  EXPECT_EQ(b.GetDouble(1), 1.0);
  EXPECT_EQ(b.GetDouble(2), 3.0);
  EXPECT_TRUE(std::isnan(b.GetDouble(3)));
  EXPECT_EQ(b.GetBits(4), 0u);  // clamp(+0, -0, +0) = +0
  Literal i = Eval(R"(
ENTRY e {
  lo = u8[] constant(10)
  x = u8[4] constant({0, 10, 200, 255})
  hi = u8[] constant(250)
  ROOT c = u8[4] clamp(lo, x, hi)
})");
  EXPECT_EQ(IntValues(i), (std::vector<int64_t>{10, 10, 200, 250}));
}

TEST(Elementwise, ComplexArithmeticAndParts) {
  const std::string hlo = R"(
ENTRY e {
  re = f32[3] constant({1, 0, 3})
  im = f32[3] constant({2, -1, -4})
  a = c64[3] complex(re, im)
  b = c64[3] constant({(3, -1), (2, 2), (1, 0)})
  s = c64[3] add(a, b)
  m = c64[3] multiply(a, b)
  d = c64[3] divide(a, b)
  n = f32[3] abs(a)
  r = f32[3] real(m)
  i = f32[3] imag(m)
  ROOT t = (c64[3], c64[3], c64[3], f32[3], f32[3], f32[3]) tuple(s, m, d, n, r, i)
})";
  Literal r = Eval(hlo);
  const auto& t = r.tuple_elements();
  EXPECT_EQ(t[0].GetComplex(0), std::complex<double>(4, 1));
  EXPECT_EQ(t[1].GetComplex(0), std::complex<double>(5, 5));    // (1+2i)(3-i)
  EXPECT_EQ(t[1].GetComplex(1), std::complex<double>(2, -2));   // (-i)(2+2i)
  // (1+2i)/(3-i) = 0.1+0.7i, each part rounded once to f32.
  EXPECT_EQ(t[2].GetComplex(0), std::complex<double>(0.1f, 0.7f));
  EXPECT_EQ(Values(t[3]), (std::vector<double>{std::sqrt(5.0f), 1, 5}));
  EXPECT_EQ(Values(t[4]), (std::vector<double>{5, 2, 3}));
  EXPECT_EQ(Values(t[5]), (std::vector<double>{5, -2, -4}));
}

TEST(Elementwise, ConvertFloatToIntegerTruncatesAndSaturates) {
  Literal a = MakeLiteral(PrimitiveType::F32, {8}, {2.9, -1.9, 3e9, -3e9, kNaN, kInf, -kInf, -0.5});
  EXPECT_EQ(IntValues(Eval(Unary("f32", "8", "convert", "s32"), {a})),
            (std::vector<int64_t>{2, -1, 2147483647, -2147483648LL, 0, 2147483647,
                                  -2147483648LL, 0}));
  EXPECT_EQ(IntValues(Eval(Unary("f32", "8", "convert", "u8"), {a})),
            (std::vector<int64_t>{2, 0, 255, 0, 0, 255, 0, 0}));
  Literal b = MakeLiteral(PrimitiveType::F64, {3}, {9.3e18, -9.3e18, 1.8e19});
  Literal s64 = Eval(Unary("f64", "3", "convert", "s64"), {b});
  EXPECT_EQ(s64.GetInt(0), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(s64.GetInt(1), std::numeric_limits<int64_t>::min());
  Literal u64 = Eval(Unary("f64", "3", "convert", "u64"), {b});
  EXPECT_EQ(u64.GetBits(0), 9300000000000000000ull);
  EXPECT_EQ(u64.GetBits(1), 0u);
  EXPECT_EQ(u64.GetBits(2), 18000000000000000000ull);
  EXPECT_EQ(IntValues(Eval(Unary("f32", "8", "convert", "pred"), {a})),
            (std::vector<int64_t>{1, 1, 1, 1, 1, 1, 1, 1}));
}

TEST(Elementwise, ConvertToNarrowFloatsRoundsToNearestEven) {
  // f32 -> bf16: ties to even; 1 + 2^-8 -> 1, 1 + 3*2^-8 -> 1 + 2^-6.
  Literal a = MakeLiteral(PrimitiveType::F32, {4}, {1.00390625, 1.01171875, 1.005, 3.4e38});
  Literal r = Eval(Unary("f32", "4", "convert", "bf16"), {a});
  EXPECT_EQ(Values(r)[0], 1.0);
  EXPECT_EQ(Values(r)[1], 1.015625);
  EXPECT_EQ(Values(r)[2], 1.0078125);
  EXPECT_EQ(r.GetBits(3), 0x7F80u);  // rounds up past bf16's max to inf
  // Integers > 2^24 round once to the nearest f32 (never through double).
  const int64_t v = (int64_t{1} << 60) + (int64_t{1} << 36) + 1;  // just above a tie
  Literal i = MakeIntLiteral(PrimitiveType::S64, {3}, {v, -v, (int64_t{1} << 24) + 3});
  Literal f = Eval(Unary("s64", "3", "convert", "f32"), {i});
  EXPECT_EQ(f.GetDouble(0), std::ldexp(1.0, 60) + std::ldexp(1.0, 37));
  EXPECT_EQ(f.GetDouble(1), -(std::ldexp(1.0, 60) + std::ldexp(1.0, 37)));
  EXPECT_EQ(f.GetDouble(2), 16777220.0);  // 2^24 + 3 ties to 2^24 + 4
  Literal u = MakeIntLiteral(PrimitiveType::U64, {3}, {-1, (int64_t{1} << 53) + 1,
                                                      (int64_t{1} << 53) + 3});
  Literal d = Eval(Unary("u64", "3", "convert", "f64"), {u});
  EXPECT_EQ(d.GetDouble(0), std::ldexp(1.0, 64));
  EXPECT_EQ(d.GetDouble(1), std::ldexp(1.0, 53));
  EXPECT_EQ(d.GetDouble(2), std::ldexp(1.0, 53) + 4);
  Literal s = MakeIntLiteral(PrimitiveType::S32, {2}, {257, 259});
  EXPECT_EQ(Values(Eval(Unary("s32", "2", "convert", "bf16"), {s})),
            (std::vector<double>{256, 260}));
}

TEST(Elementwise, ConvertBetweenIntegersComplexAndPred) {
  Literal a = MakeIntLiteral(PrimitiveType::S64, {3}, {0x1234567890, -1, 300});
  EXPECT_EQ(IntValues(Eval(Unary("s64", "3", "convert", "s32"), {a})),
            (std::vector<int64_t>{0x34567890, -1, 300}));
  EXPECT_EQ(IntValues(Eval(Unary("s64", "3", "convert", "u8"), {a})),
            (std::vector<int64_t>{0x90, 255, 44}));
  Literal b = MakeIntLiteral(PrimitiveType::S8, {2}, {-1, 5});
  Literal u32 = Eval(Unary("s8", "2", "convert", "u32"), {b});
  EXPECT_EQ(u32.GetBits(0), 0xFFFFFFFFu);
  Literal c = Eval(R"(
ENTRY e {
  a = c64[2] constant({(1.5, 2), (-3, 4)})
  ROOT r = f32[2] convert(a)
})");
  EXPECT_EQ(Values(c), (std::vector<double>{1.5, -3}));
  Literal p = MakeIntLiteral(PrimitiveType::PRED, {2}, {1, 0});
  EXPECT_EQ(Values(Eval(Unary("pred", "2", "convert", "f32"), {p})),
            (std::vector<double>{1, 0}));
  Literal q = MakeIntLiteral(PrimitiveType::S32, {3}, {0, 7, -2});
  EXPECT_EQ(IntValues(Eval(Unary("s32", "3", "convert", "pred"), {q})),
            (std::vector<int64_t>{0, 1, 1}));
}

TEST(Elementwise, BitcastConvertSameAndDifferentWidths) {
  Literal a = MakeLiteral(PrimitiveType::F32, {2}, {1.0, -2.0});
  EXPECT_EQ(IntValues(Eval(Unary("f32", "2", "bitcast-convert", "s32"), {a})),
            (std::vector<int64_t>{0x3F800000, static_cast<int32_t>(0xC0000000)}));
  Literal b = Eval(R"(
ENTRY e {
  a = u32[2] constant({305419896, 4294967295})
  ROOT r = u8[2,4] bitcast-convert(a)
})");
  EXPECT_EQ(IntValues(b), (std::vector<int64_t>{0x78, 0x56, 0x34, 0x12, 255, 255, 255, 255}));
  Literal c = Eval(R"(
ENTRY e {
  a = u16[3,2] constant({{0, 16256}, {0, 49152}, {1, 0}})
  ROOT r = f32[3] bitcast-convert(a)
})");
  EXPECT_EQ(c.GetDouble(0), 1.0);
  EXPECT_EQ(c.GetDouble(1), -2.0);
  EXPECT_EQ(c.GetBits(2), 1u);
  Literal d = Eval(R"(
ENTRY e {
  a = s8[2] constant({-95, 18})
  ROOT r = s4[2,2] bitcast-convert(a)
})");
  // -95 = 0xA1: low nibble 1, high nibble 0xA (-6); 18 = 0x12.
  EXPECT_EQ(IntValues(d), (std::vector<int64_t>{1, -6, 2, 1}));
}

TEST(Elementwise, ReducePrecisionRoundsFlushesAndKeepsNaN) {
  Literal a = MakeLiteral(PrimitiveType::F32, {7},
                          {1.00390625, 1.01171875, 70000.0, 1e-8, kNaN, -kInf, -65504.0});
  // e5m10 is f16's range and precision.
  Literal r = Eval(Unary("f32", "7", "reduce-precision", "", ", exponent_bits=5, mantissa_bits=10"),
                   {a});
  EXPECT_EQ(r.GetDouble(0), 1.00390625);
  EXPECT_EQ(r.GetDouble(2), kInf);
  EXPECT_EQ(r.GetDouble(3), 0.0);
  EXPECT_EQ(r.GetBits(4), a.GetBits(4));
  EXPECT_EQ(r.GetDouble(5), -kInf);
  EXPECT_EQ(r.GetDouble(6), -65504.0);
  // e8m7 is bf16: ties to even.
  Literal b = Eval(Unary("f32", "7", "reduce-precision", "", ", exponent_bits=8, mantissa_bits=7"),
                   {a});
  EXPECT_EQ(b.GetDouble(0), 1.0);
  EXPECT_EQ(b.GetDouble(1), 1.015625);
  // With no mantissa bits NaN cannot be represented and becomes +inf.
  Literal c = Eval(Unary("f32", "7", "reduce-precision", "", ", exponent_bits=8, mantissa_bits=0"),
                   {a});
  EXPECT_EQ(c.GetDouble(4), kInf);
  EXPECT_EQ(c.GetDouble(0), 1.0);
  EXPECT_EQ(c.GetDouble(1), 1.0);
}

TEST(Elementwise, StochasticConvertRoundsByRandomBits) {
  Literal a = MakeLiteral(PrimitiveType::F32, {5}, {1.25, -1.25, 2.5, 1e10, kNaN});
  Literal r = MakeIntLiteral(PrimitiveType::U32, {5}, {0, 0xFFFFFFFF, 0x40000000, 0, 0});
  const std::string hlo = R"(
ENTRY e {
  a = f32[5] parameter(0)
  r = u32[5] parameter(1)
  ROOT s = s32[5] stochastic-convert(a, r)
})";
  EXPECT_EQ(IntValues(Eval(hlo, {a, r})), (std::vector<int64_t>{2, -1, 3, 2147483647, 0}));
}

TEST(Elementwise, MoreTranscendentalFunctions) {
  Literal a = MakeLiteral(PrimitiveType::F64, {3}, {0.0, 0.5, 1.0});
  auto at = [&](const char* op, int i) { return Values(Eval(Unary("f64", "3", op), {a}))[i]; };
  EXPECT_EQ(at("cosine", 0), 1.0);
  EXPECT_EQ(at("cosh", 0), 1.0);
  EXPECT_EQ(at("sinh", 0), 0.0);
  EXPECT_EQ(at("acos", 2), 0.0);
  EXPECT_EQ(at("acosh", 2), 0.0);
  EXPECT_EQ(at("asinh", 0), 0.0);
  EXPECT_NEAR(at("asin", 2), 1.5707963267948966, 1e-15);
  EXPECT_NEAR(at("atanh", 1), 0.5493061443340549, 1e-15);
  EXPECT_NEAR(at("tan", 1), 0.5463024898437905, 1e-15);
  Literal y = MakeLiteral(PrimitiveType::F32, {4}, {1, 1, -0.0, 0.0});
  Literal x = MakeLiteral(PrimitiveType::F32, {4}, {1, -1, -1, -1});
  Literal r = Eval(Binary("f32", "4", "atan2"), {y, x});
  EXPECT_EQ(r.GetBits(0), F32Bits(static_cast<float>(M_PI / 4)));
  EXPECT_EQ(r.GetBits(1), F32Bits(static_cast<float>(3 * M_PI / 4)));
  EXPECT_EQ(r.GetBits(2), F32Bits(static_cast<float>(-M_PI)));
  EXPECT_EQ(r.GetBits(3), F32Bits(static_cast<float>(M_PI)));
  // f64 arithmetic is plain IEEE double arithmetic.
  Literal p = MakeLiteral(PrimitiveType::F64, {1}, {0.1});
  Literal q = MakeLiteral(PrimitiveType::F64, {1}, {0.2});
  EXPECT_EQ(Values(Eval(Binary("f64", "1", "add"), {p, q}))[0], 0.1 + 0.2);
}

TEST(Elementwise, ComplexUnaryFunctions) {
  Literal r = Eval(R"(
ENTRY e {
  a = c128[3] constant({(0, 3.141592653589793), (-4, 0), (3, -4)})
  x = c128[3] exponential(a)
  s = c128[3] sqrt(a)
  n = f64[3] abs(a)
  ROOT t = (c128[3], c128[3], f64[3]) tuple(x, s, n)
})");
  const auto& t = r.tuple_elements();
  EXPECT_NEAR(t[0].GetComplex(0).real(), -1.0, 1e-15);
  EXPECT_NEAR(t[0].GetComplex(0).imag(), 0.0, 1e-15);
  EXPECT_EQ(t[1].GetComplex(1), std::complex<double>(0, 2));
  EXPECT_EQ(Values(t[2]), (std::vector<double>{3.141592653589793, 4, 5}));
}

TEST(Elementwise, ConvertF64ToBf16RoundsThroughF32) {
  // 1 + 2^-8 + 2^-30: direct rounding would give 1 + 2^-7, but XLA converts
  // f64 -> f32 (1 + 2^-8, a bf16 tie) -> bf16 (even: 1).
  Literal a = MakeLiteral(PrimitiveType::F64, {2}, {1 + std::ldexp(1, -8) + std::ldexp(1, -30),
                                                   1 + std::ldexp(1, -8) + std::ldexp(1, -20)});
  EXPECT_EQ(Values(Eval(Unary("f64", "2", "convert", "bf16"), {a})),
            (std::vector<double>{1.0, 1.0078125}));
}

TEST(Elementwise, ConvertToFloat8) {
  Literal a = MakeLiteral(PrimitiveType::F32, {5}, {1.0625, 464, 470, 1e6, -0.001});
  Literal fn = Eval(Unary("f32", "5", "convert", "f8e4m3fn"), {a});
  EXPECT_EQ(fn.GetDouble(0), 1.0);    // tie to even
  EXPECT_EQ(fn.GetDouble(1), 448.0);  // tie to even (448 is the largest finite)
  EXPECT_TRUE(std::isnan(fn.GetDouble(2)));  // rounds past the largest: NaN
  EXPECT_TRUE(std::isnan(fn.GetDouble(3)));
  EXPECT_EQ(fn.GetDouble(4), -0.001953125);  // the smallest subnormal, 2^-9
  Literal e5 = Eval(Unary("f32", "5", "convert", "f8e5m2"), {a});
  EXPECT_EQ(e5.GetDouble(3), kInf);
}

TEST(Elementwise, SubByteAndPredArithmeticWraps) {
  Literal a = MakeIntLiteral(PrimitiveType::S4, {3}, {7, -8, 3});
  Literal b = MakeIntLiteral(PrimitiveType::S4, {3}, {1, -1, 4});
  EXPECT_EQ(IntValues(Eval(Binary("s4", "3", "add"), {a, b})), (std::vector<int64_t>{-8, 7, 7}));
  EXPECT_EQ(IntValues(Eval(Binary("s4", "3", "divide"), {a, b})),
            (std::vector<int64_t>{7, -8, 0}));
  Literal u = MakeIntLiteral(PrimitiveType::U4, {2}, {15, 9});
  Literal v = MakeIntLiteral(PrimitiveType::U4, {2}, {1, 3});
  EXPECT_EQ(IntValues(Eval(Binary("u4", "2", "add"), {u, v})), (std::vector<int64_t>{0, 12}));
  EXPECT_EQ(IntValues(Eval(Binary("u4", "2", "shift-left"), {u, v})),
            (std::vector<int64_t>{14, 8}));
  Literal p = MakeIntLiteral(PrimitiveType::PRED, {4}, {0, 0, 1, 1});
  Literal q = MakeIntLiteral(PrimitiveType::PRED, {4}, {0, 1, 0, 1});
  EXPECT_EQ(IntValues(Eval(Binary("pred", "4", "add"), {p, q})),
            (std::vector<int64_t>{0, 1, 1, 1}));
  EXPECT_EQ(IntValues(Eval(Binary("pred", "4", "maximum"), {p, q})),
            (std::vector<int64_t>{0, 1, 1, 1}));
  Literal w = MakeIntLiteral(PrimitiveType::U64, {2}, {-1, int64_t{1} << 40});
  EXPECT_EQ(IntValues(Eval(Unary("u64", "2", "popcnt"), {w})), (std::vector<int64_t>{64, 1}));
  EXPECT_EQ(IntValues(Eval(Unary("u64", "2", "count-leading-zeros"), {w})),
            (std::vector<int64_t>{0, 23}));
}

TEST(Elementwise, RealAndImagOfFloatsPassThrough) {
  Literal a = MakeLiteral(PrimitiveType::F32, {2}, {1.5, -2});
  EXPECT_EQ(Values(Eval(Unary("f32", "2", "real"), {a})), (std::vector<double>{1.5, -2}));
  EXPECT_EQ(Values(Eval(Unary("f32", "2", "imag"), {a})), (std::vector<double>{0, 0}));
}

// bf16 results must be the f32 result rounded once more to nearest even
// (EncodeFloat is the reference), for random encodings of every class.
TEST(Elementwise, Bf16ConvertAndArithmeticMatchTheReferenceRounding) {
  std::mt19937 gen(42);
  const int n = 20000;
  Literal f(Shape::Array(PrimitiveType::F32, {n}));
  for (int i = 0; i < n; ++i) {
    uint32_t bits = static_cast<uint32_t>(gen());
    if (i % 4 == 0) bits = (bits & 0xFFFF0000u) | 0x8000u;  // exact ties
    if (i % 7 == 0) bits &= 0x807FFFFFu;                     // subnormals and zeros
    if (i % 11 == 0) bits |= 0x7F800000u;                    // infs and NaNs
    f.SetBits(i, bits);
  }
  const std::string dims = absl::StrCat(n);
  Literal b = Eval(Unary("f32", dims, "convert", "bf16"), {f});
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(b.GetBits(i), EncodeFloat(FloatFormatId::kBF16, f.GetDouble(i))) << i;
  }
  Literal c = Eval(Unary("f32", dims, "negate", "f32"), {f});
  Literal d = Eval(Unary("f32", dims, "convert", "bf16"), {c});
  Literal prod = Eval(Binary("bf16", dims, "multiply"), {b, d});
  Literal sum = Eval(Binary("bf16", dims, "add"), {b, d});
  for (int i = 0; i < n; ++i) {
    const double x = b.GetDouble(i), y = d.GetDouble(i);
    const double want_prod = static_cast<float>(x * y);
    const double want_sum = static_cast<float>(x + y);
    ASSERT_EQ(prod.GetBits(i), EncodeFloat(FloatFormatId::kBF16, want_prod)) << i;
    ASSERT_EQ(sum.GetBits(i), EncodeFloat(FloatFormatId::kBF16, want_sum)) << i;
  }
}

TEST(Elementwise, UnsupportedTypesAreErrorsNamingTheInstruction) {
  Literal a = MakeLiteral(PrimitiveType::F32, {2}, {1, 2});
  absl::StatusOr<Literal> r = EvalText(Unary("f32", "2", "popcnt"), {a});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "popcnt 'r'")) << r.status();
}

// abs of an unsigned value is the value itself, also at and above 2^63.
TEST(Elementwise, AbsOfUnsignedIsIdentity) {
  Literal a(Shape::Array(PrimitiveType::U64, {3}));
  a.SetBits(0, uint64_t{1} << 63);
  a.SetBits(1, ~uint64_t{0});
  a.SetBits(2, 5);
  std::vector<Literal> args;
  args.push_back(a);
  Literal r = Eval(Unary("u64", "3", "abs"), args);
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(r.GetBits(i), a.GetBits(i)) << i;
}

// Hand-computed: logistic(i pi/2) = 1 / (1 - i) = (1 + i) / 2,
// logistic(ln 3) = 3/4; atan2(2, 0) = pi/2, and atan2(i, 2) =
// -i log((2 + i i) / sqrt(4 + i^2)) = -i log(1 / sqrt 3) = i ln(3) / 2.
TEST(Elementwise, ComplexLogisticAndAtan2FollowXlasDefinitions) {
  Literal l = Eval(R"(
ENTRY e {
  z = c128[3] constant({(0, 1.5707963267948966), (1.0986122886681098, 0), (0, 0)})
  ROOT r = c128[3] logistic(z)
})");
  EXPECT_NEAR(l.GetComplex(0).real(), 0.5, 1e-15);
  EXPECT_NEAR(l.GetComplex(0).imag(), 0.5, 1e-15);
  EXPECT_NEAR(l.GetComplex(1).real(), 0.75, 1e-15);
  EXPECT_NEAR(l.GetComplex(1).imag(), 0, 1e-15);
  EXPECT_EQ(l.GetComplex(2), std::complex<double>(0.5, 0));
  Literal a = Eval(R"(
ENTRY e {
  y = c64[2] constant({(2, 0), (0, 1)})
  x = c64[2] constant({(0, 0), (2, 0)})
  ROOT r = c64[2] atan2(y, x)
})");
  EXPECT_NEAR(a.GetComplex(0).real(), M_PI / 2, 1e-6);
  EXPECT_NEAR(a.GetComplex(0).imag(), 0, 1e-6);
  EXPECT_NEAR(a.GetComplex(1).real(), 0, 1e-6);
  EXPECT_NEAR(a.GetComplex(1).imag(), std::log(3.0) / 2, 1e-6);
}

}  // namespace
}  // namespace xla
