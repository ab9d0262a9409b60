// Shape and Layout: the type of every HLO value.
//
// An array shape has an element type, dimension sizes and optionally a layout.
// A tuple shape holds element shapes. `token[]` and `b(...)` (buffer) shapes
// are also represented. Dynamic dimensions are either bounded (`[<=8]`: size is
// the bound, dynamic flag set) or unbounded (`[?]`: size kUnboundedSize).
// Shapes are plain values: copyable, comparable, and thread-compatible.
#ifndef XLA_TYPES_SHAPE_H_
#define XLA_TYPES_SHAPE_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "xla/types/primitive_type.h"

namespace xla {

inline constexpr int64_t kUnboundedSize = std::numeric_limits<int64_t>::min();

// Physical layout of an array. `minor_to_major` lists dimensions from the
// fastest varying to the slowest. `suffix` keeps the text after ':' verbatim
// (tiles `T(8,128)`, element size `E(4)`, memory space `S(1)`, ...).
struct Layout {
  std::vector<int64_t> minor_to_major;
  std::string suffix;

  bool operator==(const Layout& o) const {
    return minor_to_major == o.minor_to_major && suffix == o.suffix;
  }
  bool operator!=(const Layout& o) const { return !(*this == o); }
  // The memory space from an `S(n)` suffix item, or 0.
  int64_t memory_space() const;
};

class Shape {
 public:
  Shape() = default;

  // Array shape with a default (descending) layout when `with_layout`.
  static Shape Array(PrimitiveType type, absl::Span<const int64_t> dims);
  static Shape Scalar(PrimitiveType type) { return Array(type, {}); }
  static Shape Tuple(std::vector<Shape> elements);
  static Shape Token();
  static Shape Buffer(Shape array);

  PrimitiveType element_type() const { return element_type_; }
  void set_element_type(PrimitiveType t) { element_type_ = t; }

  bool IsArray() const { return IsArrayType(element_type_); }
  bool IsTuple() const { return element_type_ == PrimitiveType::TUPLE; }
  bool IsToken() const { return element_type_ == PrimitiveType::TOKEN; }
  bool IsBuffer() const { return element_type_ == PrimitiveType::BUFFER; }
  bool IsOpaque() const { return element_type_ == PrimitiveType::OPAQUE_TYPE; }
  bool IsScalar() const { return IsArray() && dims_.empty(); }

  // Array dimensions.
  int64_t rank() const { return static_cast<int64_t>(dims_.size()); }
  const std::vector<int64_t>& dimensions() const { return dims_; }
  int64_t dimensions(int64_t i) const { return dims_[i]; }
  void set_dimensions(int64_t i, int64_t size) { dims_[i] = size; }
  bool is_dynamic_dimension(int64_t i) const { return dynamic_[i]; }
  const std::vector<bool>& dynamic_dimensions() const { return dynamic_; }
  void set_dynamic_dimension(int64_t i, bool d) { dynamic_[i] = d; }
  bool is_unbounded_dimension(int64_t i) const { return dims_[i] == kUnboundedSize; }
  bool is_static() const;
  void add_dimension(int64_t size, bool dynamic = false);

  // Tuple elements (tuple shapes) or the wrapped array (buffer shapes).
  const std::vector<Shape>& tuple_shapes() const { return tuple_shapes_; }
  std::vector<Shape>* mutable_tuple_shapes() { return &tuple_shapes_; }
  const Shape& tuple_shapes(int64_t i) const { return tuple_shapes_[i]; }
  int64_t tuple_shapes_size() const { return static_cast<int64_t>(tuple_shapes_.size()); }

  bool has_layout() const { return layout_.has_value(); }
  const Layout& layout() const { return *layout_; }
  Layout* mutable_layout();
  void set_layout(Layout l) { layout_ = std::move(l); }
  void clear_layout() { layout_.reset(); }
  // Sets the row-major layout {rank-1, ..., 0} (recursively for tuples).
  void SetDefaultLayout();

  // Number of elements of an array shape (1 for scalars). Unbounded dims
  // count as 0. Returns nullopt on int64 overflow.
  std::optional<int64_t> ElementCount() const;
  // ElementCount() * ByteWidth(element_type()); nullopt on overflow.
  std::optional<int64_t> ByteSize() const;

  // HLO text, e.g. `f32[2,3]{1,0}` or `(s32[], f32[4])`. Layouts are
  // printed when present and `print_layout`.
  std::string ToString(bool print_layout = true) const;

  // Exact equality, layouts included.
  bool operator==(const Shape& o) const;
  bool operator!=(const Shape& o) const { return !(*this == o); }

 private:
  PrimitiveType element_type_ = PrimitiveType::TUPLE;
  std::vector<int64_t> dims_;
  std::vector<bool> dynamic_;
  std::vector<Shape> tuple_shapes_;
  std::optional<Layout> layout_;
};

// Equality ignoring layouts (and dynamic-ness when `ignore_dynamic`).
bool ShapesCompatible(const Shape& a, const Shape& b, bool ignore_dynamic = false);
// Same element types and dimensions for arrays, recursively for tuples, but
// element types ignored (used by ops that keep the shape but change type).
bool SameDimensions(const Shape& a, const Shape& b);

// A computation's type: parameter shapes and the result shape.
struct ProgramShape {
  std::vector<Shape> parameters;
  std::vector<std::string> parameter_names;  // may be empty
  Shape result;
  // `(p0: f32[], p1: s32[]) -> f32[]`, or `(f32[], s32[]) -> f32[]` when
  // parameter names are absent.
  std::string ToString() const;
};

}  // namespace xla

#endif  // XLA_TYPES_SHAPE_H_
