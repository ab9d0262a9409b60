#include "xla/hlo/parser/shape_text.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

absl::Status ParseLayout(TextCursor& c, Shape* shape) {
  const size_t start = c.pos();
  c.Advance();  // '{'
  Layout layout;
  RETURN_IF_ERROR(c.SkipWhitespace());
  while (c.Peek() != '}' && c.Peek() != ':') {
    ASSIGN_OR_RETURN(int64_t d, c.ParseInt("in layout"));
    layout.minor_to_major.push_back(d);
    RETURN_IF_ERROR(c.SkipWhitespace());
    if (c.Peek() == ',') {
      c.Advance();
      RETURN_IF_ERROR(c.SkipWhitespace());
    } else if (c.Peek() != '}' && c.Peek() != ':') {
      return c.Error("expected ',', ':' or '}' in layout");
    }
  }
  if (c.Peek() == ':') {
    c.Advance();
    const size_t suffix_start = c.pos();
    int depth = 0;
    while (!c.AtEnd() && !(depth == 0 && c.Peek() == '}')) {
      if (c.Peek() == '(') ++depth;
      if (c.Peek() == ')') --depth;
      if (depth < 0 || c.Peek() == '\n') return c.Error("malformed layout suffix");
      c.Advance();
    }
    layout.suffix = std::string(c.text().substr(suffix_start, c.pos() - suffix_start));
  }
  RETURN_IF_ERROR(c.Expect('}', "to close the layout"));
  // The minor-to-major list must be a permutation of the dimensions (or
  // empty, which some producers write for "no particular order").
  if (!layout.minor_to_major.empty()) {
    std::vector<bool> seen(shape->rank(), false);
    bool ok = static_cast<int64_t>(layout.minor_to_major.size()) == shape->rank();
    for (int64_t d : layout.minor_to_major) {
      if (!ok || d < 0 || d >= shape->rank() || seen[d]) {
        ok = false;
        break;
      }
      seen[d] = true;
    }
    if (!ok) {
      return c.ErrorAt(start, absl::StrCat("layout {", absl::StrJoin(layout.minor_to_major, ","),
                                           "} is not a permutation of the ", shape->rank(),
                                           " dimensions of ", shape->ToString(false)));
    }
  }
  shape->set_layout(std::move(layout));
  return absl::OkStatus();
}

absl::Status ParseDimensions(TextCursor& c, Shape* shape) {
  RETURN_IF_ERROR(c.Expect('[', "to start the dimensions"));
  if (c.TryConsume(']')) return absl::OkStatus();
  while (true) {
    RETURN_IF_ERROR(c.SkipWhitespace());
    if (c.TryConsume('?')) {
      shape->add_dimension(kUnboundedSize, true);
    } else {
      bool bounded = c.TryConsume("<=");
      const size_t dim_pos = c.pos();
      ASSIGN_OR_RETURN(int64_t size, c.ParseInt("dimension size"));
      if (size < 0) return c.ErrorAt(dim_pos, absl::StrCat("negative dimension size ", size));
      shape->add_dimension(size, bounded);
    }
    if (shape->rank() > 64) return c.Error("more than 64 dimensions");
    if (c.TryConsume(']')) break;
    RETURN_IF_ERROR(c.Expect(',', "between dimensions"));
  }
  return absl::OkStatus();
}

}  // namespace

bool LooksLikeShape(TextCursor& c) {
  if (!c.SkipWhitespace().ok()) return false;
  if (c.Peek() == '(') return true;
  absl::string_view word = c.PeekWord();
  if (c.Peek() == '%') return false;
  char after = c.Peek(word.size());
  if (word == "b" && after == '(') return true;
  return after == '[' && PrimitiveTypeFromName(word).has_value();
}

absl::StatusOr<Shape> ParseShape(TextCursor& c, int depth) {
  if (depth > TextCursor::kMaxDepth) return c.Error("shape nesting too deep");
  RETURN_IF_ERROR(c.SkipWhitespace());
  if (c.TryConsume('(')) {
    std::vector<Shape> elements;
    if (!c.TryConsume(')')) {
      while (true) {
        ASSIGN_OR_RETURN(Shape e, ParseShape(c, depth + 1));
        elements.push_back(std::move(e));
        if (c.TryConsume(')')) break;
        RETURN_IF_ERROR(c.Expect(',', "between tuple elements"));
      }
    }
    return Shape::Tuple(std::move(elements));
  }
  const size_t start = c.pos();
  absl::string_view word = c.PeekWord();
  if (word == "b" && c.Peek(1) == '(') {
    c.Advance(2);
    ASSIGN_OR_RETURN(Shape inner, ParseShape(c, depth + 1));
    RETURN_IF_ERROR(c.Expect(')', "to close the buffer shape"));
    return Shape::Buffer(std::move(inner));
  }
  std::optional<PrimitiveType> type = PrimitiveTypeFromName(word);
  if (word.empty()) return c.Error("expected a shape");
  if (!type || *type == PrimitiveType::TUPLE || *type == PrimitiveType::BUFFER) {
    return c.ErrorAt(start, absl::StrCat("unknown element type '", word, "'"));
  }
  c.Advance(word.size());
  Shape shape;
  shape.set_element_type(*type);
  RETURN_IF_ERROR(ParseDimensions(c, &shape));
  if (!shape.IsArray() && shape.rank() != 0) {
    return c.ErrorAt(start, absl::StrCat(word, " shapes take no dimensions"));
  }
  if (c.Peek() == '{') RETURN_IF_ERROR(ParseLayout(c, &shape));
  return shape;
}

absl::StatusOr<Shape> ParseShapeText(absl::string_view text) {
  TextCursor c(text, "<shape>");
  ASSIGN_OR_RETURN(Shape s, ParseShape(c));
  RETURN_IF_ERROR(c.SkipWhitespace());
  if (!c.AtEnd()) return c.Error("unexpected text after the shape");
  return s;
}

namespace {

absl::Status CheckIntRange(TextCursor& c, size_t pos, PrimitiveType t, int64_t v) {
  const int bits = BitWidth(t);
  if (bits >= 64) return absl::OkStatus();
  int64_t lo = IsSignedInt(t) ? -(int64_t{1} << (bits - 1)) : 0;
  int64_t hi = IsSignedInt(t) ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
  if (v < lo || v > hi) {
    return c.ErrorAt(pos, absl::StrCat("value ", v, " does not fit in ", PrimitiveTypeName(t)));
  }
  return absl::OkStatus();
}

absl::Status ParseFloatElement(TextCursor& c, PrimitiveType t, double* out, uint64_t* bits) {
  const size_t pos = c.pos();
  uint64_t payload = 0;
  ASSIGN_OR_RETURN(double v, c.ParseFloat("in constant", &payload));
  const FloatFormatId fmt = FloatFormatOf(t);
  *out = v;
  *bits = EncodeFloat(fmt, v);
  const double rounded = DecodeFloat(fmt, *bits);
  if (std::isfinite(v) && !std::isfinite(rounded)) {
    return c.ErrorAt(pos, absl::StrCat("value ", v, " overflows ", PrimitiveTypeName(t)));
  }
  if (std::isnan(v) && payload != 0) {
    const FloatFormat& f = GetFloatFormat(fmt);
    const uint64_t mantissa_mask = (uint64_t{1} << f.mantissa_bits) - 1;
    if (f.specials != SpecialValues::kIeee || (payload & ~mantissa_mask) != 0) {
      return c.ErrorAt(pos, absl::StrCat("NaN payload not representable in ",
                                         PrimitiveTypeName(t)));
    }
    uint64_t sign = *bits & (uint64_t{1} << (f.total_bits() - 1));
    *bits = sign | (((uint64_t{1} << f.exponent_bits) - 1) << f.mantissa_bits) | payload;
  }
  return absl::OkStatus();
}

absl::Status ParseElement(TextCursor& c, Literal* lit, int64_t i) {
  const PrimitiveType t = lit->shape().element_type();
  RETURN_IF_ERROR(c.SkipWhitespace());
  const size_t pos = c.pos();
  switch (KindOf(t)) {
    case TypeKind::kPred: {
      absl::string_view word = c.PeekWord();
      if (word == "true" || word == "false") {
        c.Advance(word.size());
        lit->SetInt(i, word == "true" ? 1 : 0);
        return absl::OkStatus();
      }
      ASSIGN_OR_RETURN(int64_t v, c.ParseInt("in pred constant"));
      if (v != 0 && v != 1) return c.ErrorAt(pos, "pred values must be true, false, 0 or 1");
      lit->SetInt(i, v);
      return absl::OkStatus();
    }
    case TypeKind::kSigned: {
      ASSIGN_OR_RETURN(int64_t v, c.ParseInt("in constant"));
      RETURN_IF_ERROR(CheckIntRange(c, pos, t, v));
      lit->SetInt(i, v);
      return absl::OkStatus();
    }
    case TypeKind::kUnsigned: {
      if (c.Peek() == '-') {
        ASSIGN_OR_RETURN(int64_t v, c.ParseInt("in constant"));
        return c.ErrorAt(pos, absl::StrCat("value ", v, " does not fit in ", PrimitiveTypeName(t)));
      }
      ASSIGN_OR_RETURN(uint64_t v, c.ParseUint("in constant"));
      if (BitWidth(t) < 64 && v >= (uint64_t{1} << BitWidth(t))) {
        return c.ErrorAt(pos, absl::StrCat("value ", v, " does not fit in ", PrimitiveTypeName(t)));
      }
      lit->SetBits(i, v);
      return absl::OkStatus();
    }
    case TypeKind::kFloat: {
      double v;
      uint64_t bits;
      RETURN_IF_ERROR(ParseFloatElement(c, t, &v, &bits));
      lit->SetBits(i, bits);
      return absl::OkStatus();
    }
    case TypeKind::kComplex: {
      RETURN_IF_ERROR(c.Expect('(', "to start a complex value"));
      PrimitiveType part = ComplexComponentType(t);
      double re, im;
      uint64_t bits;
      RETURN_IF_ERROR(ParseFloatElement(c, part, &re, &bits));
      re = DecodeFloat(FloatFormatOf(part), bits);
      RETURN_IF_ERROR(c.Expect(',', "between real and imaginary parts"));
      RETURN_IF_ERROR(ParseFloatElement(c, part, &im, &bits));
      im = DecodeFloat(FloatFormatOf(part), bits);
      RETURN_IF_ERROR(c.Expect(')', "to close a complex value"));
      lit->SetComplex(i, {re, im});
      return absl::OkStatus();
    }
    case TypeKind::kToken:
    case TypeKind::kTuple:
    case TypeKind::kOpaque:
    case TypeKind::kBuffer:
      break;
  }
  return c.ErrorAt(pos, absl::StrCat("constants of type ", PrimitiveTypeName(t),
                                     " are not supported"));
}

absl::Status ParseArrayLevel(TextCursor& c, Literal* lit, int64_t dim, int64_t* next) {
  const Shape& s = lit->shape();
  if (dim == s.rank()) return ParseElement(c, lit, (*next)++);
  RETURN_IF_ERROR(c.Expect('{', absl::StrCat("to start dimension ", dim, " of the constant")));
  const int64_t n = s.dimensions(dim);
  for (int64_t i = 0; i < n; ++i) {
    if (i > 0) {
      RETURN_IF_ERROR(c.SkipWhitespace());
      if (c.Peek() == '}') {
        return c.Error(absl::StrCat("constant has ", i, " elements in dimension ", dim,
                                    " but its shape ", s.ToString(false), " has ", n));
      }
      RETURN_IF_ERROR(c.Expect(',', "between constant elements"));
    }
    RETURN_IF_ERROR(ParseArrayLevel(c, lit, dim + 1, next));
  }
  RETURN_IF_ERROR(c.SkipWhitespace());
  if (c.Peek() == ',') {
    return c.Error(absl::StrCat("constant has more than ", n, " elements in dimension ", dim,
                                " of its shape ", s.ToString(false)));
  }
  return c.Expect('}', absl::StrCat("to close dimension ", dim, " of the constant"));
}

}  // namespace

absl::StatusOr<Literal> ParseLiteral(TextCursor& c, const Shape& shape, int depth) {
  if (depth > TextCursor::kMaxDepth) return c.Error("constant nesting too deep");
  RETURN_IF_ERROR(c.SkipWhitespace());
  if (c.Remaining().substr(0, 5) == "{...}") {
    c.Advance(5);
    return Literal::Elided(shape);
  }
  if (shape.IsTuple()) {
    RETURN_IF_ERROR(c.Expect('(', "to start a tuple constant"));
    std::vector<Literal> elements;
    for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
      if (i > 0) RETURN_IF_ERROR(c.Expect(',', "between tuple constant elements"));
      ASSIGN_OR_RETURN(Literal e, ParseLiteral(c, shape.tuple_shapes(i), depth + 1));
      elements.push_back(std::move(e));
    }
    RETURN_IF_ERROR(c.Expect(')', "to close a tuple constant"));
    Literal out(shape);
    *out.mutable_tuple_elements() = std::move(elements);
    return out;
  }
  if (!shape.IsArray()) return c.Error(absl::StrCat("cannot write a constant of shape ", shape.ToString()));
  std::optional<int64_t> count = shape.ElementCount();
  // Each element needs at least one character, which bounds the allocation.
  RETURN_IF_ERROR(c.SkipWhitespace());
  if (shape.rank() > 0 && c.Peek() != '{') {
    // A single value for an array: every element takes it.
    constexpr int64_t kMaxSplatElements = int64_t{1} << 26;
    std::optional<int64_t> n = shape.ElementCount();
    if (!n || *n > kMaxSplatElements) {
      return c.Error(absl::StrCat("a single value for constant of shape ", shape.ToString(false),
                                  " would need more than ", kMaxSplatElements, " elements"));
    }
    Literal scalar(Shape::Scalar(shape.element_type()));
    RETURN_IF_ERROR(ParseElement(c, &scalar, 0));
    Literal lit(shape);
    const int width = ByteWidth(shape.element_type());
    for (int64_t i = 0; i < *n; ++i) {
      std::copy(scalar.data().begin(), scalar.data().end(), lit.mutable_data().begin() + i * width);
    }
    return lit;
  }
  if (!count || *count > static_cast<int64_t>(c.Remaining().size()) + 1) {
    return c.Error(absl::StrCat("constant of shape ", shape.ToString(false),
                                " has more elements than the text can hold"));
  }
  Literal lit(shape);
  if (shape.rank() == 0) {
    RETURN_IF_ERROR(ParseElement(c, &lit, 0));
    return lit;
  }
  int64_t next = 0;
  RETURN_IF_ERROR(ParseArrayLevel(c, &lit, 0, &next));
  return lit;
}

}  // namespace xla
