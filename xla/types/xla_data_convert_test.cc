#include "xla/types/xla_data_convert.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/util/proto_util.h"

namespace xla {
namespace {

using ::testing::HasSubstr;

// Shape -> proto -> Shape -> proto: equal shapes and equal bytes.
void ExpectShapeRoundTrip(const Shape& shape) {
  const ShapeProto proto = ShapeToProto(shape);
  absl::StatusOr<Shape> back = ShapeFromProto(proto);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, shape) << shape.ToString();
  EXPECT_EQ(back->ToString(), shape.ToString());
  EXPECT_EQ(SerializeDeterministically(ShapeToProto(*back)), SerializeDeterministically(proto));
}

void ExpectLiteralRoundTrip(const Literal& literal) {
  const LiteralProto proto = LiteralToProto(literal);
  absl::StatusOr<Literal> back = LiteralFromProto(proto);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, literal) << literal.ToString();
  EXPECT_EQ(back->shape(), literal.shape());
  EXPECT_EQ(back->ToString(), literal.ToString());
  EXPECT_EQ(SerializeDeterministically(LiteralToProto(*back)), SerializeDeterministically(proto));
}

void ExpectInvalid(const absl::Status& status, absl::string_view needle) {
  ASSERT_FALSE(status.ok()) << "expected an error containing: " << needle;
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(std::string(needle)));
}

TEST(PrimitiveTypeProto, EveryIrTypeHasOneProtoValueAndBack) {
  const auto* descriptor = PrimitiveTypeProto_descriptor();
  // One value per IR type, plus PRIMITIVE_TYPE_INVALID.
  EXPECT_EQ(descriptor->value_count(), kPrimitiveTypeCount + 1);
  for (int i = 0; i < kPrimitiveTypeCount; ++i) {
    const PrimitiveType type = static_cast<PrimitiveType>(i);
    const PrimitiveTypeProto value = PrimitiveTypeToProto(type);
    ASSERT_NE(value, PRIMITIVE_TYPE_INVALID) << PrimitiveTypeName(type);
    absl::StatusOr<PrimitiveType> back = PrimitiveTypeFromProto(value);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, type);
  }
  ExpectInvalid(PrimitiveTypeFromProto(PRIMITIVE_TYPE_INVALID).status(), "unset");
  ExpectInvalid(PrimitiveTypeFromProto(99).status(), "unknown primitive type value 99");
}

TEST(ShapeProto, RoundTrips) {
  ExpectShapeRoundTrip(Shape::Array(PrimitiveType::F32, {2, 3}));
  ExpectShapeRoundTrip(Shape::Scalar(PrimitiveType::PRED));
  Shape no_layout = Shape::Array(PrimitiveType::S8, {7});
  no_layout.clear_layout();
  ExpectShapeRoundTrip(no_layout);
  Shape dynamic = Shape::Array(PrimitiveType::BF16, {});
  dynamic.add_dimension(8, /*dynamic=*/true);
  dynamic.add_dimension(kUnboundedSize);
  dynamic.add_dimension(3);
  dynamic.set_layout(Layout{{0, 2, 1}, "T(8,128)(2,1)E(16)S(1)"});
  EXPECT_EQ(dynamic.ToString(), "bf16[<=8,?,3]{0,2,1:T(8,128)(2,1)E(16)S(1)}");
  ExpectShapeRoundTrip(dynamic);
  Shape suffix_only = Shape::Array(PrimitiveType::F16, {});
  suffix_only.set_layout(Layout{{}, "S(2)"});
  ExpectShapeRoundTrip(suffix_only);
  ExpectShapeRoundTrip(Shape::Token());
  Shape opaque;
  opaque.set_element_type(PrimitiveType::OPAQUE_TYPE);
  ExpectShapeRoundTrip(opaque);
  ExpectShapeRoundTrip(Shape::Buffer(Shape::Array(PrimitiveType::U4, {16})));
  ExpectShapeRoundTrip(Shape::Tuple({}));
  ExpectShapeRoundTrip(Shape::Tuple(
      {dynamic, Shape::Tuple({Shape::Token(), Shape::Array(PrimitiveType::C128, {0, 5})})}));
}

TEST(ShapeProto, EmptyDynamicFlagsMeanStatic) {
  ShapeProto proto;
  proto.set_element_type(PRIMITIVE_TYPE_F32);
  proto.add_dimensions(4);
  proto.add_dimensions(5);
  absl::StatusOr<Shape> shape = ShapeFromProto(proto);
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_EQ(shape->ToString(), "f32[4,5]");
}

TEST(ShapeProto, RejectsMalformed) {
  auto array = [](std::vector<int64_t> dims) {
    ShapeProto p;
    p.set_element_type(PRIMITIVE_TYPE_F32);
    for (int64_t d : dims) {
      p.add_dimensions(d);
      p.add_is_dynamic_dimension(false);
    }
    return p;
  };
  ShapeProto p = array({2, -3});
  ExpectInvalid(ShapeFromProto(p).status(), "shape.dimensions[1]: dimension size -3 is negative");
  p = array({1ll << 40, 1ll << 40});
  ExpectInvalid(ShapeFromProto(p).status(), "overflows int64");
  p = array({1ll << 31, 1ll << 31});  // 2^62 elements fit, 2^64 bytes do not
  ExpectInvalid(ShapeFromProto(p).status(), "overflows int64");
  p = array({kUnboundedSize});
  ExpectInvalid(ShapeFromProto(p).status(), "not marked dynamic");
  p = array({2, 3});
  p.add_is_dynamic_dimension(true);
  ExpectInvalid(ShapeFromProto(p).status(), "is_dynamic_dimension has 3 entries for 2");
  p = array({2, 3});
  p.mutable_layout()->add_minor_to_major(1);
  p.mutable_layout()->add_minor_to_major(1);
  ExpectInvalid(ShapeFromProto(p).status(), "not a permutation");
  p = array({2, 3});
  p.mutable_layout()->add_minor_to_major(0);
  ExpectInvalid(ShapeFromProto(p).status(), "has 1 entries for rank 2");
  p = array({2});
  p.set_element_type(static_cast<PrimitiveTypeProto>(77));
  ExpectInvalid(ShapeFromProto(p).status(), "shape.element_type: unknown primitive type value 77");
  p = array({2});
  *p.add_tuple_shapes() = array({1});
  ExpectInvalid(ShapeFromProto(p).status(), "has 1 tuple_shapes");
  p = ShapeProto();
  p.set_element_type(PRIMITIVE_TYPE_TUPLE);
  p.add_dimensions(3);
  ExpectInvalid(ShapeFromProto(p).status(), "only arrays have dimensions");
  p = ShapeProto();
  p.set_element_type(PRIMITIVE_TYPE_TUPLE);
  *p.add_tuple_shapes() = array({-1});
  ExpectInvalid(ShapeFromProto(p).status(), "shape.tuple_shapes[0].dimensions[0]");
  p = ShapeProto();
  p.set_element_type(PRIMITIVE_TYPE_BUFFER);
  ExpectInvalid(ShapeFromProto(p).status(), "buffer shape must wrap exactly one array");
  p = ShapeProto();
  p.set_element_type(PRIMITIVE_TYPE_TOKEN);
  *p.add_tuple_shapes() = array({1});
  ExpectInvalid(ShapeFromProto(p).status(), "token shape has 1 tuple_shapes");
  p = ShapeProto();
  p.set_element_type(PRIMITIVE_TYPE_TUPLE);
  p.mutable_layout()->add_minor_to_major(0);
  ExpectInvalid(ShapeFromProto(p).status(), "non-empty layout");
  ExpectInvalid(ShapeFromProto(ShapeProto()).status(), "PRIMITIVE_TYPE_INVALID");
}

TEST(ShapeProto, RejectsDeepNesting) {
  ShapeProto p;
  p.set_element_type(PRIMITIVE_TYPE_S32);
  for (int i = 0; i < kMaxProtoNestingDepth + 2; ++i) {
    ShapeProto outer;
    outer.set_element_type(PRIMITIVE_TYPE_TUPLE);
    *outer.add_tuple_shapes() = std::move(p);
    p = std::move(outer);
  }
  ExpectInvalid(ShapeFromProto(p).status(), "nesting deeper than");
}

TEST(ProgramShapeProto, RoundTripAndNames) {
  ProgramShape ps;
  ps.parameters = {Shape::Array(PrimitiveType::F32, {2}), Shape::Token()};
  ps.parameter_names = {"x", "tok"};
  ps.result = Shape::Tuple({Shape::Array(PrimitiveType::F32, {2})});
  absl::StatusOr<ProgramShape> back = ProgramShapeFromProto(ProgramShapeToProto(ps));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->ToString(), ps.ToString());
  ProgramShapeProto p = ProgramShapeToProto(ps);
  p.add_parameter_names("extra");
  ExpectInvalid(ProgramShapeFromProto(p).status(), "3 parameter_names for 2 parameters");
}

TEST(LiteralProto, RoundTripsEveryArrayType) {
  for (int i = 0; i < kPrimitiveTypeCount; ++i) {
    const PrimitiveType type = static_cast<PrimitiveType>(i);
    if (!IsArrayType(type)) continue;
    Literal literal(Shape::Array(type, {2, 3}));
    for (int64_t e = 0; e < 6; ++e) {
      if (IsComplex(type)) {
        literal.SetComplex(e, {0.5 * e - 1, -0.25 * e});
      } else if (IsFloat(type)) {
        literal.SetDouble(e, 0.5 * e - 1);
      } else {
        literal.SetInt(e, e * 37 - 100);
      }
    }
    SCOPED_TRACE(PrimitiveTypeName(type));
    ExpectLiteralRoundTrip(literal);
  }
}

TEST(LiteralProto, RoundTripsSpecialCases) {
  Literal s4(Shape::Array(PrimitiveType::S4, {3}));
  s4.SetInt(0, -8);
  s4.SetInt(1, 7);
  s4.SetInt(2, -1);
  EXPECT_EQ(LiteralToProto(s4).data(), std::string("\xf8\x07\xff", 3));
  ExpectLiteralRoundTrip(s4);
  Literal nan(Shape::Scalar(PrimitiveType::F64));
  nan.SetBits(0, 0xfff0000000000123ull);  // negative NaN with a payload
  ExpectLiteralRoundTrip(nan);
  Literal neg_zero(Shape::Scalar(PrimitiveType::BF16));
  neg_zero.SetDouble(0, -0.0);
  ExpectLiteralRoundTrip(neg_zero);
  ExpectLiteralRoundTrip(Literal::Elided(Shape::Array(PrimitiveType::F32, {1000, 1000})));
  Shape dynamic = Shape::Array(PrimitiveType::S32, {});
  dynamic.add_dimension(4, /*dynamic=*/true);
  ExpectLiteralRoundTrip(Literal(dynamic));
  ExpectLiteralRoundTrip(Literal(Shape::Array(PrimitiveType::F32, {0, 4})));
  ExpectLiteralRoundTrip(Literal(Shape::Token()));
  Shape with_layout = Shape::Array(PrimitiveType::U8, {2, 2});
  with_layout.set_layout(Layout{{0, 1}, "T(2)"});
  ExpectLiteralRoundTrip(Literal(with_layout));
}

TEST(LiteralProto, RoundTripsTuples) {
  Literal c64(Shape::Array(PrimitiveType::C64, {2}));
  c64.SetComplex(0, {1.5, -2});
  c64.SetComplex(1, {0, 3});
  Literal pred(Shape::Scalar(PrimitiveType::PRED));
  pred.SetInt(0, 1);
  const Shape elided_shape = Shape::Array(PrimitiveType::F8E4M3FN, {64});
  Literal inner(Shape::Tuple({pred.shape(), elided_shape}));
  (*inner.mutable_tuple_elements())[0] = pred;
  (*inner.mutable_tuple_elements())[1] = Literal::Elided(elided_shape);
  Literal outer(Shape::Tuple({c64.shape(), inner.shape(), Shape::Tuple({})}));
  (*outer.mutable_tuple_elements())[0] = c64;
  (*outer.mutable_tuple_elements())[1] = inner;
  EXPECT_EQ(outer.ToString(), "({(1.5, -2), (0, 3)}, (true, {...}), ())");
  ExpectLiteralRoundTrip(outer);
  ExpectLiteralRoundTrip(Literal::Elided(outer.shape()));
}

TEST(LiteralProto, RejectsMalformed) {
  Literal f32(Shape::Array(PrimitiveType::F32, {3}));
  LiteralProto p = LiteralToProto(f32);
  p.mutable_data()->pop_back();
  ExpectInvalid(LiteralFromProto(p).status(),
                "literal.data: literal of shape f32[3]{0} needs 12 "
                "data bytes, but has 11");
  p = LiteralToProto(f32);
  p.set_elided(true);
  ExpectInvalid(LiteralFromProto(p).status(), "elided literal carries 12 data bytes");
  p = LiteralToProto(f32);
  *p.add_tuple_elements() = LiteralToProto(f32);
  ExpectInvalid(LiteralFromProto(p).status(), "non-tuple shape f32[3]{0} has 1 tuple_elements");

  Literal s4(Shape::Array(PrimitiveType::S4, {2}));
  p = LiteralToProto(s4);
  (*p.mutable_data())[1] = 0x08;  // +8 does not fit; -8 is 0xf8
  ExpectInvalid(LiteralFromProto(p).status(),
                "element 1 of the s4 literal is byte 8, not a sign-extended 4-bit value");
  Literal u2(Shape::Array(PrimitiveType::U2, {1}));
  p = LiteralToProto(u2);
  (*p.mutable_data())[0] = 4;
  ExpectInvalid(LiteralFromProto(p).status(), "zero-extended 2-bit");
  Literal pred(Shape::Array(PrimitiveType::PRED, {1}));
  p = LiteralToProto(pred);
  (*p.mutable_data())[0] = 2;
  ExpectInvalid(LiteralFromProto(p).status(), "not 0 or 1");

  Literal tuple(Shape::Tuple({f32.shape(), pred.shape()}));
  p = LiteralToProto(tuple);
  p.mutable_tuple_elements()->RemoveLast();
  ExpectInvalid(LiteralFromProto(p).status(), "tuple literal has 1 tuple_elements for shape");
  p = LiteralToProto(tuple);
  *p.mutable_tuple_elements(1) = LiteralToProto(f32);
  ExpectInvalid(LiteralFromProto(p).status(),
                "literal.tuple_elements[1]: element shape f32[3]{0} does not match");
  p = LiteralToProto(tuple);
  p.set_data("xx");
  ExpectInvalid(LiteralFromProto(p).status(), "only arrays have data");

  // An elided element of a tuple would be zero-filled: bounded.
  const Shape huge = Shape::Array(PrimitiveType::F64, {1 << 20, 1 << 10});
  Literal with_elided(Shape::Tuple({}));
  p = LiteralToProto(with_elided);
  *p.mutable_shape()->add_tuple_shapes() = ShapeToProto(huge);
  *p.add_tuple_elements() = LiteralToProto(Literal::Elided(huge));
  ExpectInvalid(LiteralFromProto(p).status(), "more than the limit");
}

}  // namespace
}  // namespace xla
