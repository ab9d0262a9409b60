// Reading shapes and literals from HLO text.
//
// Shapes: `f32[2,<=3,?]{1,0,2:T(8,128)}`, `(s32[], f32[4])`, `token[]`,
// `b(f32[4])`. A layout is read only when `{` directly follows `]` (so the
// `{` that opens a computation body after `-> f32[] {` is not a layout).
// Literals: scalars, nested `{...}` arrays matching the shape, `{...}` for an
// elided value, `(re, im)` for complex elements and `( ... )` for tuples.
// Not thread-safe (operates on the caller's cursor).
#ifndef XLA_HLO_PARSER_SHAPE_TEXT_H_
#define XLA_HLO_PARSER_SHAPE_TEXT_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/types/literal.h"
#include "xla/types/shape.h"
#include "xla/hlo/parser/text_cursor.h"

namespace xla {

// True when the cursor (after whitespace) is at the start of a shape.
bool LooksLikeShape(TextCursor& cursor);

// Reads one shape. Errors name the position and the problem (unknown element
// type, negative or overflowing dimension, layout that is not a permutation).
absl::StatusOr<Shape> ParseShape(TextCursor& cursor, int depth = 0);

// Reads a literal of `shape`. Errors on element-count mismatch, values out of
// the element type's range and non-finite values that overflowed.
absl::StatusOr<Literal> ParseLiteral(TextCursor& cursor, const Shape& shape, int depth = 0);

// Convenience: parses a whole string as one shape (e.g. "f32[2,3]{1,0}").
absl::StatusOr<Shape> ParseShapeText(absl::string_view text);

}  // namespace xla

#endif  // XLA_HLO_PARSER_SHAPE_TEXT_H_
