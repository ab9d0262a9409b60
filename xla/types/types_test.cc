#include <cmath>
#include <limits>

#include "gtest/gtest.h"
#include "xla/types/literal.h"
#include "xla/types/primitive_type.h"
#include "xla/types/random_literal.h"
#include "xla/types/shape.h"

namespace xla {
namespace {

TEST(PrimitiveType, TableLookups) {
  EXPECT_EQ(PrimitiveTypeName(PrimitiveType::BF16), "bf16");
  EXPECT_EQ(PrimitiveTypeFromName("f8e4m3fn"), PrimitiveType::F8E4M3FN);
  EXPECT_FALSE(PrimitiveTypeFromName("f33").has_value());
  EXPECT_EQ(ByteWidth(PrimitiveType::S4), 1);
  EXPECT_EQ(ByteWidth(PrimitiveType::C128), 16);
}

// Hand-derived: an integer fits when its magnitude bits fit the target's
// significand (bf16 8, f16 11, f32 24, f64 53 bits); a float when the
// target has at least its precision and its exponent range.
TEST(PrimitiveType, ConvertsExactly) {
  using T = PrimitiveType;
  for (T from : {T::S4, T::U4, T::S8, T::U8, T::F8E5M2, T::F8E4M3FN, T::BF16}) {
    EXPECT_TRUE(ConvertsExactly(from, T::BF16)) << PrimitiveTypeName(from);
    EXPECT_TRUE(ConvertsExactly(from, T::F32)) << PrimitiveTypeName(from);
  }
  EXPECT_TRUE(ConvertsExactly(T::F8E4M3FN, T::F16));
  EXPECT_TRUE(ConvertsExactly(T::S16, T::F32));
  EXPECT_TRUE(ConvertsExactly(T::F32, T::F64));
  EXPECT_TRUE(ConvertsExactly(T::S32, T::F64));
  EXPECT_FALSE(ConvertsExactly(T::S16, T::BF16));  // 257 rounds
  EXPECT_FALSE(ConvertsExactly(T::U16, T::F16));
  EXPECT_FALSE(ConvertsExactly(T::F16, T::BF16));  // 1 + 2^-10 rounds
  EXPECT_FALSE(ConvertsExactly(T::BF16, T::F16));  // 2^20 overflows
  EXPECT_FALSE(ConvertsExactly(T::F32, T::BF16));
  EXPECT_FALSE(ConvertsExactly(T::S32, T::F32));
  EXPECT_FALSE(ConvertsExactly(T::F8E4M3FN, T::S32));  // only float targets
  EXPECT_FALSE(ConvertsExactly(T::PRED, T::F32));
}

TEST(Shape, ToStringAndElementCount) {
  Shape s = Shape::Array(PrimitiveType::F32, {2, 3});
  EXPECT_EQ(s.ToString(), "f32[2,3]{1,0}");
  EXPECT_EQ(*s.ElementCount(), 6);
  Shape t = Shape::Tuple({s, Shape::Scalar(PrimitiveType::S32), Shape::Token()});
  EXPECT_EQ(t.ToString(false), "(f32[2,3], s32[], token[])");
  Shape d = Shape::Array(PrimitiveType::F32, {});
  d.add_dimension(4, /*dynamic=*/true);
  d.add_dimension(kUnboundedSize);
  d.clear_layout();
  EXPECT_EQ(d.ToString(), "f32[<=4,?]");
  Shape huge = Shape::Array(PrimitiveType::F32, {1ll << 40, 1ll << 40});
  EXPECT_FALSE(huge.ElementCount().has_value());
}

TEST(Literal, ElementsAndText) {
  Literal l(Shape::Array(PrimitiveType::BF16, {2, 3}));
  for (int i = 0; i < 6; ++i) l.SetDouble(i, 0.5 * i - 1);
  EXPECT_EQ(l.ToString(), "{ {-1, -0.5, 0}, {0.5, 1, 1.5} }");
  l.SetDouble(0, 1.001e-05);
  EXPECT_EQ(l.ElementToString(0), "1e-05");  // same bf16 value, fewer digits
  Literal s4(Shape::Array(PrimitiveType::S4, {3}));
  s4.SetInt(0, -8);
  s4.SetInt(1, 7);
  s4.SetInt(2, 9);  // wraps to -7
  EXPECT_EQ(s4.ToString(), "{-8, 7, -7}");
  Literal c(Shape::Scalar(PrimitiveType::C64));
  c.SetComplex(0, {1.5, -2});
  EXPECT_EQ(c.ToString(), "(1.5, -2)");
  Literal p(Shape::Array(PrimitiveType::PRED, {2}));
  p.SetInt(1, 5);
  EXPECT_EQ(p.ToString(), "{false, true}");
  Literal f(Shape::Array(PrimitiveType::F32, {3}));
  f.SetDouble(0, 0.1);
  f.SetDouble(1, -std::numeric_limits<double>::infinity());
  f.SetDouble(2, std::nan(""));
  EXPECT_EQ(f.ToString(), "{0.1, -inf, nan}");
}

// A literal larger than the machine is refused with a message before any
// allocation (instead of std::bad_alloc); a random one too.
TEST(Literal, TooLargeForTheMachineIsAnErrorNotAnAbort) {
  const Shape huge = Shape::Array(PrimitiveType::F32, {200000, 200000});
  absl::Status s = CheckLiteralFitsInMemory(huge, "parameter 0");
  EXPECT_TRUE(absl::IsResourceExhausted(s)) << s;
  EXPECT_NE(s.message().find("parameter 0 (f32[200000,200000]) needs 160000000000 bytes"), std::string::npos) << s;
  EXPECT_TRUE(CheckLiteralFitsInMemory(Shape::Array(PrimitiveType::F32, {3, 7}), "x").ok());
  absl::StatusOr<Literal> random = MakeRandomLiteral(huge, 1);
  EXPECT_TRUE(absl::IsResourceExhausted(random.status())) << random.status();
  absl::StatusOr<Literal> small = MakeRandomLiteral(Shape::Array(PrimitiveType::F32, {3, 7}), 1);
  ASSERT_TRUE(small.ok());
  EXPECT_NE(small->GetDouble(5), small->GetDouble(6));  // real values, not zeros
}

}  // namespace
}  // namespace xla
