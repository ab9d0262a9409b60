#include "xla/types/shape.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace xla {

int64_t Layout::memory_space() const {
  size_t pos = suffix.find("S(");
  if (pos == std::string::npos) return 0;
  size_t end = suffix.find(')', pos);
  int64_t space = 0;
  if (end == std::string::npos ||
      !absl::SimpleAtoi(suffix.substr(pos + 2, end - pos - 2), &space)) {
    return 0;
  }
  return space;
}

Shape Shape::Array(PrimitiveType type, absl::Span<const int64_t> dims) {
  Shape s;
  s.element_type_ = type;
  s.dims_.assign(dims.begin(), dims.end());
  s.dynamic_.assign(dims.size(), false);
  s.SetDefaultLayout();
  return s;
}

Shape Shape::Tuple(std::vector<Shape> elements) {
  Shape s;
  s.element_type_ = PrimitiveType::TUPLE;
  s.tuple_shapes_ = std::move(elements);
  return s;
}

Shape Shape::Token() {
  Shape s;
  s.element_type_ = PrimitiveType::TOKEN;
  return s;
}

Shape Shape::Buffer(Shape array) {
  Shape s;
  s.element_type_ = PrimitiveType::BUFFER;
  s.tuple_shapes_.push_back(std::move(array));
  return s;
}

bool Shape::is_static() const {
  if (IsTuple() || IsBuffer()) {
    for (const Shape& e : tuple_shapes_) {
      if (!e.is_static()) return false;
    }
    return true;
  }
  for (bool d : dynamic_) {
    if (d) return false;
  }
  return true;
}

void Shape::add_dimension(int64_t size, bool dynamic) {
  dims_.push_back(size);
  dynamic_.push_back(dynamic || size == kUnboundedSize);
}

Layout* Shape::mutable_layout() {
  if (!layout_) layout_.emplace();
  return &*layout_;
}

void Shape::SetDefaultLayout() {
  if (IsTuple() || IsBuffer()) {
    for (Shape& e : tuple_shapes_) e.SetDefaultLayout();
    return;
  }
  if (!IsArray()) return;
  Layout l;
  for (int64_t i = rank() - 1; i >= 0; --i) l.minor_to_major.push_back(i);
  layout_ = std::move(l);
}

std::optional<int64_t> Shape::ElementCount() const {
  int64_t n = 1;
  for (int64_t d : dims_) {
    if (d == kUnboundedSize) return 0;
    if (d < 0) return std::nullopt;
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) return std::nullopt;
    n *= d;
  }
  return n;
}

std::optional<int64_t> Shape::ByteSize() const {
  std::optional<int64_t> n = ElementCount();
  if (!n) return std::nullopt;
  int64_t width = ByteWidth(element_type_);
  if (width != 0 && *n > std::numeric_limits<int64_t>::max() / width) return std::nullopt;
  return *n * width;
}

namespace {

std::string DimString(const Shape& s, int64_t i) {
  if (s.is_unbounded_dimension(i)) return "?";
  if (s.is_dynamic_dimension(i)) return absl::StrCat("<=", s.dimensions(i));
  return absl::StrCat(s.dimensions(i));
}

}  // namespace

std::string Shape::ToString(bool print_layout) const {
  if (IsTuple()) {
    std::vector<std::string> parts;
    for (const Shape& e : tuple_shapes_) parts.push_back(e.ToString(print_layout));
    return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
  }
  if (IsBuffer()) {
    return absl::StrCat("b(", tuple_shapes_.empty() ? "" : tuple_shapes_[0].ToString(print_layout),
                        ")");
  }
  std::string out = absl::StrCat(PrimitiveTypeName(element_type_), "[");
  for (int64_t i = 0; i < rank(); ++i) {
    if (i > 0) out += ",";
    out += DimString(*this, i);
  }
  out += "]";
  if (print_layout && layout_ && IsArray() &&
      !(layout_->minor_to_major.empty() && layout_->suffix.empty())) {
    absl::StrAppend(&out, "{", absl::StrJoin(layout_->minor_to_major, ","));
    if (!layout_->suffix.empty()) absl::StrAppend(&out, ":", layout_->suffix);
    out += "}";
  }
  return out;
}

bool Shape::operator==(const Shape& o) const {
  return element_type_ == o.element_type_ && dims_ == o.dims_ && dynamic_ == o.dynamic_ &&
         tuple_shapes_ == o.tuple_shapes_ && layout_ == o.layout_;
}

bool ShapesCompatible(const Shape& a, const Shape& b, bool ignore_dynamic) {
  if (a.element_type() != b.element_type()) return false;
  if (a.IsTuple() || a.IsBuffer()) {
    if (a.tuple_shapes_size() != b.tuple_shapes_size()) return false;
    for (int64_t i = 0; i < a.tuple_shapes_size(); ++i) {
      if (!ShapesCompatible(a.tuple_shapes(i), b.tuple_shapes(i), ignore_dynamic)) return false;
    }
    return true;
  }
  if (a.dimensions() != b.dimensions()) return false;
  return ignore_dynamic || a.dynamic_dimensions() == b.dynamic_dimensions();
}

bool SameDimensions(const Shape& a, const Shape& b) {
  if (a.IsTuple() != b.IsTuple()) return false;
  if (a.IsTuple()) {
    if (a.tuple_shapes_size() != b.tuple_shapes_size()) return false;
    for (int64_t i = 0; i < a.tuple_shapes_size(); ++i) {
      if (!SameDimensions(a.tuple_shapes(i), b.tuple_shapes(i))) return false;
    }
    return true;
  }
  return a.dimensions() == b.dimensions();
}

std::string ProgramShape::ToString() const {
  std::vector<std::string> params;
  for (size_t i = 0; i < parameters.size(); ++i) {
    std::string p = parameters[i].ToString();
    if (i < parameter_names.size() && !parameter_names[i].empty()) {
      p = absl::StrCat(parameter_names[i], ": ", p);
    }
    params.push_back(std::move(p));
  }
  return absl::StrCat("(", absl::StrJoin(params, ", "), ") -> ", result.ToString());
}

}  // namespace xla
