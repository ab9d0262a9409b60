#include "xla/types/xla_data_convert.h"

#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

absl::Status Invalid(absl::string_view field, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", what));
}

// a + b, saturating at INT64_MAX (both non-negative).
int64_t SaturatingAdd(int64_t a, int64_t b) {
  return a > std::numeric_limits<int64_t>::max() - b ? std::numeric_limits<int64_t>::max() : a + b;
}

absl::Status CheckNesting(int depth, absl::string_view field) {
  if (depth > kMaxProtoNestingDepth) {
    return Invalid(field, absl::StrCat("tuple nesting deeper than ", kMaxProtoNestingDepth));
  }
  return absl::OkStatus();
}

// Checks that `m2m` is empty or a permutation of [0, rank).
absl::Status CheckMinorToMajor(const LayoutProto& layout, int64_t rank, absl::string_view field) {
  const auto& m2m = layout.minor_to_major();
  if (m2m.empty()) return absl::OkStatus();
  if (m2m.size() != rank) {
    return Invalid(field, absl::StrCat("layout minor_to_major {", absl::StrJoin(m2m, ","), "} has ",
                                       m2m.size(), " entries for rank ", rank));
  }
  std::vector<bool> seen(rank, false);
  for (int i = 0; i < m2m.size(); ++i) {
    const int64_t d = m2m[i];
    if (d < 0 || d >= rank || seen[d]) {
      return Invalid(absl::StrCat(field, ".minor_to_major[", i, "]"),
                     absl::StrCat("layout minor_to_major {", absl::StrJoin(m2m, ","),
                                  "} is not a permutation of the ", rank, " dimensions"));
    }
    seen[d] = true;
  }
  return absl::OkStatus();
}

Layout LayoutFromProto(const LayoutProto& proto) {
  Layout layout;
  layout.minor_to_major.assign(proto.minor_to_major().begin(), proto.minor_to_major().end());
  layout.suffix = proto.suffix();
  return layout;
}

// The array part of ShapeFromProto.
absl::StatusOr<Shape> ArrayShapeFromProto(const ShapeProto& proto, PrimitiveType type,
                                          absl::string_view field) {
  if (!proto.tuple_shapes().empty()) {
    return Invalid(field, absl::StrCat("array shape of ", PrimitiveTypeName(type), " has ",
                                       proto.tuple_shapes_size(), " tuple_shapes"));
  }
  const int rank = proto.dimensions_size();
  const int flags = proto.is_dynamic_dimension_size();
  if (flags != 0 && flags != rank) {
    return Invalid(field, absl::StrCat("is_dynamic_dimension has ", flags, " entries for ", rank,
                                       " dimensions"));
  }
  Shape shape = Shape::Array(type, {});
  for (int i = 0; i < rank; ++i) {
    const int64_t size = proto.dimensions(i);
    const bool dynamic = flags != 0 && proto.is_dynamic_dimension(i);
    const std::string dim_field = absl::StrCat(field, ".dimensions[", i, "]");
    if (size == kUnboundedSize && !dynamic) {
      return Invalid(dim_field, "unbounded dimension (INT64_MIN) is not marked dynamic");
    }
    if (size < 0 && size != kUnboundedSize) {
      return Invalid(dim_field, absl::StrCat("dimension size ", size, " is negative"));
    }
    shape.add_dimension(size, dynamic);
  }
  if (!shape.ByteSize().has_value()) {
    return Invalid(field,
                   absl::StrCat("element count of ", shape.ToString(false), " overflows int64"));
  }
  shape.clear_layout();
  if (proto.has_layout()) {
    RETURN_IF_ERROR(CheckMinorToMajor(proto.layout(), rank, absl::StrCat(field, ".layout")));
    shape.set_layout(LayoutFromProto(proto.layout()));
  }
  return shape;
}

absl::StatusOr<Shape> ShapeFromProtoImpl(const ShapeProto& proto, absl::string_view field,
                                         int depth) {
  RETURN_IF_ERROR(CheckNesting(depth, field));
  ASSIGN_OR_RETURN(
      PrimitiveType type,
      PrimitiveTypeFromProto(proto.element_type(), absl::StrCat(field, ".element_type")));
  if (IsArrayType(type)) return ArrayShapeFromProto(proto, type, field);
  if (!proto.dimensions().empty() || !proto.is_dynamic_dimension().empty()) {
    return Invalid(field,
                   absl::StrCat(PrimitiveTypeName(type), " shape has ", proto.dimensions_size(),
                                " dimensions and ", proto.is_dynamic_dimension_size(),
                                " dynamic flags; only arrays have dimensions"));
  }
  if (proto.has_layout() && !proto.layout().minor_to_major().empty()) {
    return Invalid(
        absl::StrCat(field, ".layout"),
        absl::StrCat(PrimitiveTypeName(type), " shape has a non-empty layout minor_to_major"));
  }
  std::vector<Shape> elements;
  for (int i = 0; i < proto.tuple_shapes_size(); ++i) {
    ASSIGN_OR_RETURN(Shape element,
                     ShapeFromProtoImpl(proto.tuple_shapes(i),
                                        absl::StrCat(field, ".tuple_shapes[", i, "]"), depth + 1));
    elements.push_back(std::move(element));
  }
  Shape shape;
  switch (KindOf(type)) {
    case TypeKind::kTuple:
      shape = Shape::Tuple(std::move(elements));
      break;
    case TypeKind::kBuffer:
      if (elements.size() != 1 || !elements[0].IsArray()) {
        return Invalid(field, absl::StrCat("buffer shape must wrap exactly one array shape, not ",
                                           elements.size(), " tuple_shapes"));
      }
      shape = Shape::Buffer(std::move(elements[0]));
      break;
    case TypeKind::kToken:
    case TypeKind::kOpaque:
      if (!elements.empty()) {
        return Invalid(field, absl::StrCat(PrimitiveTypeName(type), " shape has ", elements.size(),
                                           " tuple_shapes"));
      }
      shape.set_element_type(type);
      break;
    case TypeKind::kPred:
    case TypeKind::kSigned:
    case TypeKind::kUnsigned:
    case TypeKind::kFloat:
    case TypeKind::kComplex:
      return Invalid(field, "internal error: array type in the non-array path");
  }
  if (proto.has_layout()) shape.set_layout(LayoutFromProto(proto.layout()));
  return shape;
}

// Bytes that Literal(shape) zero-fills: the byte sizes of all array leaves,
// saturating.
int64_t ZeroFillBytes(const Shape& shape) {
  if (shape.IsArray()) return shape.ByteSize().value_or(std::numeric_limits<int64_t>::max());
  if (!shape.IsTuple()) return 0;
  int64_t total = 0;
  for (const Shape& e : shape.tuple_shapes()) total = SaturatingAdd(total, ZeroFillBytes(e));
  return total;
}

// Bytes of array data a literal proto carries, all elements included.
int64_t CarriedBytes(const LiteralProto& proto) {
  int64_t total = static_cast<int64_t>(proto.data().size());
  for (const LiteralProto& e : proto.tuple_elements())
    total = SaturatingAdd(total, CarriedBytes(e));
  return total;
}

// Checks that each element of a sub-byte or pred array is stored in its
// canonical byte form (literal.h), so the bytes read back unchanged.
absl::Status CheckCanonicalBytes(PrimitiveType type, const std::string& data,
                                 absl::string_view field) {
  const int bits = BitWidth(type);
  if (!IsPred(type) && bits >= 8) return absl::OkStatus();
  for (size_t i = 0; i < data.size(); ++i) {
    const uint8_t byte = static_cast<uint8_t>(data[i]);
    bool ok;
    if (IsPred(type)) {
      ok = byte <= 1;
    } else if (IsSignedInt(type)) {
      const int value = static_cast<int8_t>(byte);
      ok = value >= -(1 << (bits - 1)) && value < (1 << (bits - 1));
    } else {
      ok = byte < (1 << bits);
    }
    if (!ok) {
      return Invalid(absl::StrCat(field, ".data"),
                     absl::StrCat("element ", i, " of the ", PrimitiveTypeName(type),
                                  " literal is byte ", static_cast<int>(byte), ", not ",
                                  IsPred(type) ? "0 or 1"
                                               : absl::StrCat("a ",
                                                              IsSignedInt(type) ? "sign-extended "
                                                                                : "zero-extended ",
                                                              bits, "-bit value")));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Literal> LiteralFromProtoImpl(const LiteralProto& proto, absl::string_view field,
                                             int depth);

absl::StatusOr<Literal> TupleLiteralFromProto(const LiteralProto& proto, Shape shape,
                                              absl::string_view field, int depth) {
  if (proto.tuple_elements_size() != shape.tuple_shapes_size()) {
    return Invalid(field, absl::StrCat("tuple literal has ", proto.tuple_elements_size(),
                                       " tuple_elements for shape ", shape.ToString(), " with ",
                                       shape.tuple_shapes_size(), " elements"));
  }
  std::vector<Literal> elements;
  for (int i = 0; i < proto.tuple_elements_size(); ++i) {
    const std::string element_field = absl::StrCat(field, ".tuple_elements[", i, "]");
    ASSIGN_OR_RETURN(Literal element,
                     LiteralFromProtoImpl(proto.tuple_elements(i), element_field, depth + 1));
    if (!ShapesCompatible(element.shape(), shape.tuple_shapes(i))) {
      return Invalid(element_field, absl::StrCat("element shape ", element.shape().ToString(),
                                                 " does not match the tuple's element shape ",
                                                 shape.tuple_shapes(i).ToString()));
    }
    elements.push_back(std::move(element));
  }
  // Literal(shape) zero-fills every leaf before the elements replace them;
  // the leaves that are not elided are backed by bytes of the proto.
  const int64_t unbacked =
      ZeroFillBytes(shape) - std::min(ZeroFillBytes(shape), CarriedBytes(proto));
  if (unbacked > kMaxElidedTupleBytes) {
    return Invalid(field,
                   absl::StrCat("elided tuple elements of ", shape.ToString(), " need ", unbacked,
                                " bytes, more than the limit of ", kMaxElidedTupleBytes));
  }
  Literal literal(shape);
  for (size_t i = 0; i < elements.size(); ++i) {
    (*literal.mutable_tuple_elements())[i] = std::move(elements[i]);
  }
  return literal;
}

absl::StatusOr<Literal> LiteralFromProtoImpl(const LiteralProto& proto, absl::string_view field,
                                             int depth) {
  RETURN_IF_ERROR(CheckNesting(depth, field));
  ASSIGN_OR_RETURN(Shape shape,
                   ShapeFromProtoImpl(proto.shape(), absl::StrCat(field, ".shape"), depth));
  if (proto.elided()) {
    if (!proto.data().empty() || !proto.tuple_elements().empty()) {
      return Invalid(field, absl::StrCat("elided literal carries ", proto.data().size(),
                                         " data bytes and ", proto.tuple_elements_size(),
                                         " tuple_elements; it must carry neither"));
    }
    return Literal::Elided(shape);
  }
  if (!shape.IsTuple() && !proto.tuple_elements().empty()) {
    return Invalid(field, absl::StrCat("literal of non-tuple shape ", shape.ToString(), " has ",
                                       proto.tuple_elements_size(), " tuple_elements"));
  }
  if (!shape.IsArray()) {
    if (!proto.data().empty()) {
      return Invalid(absl::StrCat(field, ".data"),
                     absl::StrCat("literal of shape ", shape.ToString(), " has ",
                                  proto.data().size(), " data bytes; only arrays have data"));
    }
    if (shape.IsTuple()) return TupleLiteralFromProto(proto, std::move(shape), field, depth);
    return Literal(shape);
  }
  const int64_t expected = *shape.ByteSize();  // checked by ShapeFromProto
  if (static_cast<int64_t>(proto.data().size()) != expected) {
    return Invalid(absl::StrCat(field, ".data"),
                   absl::StrCat("literal of shape ", shape.ToString(), " needs ", expected,
                                " data bytes, but has ", proto.data().size()));
  }
  RETURN_IF_ERROR(CheckCanonicalBytes(shape.element_type(), proto.data(), field));
  Literal literal(shape);
  if (expected > 0) std::memcpy(literal.mutable_data().data(), proto.data().data(), expected);
  return literal;
}

}  // namespace

PrimitiveTypeProto PrimitiveTypeToProto(PrimitiveType type) {
  switch (type) {
#define XLA_PT_TO_PROTO_(e, name, bits, kind, fmt) \
  case PrimitiveType::e:                           \
    return PRIMITIVE_TYPE_##e;
    XLA_PRIMITIVE_TYPES(XLA_PT_TO_PROTO_)
#undef XLA_PT_TO_PROTO_
  }
  return PRIMITIVE_TYPE_INVALID;  // not reached: the switch covers the enum
}

absl::StatusOr<PrimitiveType> PrimitiveTypeFromProto(int value, absl::string_view field) {
  switch (value) {
#define XLA_PT_FROM_PROTO_(e, name, bits, kind, fmt) \
  case PRIMITIVE_TYPE_##e:                           \
    return PrimitiveType::e;
    XLA_PRIMITIVE_TYPES(XLA_PT_FROM_PROTO_)
#undef XLA_PT_FROM_PROTO_
  }
  if (value == PRIMITIVE_TYPE_INVALID) {
    return Invalid(field, "primitive type is unset (PRIMITIVE_TYPE_INVALID)");
  }
  return Invalid(field, absl::StrCat("unknown primitive type value ", value,
                                     " (written by a newer producer?)"));
}

ShapeProto ShapeToProto(const Shape& shape) {
  ShapeProto proto;
  proto.set_element_type(PrimitiveTypeToProto(shape.element_type()));
  for (int64_t d : shape.dimensions()) proto.add_dimensions(d);
  for (bool d : shape.dynamic_dimensions()) proto.add_is_dynamic_dimension(d);
  for (const Shape& e : shape.tuple_shapes()) *proto.add_tuple_shapes() = ShapeToProto(e);
  if (shape.has_layout()) {
    LayoutProto* layout = proto.mutable_layout();
    for (int64_t d : shape.layout().minor_to_major) layout->add_minor_to_major(d);
    layout->set_suffix(shape.layout().suffix);
  }
  return proto;
}

absl::StatusOr<Shape> ShapeFromProto(const ShapeProto& proto, absl::string_view field) {
  return ShapeFromProtoImpl(proto, field, 0);
}

ProgramShapeProto ProgramShapeToProto(const ProgramShape& program_shape) {
  ProgramShapeProto proto;
  for (const Shape& p : program_shape.parameters) *proto.add_parameters() = ShapeToProto(p);
  for (const std::string& n : program_shape.parameter_names) proto.add_parameter_names(n);
  *proto.mutable_result() = ShapeToProto(program_shape.result);
  return proto;
}

absl::StatusOr<ProgramShape> ProgramShapeFromProto(const ProgramShapeProto& proto,
                                                   absl::string_view field) {
  if (proto.parameter_names_size() > proto.parameters_size()) {
    return Invalid(field, absl::StrCat(proto.parameter_names_size(), " parameter_names for ",
                                       proto.parameters_size(), " parameters"));
  }
  ProgramShape program_shape;
  for (int i = 0; i < proto.parameters_size(); ++i) {
    ASSIGN_OR_RETURN(
        Shape p, ShapeFromProto(proto.parameters(i), absl::StrCat(field, ".parameters[", i, "]")));
    program_shape.parameters.push_back(std::move(p));
  }
  program_shape.parameter_names.assign(proto.parameter_names().begin(),
                                       proto.parameter_names().end());
  ASSIGN_OR_RETURN(program_shape.result,
                   ShapeFromProto(proto.result(), absl::StrCat(field, ".result")));
  return program_shape;
}

LiteralProto LiteralToProto(const Literal& literal) {
  LiteralProto proto;
  *proto.mutable_shape() = ShapeToProto(literal.shape());
  if (literal.elided()) {
    proto.set_elided(true);
    return proto;
  }
  if (literal.shape().IsArray()) {
    proto.set_data(literal.data().data(), literal.data().size());
  }
  for (const Literal& e : literal.tuple_elements()) *proto.add_tuple_elements() = LiteralToProto(e);
  return proto;
}

absl::StatusOr<Literal> LiteralFromProto(const LiteralProto& proto, absl::string_view field) {
  return LiteralFromProtoImpl(proto, field, 0);
}

}  // namespace xla
