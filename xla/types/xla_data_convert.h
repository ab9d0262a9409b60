// Conversion between the IR's value types (PrimitiveType, Shape, ProgramShape,
// Literal; xla/hlo/ir/) and their protos in xla/xla_data.proto.
//
// The To* direction never fails and is lossless: From*(To*(x)) gives a value
// equal to x, layouts, layout suffixes and dynamic dimensions included, and
// To* of that value gives the same bytes. The From* direction validates
// everything and returns InvalidArgumentError naming the field (prefixed
// with `field`, e.g. "shape.tuple_shapes[1].dimensions[0]") and the bad
// value; it never crashes, and it allocates at most a bounded amount beyond
// the bytes the proto itself holds.
//
// All functions are pure and thread-safe.
#ifndef XLA_TYPES_XLA_DATA_CONVERT_H_
#define XLA_TYPES_XLA_DATA_CONVERT_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/types/literal.h"
#include "xla/types/primitive_type.h"
#include "xla/types/shape.h"
#include "xla/xla_data.pb.h"

namespace xla {

// Deepest tuple nesting (shapes and literals) that From* accepts; deeper
// input is rejected so that a hostile proto cannot exhaust the stack.
inline constexpr int kMaxProtoNestingDepth = 64;

// The proto enum value of `type`.
PrimitiveTypeProto PrimitiveTypeToProto(PrimitiveType type);
// The IR type of a raw proto enum value (an int, since a proto may hold
// values this build does not know). Fails for PRIMITIVE_TYPE_INVALID and for
// unknown values.
absl::StatusOr<PrimitiveType> PrimitiveTypeFromProto(int value,
                                                     absl::string_view field = "element_type");

// Shape <-> ShapeProto. ShapeFromProto fails on: an unknown element type;
// dimensions on a non-array; a dimension below 0 other than an unbounded one
// (INT64_MIN), or an unbounded one not marked dynamic; a dynamic-flag count
// that is neither 0 nor the rank; an element count or byte size that
// overflows int64; a layout that is not a permutation of the dimensions (or
// a non-empty minor_to_major on a non-array); tuple elements on a non-tuple;
// a buffer that does not wrap exactly one array; nesting deeper than
// kMaxProtoNestingDepth.
ShapeProto ShapeToProto(const Shape& shape);
absl::StatusOr<Shape> ShapeFromProto(const ShapeProto& proto, absl::string_view field = "shape");

// ProgramShape <-> ProgramShapeProto. Fails when a shape is invalid or when
// there are more parameter names than parameters.
ProgramShapeProto ProgramShapeToProto(const ProgramShape& program_shape);
absl::StatusOr<ProgramShape> ProgramShapeFromProto(const ProgramShapeProto& proto,
                                                   absl::string_view field = "program_shape");

// Literal <-> LiteralProto (storage format documented in xla_data.proto).
// LiteralFromProto fails when the shape is invalid; when the data size is not
// element count * byte width; when a sub-byte or pred element is not in its
// canonical one-byte form; when an elided literal carries data or elements;
// when a tuple's element count or element shapes do not match its shape; when
// data or elements appear where the shape has none; when materializing the
// elided elements of a tuple would need more than kMaxElidedTupleBytes.
inline constexpr int64_t kMaxElidedTupleBytes = int64_t{1} << 28;
LiteralProto LiteralToProto(const Literal& literal);
absl::StatusOr<Literal> LiteralFromProto(const LiteralProto& proto,
                                         absl::string_view field = "literal");

}  // namespace xla

#endif  // XLA_TYPES_XLA_DATA_CONVERT_H_
