// Literal: a dense, host-side value of a Shape (array or tuple).
//
// Array data is stored in logical row-major order (dimension 0 slowest),
// independent of the shape's layout, ByteWidth(type) bytes per element in
// little-endian order. Sub-byte types (s1/s2/s4, u1/u2/u4, f4e2m1fn) take one
// byte per element: signed ones are sign-extended, others zero-extended.
// Complex elements store the real part first. Tuples own their elements.
//
// A literal may be "elided": the text `constant({...})` names a value that the
// producer did not print. Such a literal has a shape but no usable data; code
// that needs the values must check elided() and report an error.
//
// Thread-compatible: const methods may run concurrently.
#ifndef XLA_TYPES_LITERAL_H_
#define XLA_TYPES_LITERAL_H_

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "xla/types/shape.h"

namespace xla {

// Whether a literal of `shape` can be held in this machine's memory:
// ResourceExhausted "<what> (<shape>) needs N bytes, more than this
// machine's M bytes of memory" when its bytes exceed the physical memory
// (so a caller fails with a message instead of std::bad_alloc), OK
// otherwise. Thread-safe.
absl::Status CheckLiteralFitsInMemory(const Shape& shape, absl::string_view what);

class Literal {
 public:
  Literal() : Literal(Shape::Tuple({})) {}
  // A zero-filled literal of `shape` (tuples get zero-filled elements). Shapes
  // with unbounded dimensions hold no elements. The caller must make sure the
  // element count fits in memory (the parser bounds it).
  explicit Literal(const Shape& shape);

  static Literal Elided(const Shape& shape);

  const Shape& shape() const { return shape_; }
  bool elided() const { return elided_; }
  int64_t element_count() const { return element_count_; }

  // Raw element bytes (arrays only).
  absl::Span<const uint8_t> data() const { return data_; }
  absl::Span<uint8_t> mutable_data() { return absl::MakeSpan(data_); }

  // Tuple elements.
  const std::vector<Literal>& tuple_elements() const { return elements_; }
  std::vector<Literal>* mutable_tuple_elements() { return &elements_; }

  // Element access by linear row-major index; `i` must be in range.
  // Raw encoding of element `i` (not for complex types).
  uint64_t GetBits(int64_t i) const;
  void SetBits(int64_t i, uint64_t bits);
  // Value as double (floats decoded, integers converted, pred 0/1, complex:
  // real part).
  double GetDouble(int64_t i) const;
  // Rounds (floats, to nearest even), converts (integers, truncating toward
  // zero and wrapping modulo 2^bits) or tests != 0 (pred).
  void SetDouble(int64_t i, double v);
  // Integer value (sign-extended for signed types; pred 0/1; floats truncate).
  int64_t GetInt(int64_t i) const;
  // Wraps `v` to the element width.
  void SetInt(int64_t i, int64_t v);
  std::complex<double> GetComplex(int64_t i) const;
  void SetComplex(int64_t i, std::complex<double> v);

  // Linear index of a multi-dimensional index (row-major).
  int64_t LinearIndex(absl::Span<const int64_t> index) const;

  // HLO text of the value: `1.5`, `{1, 2}`, `{ {1, 2}, {3, 4} }`, `(1, 0)` for
  // complex, `true`/`false` for pred, `{...}` when elided, `( ... )` for tuples.
  // Floats print with the fewest digits that read back to the same bits.
  std::string ToString() const;
  // One element as HLO text.
  std::string ElementToString(int64_t i) const;

  // Bitwise equality of shapes (layouts ignored) and data.
  bool operator==(const Literal& o) const;
  bool operator!=(const Literal& o) const { return !(*this == o); }

 private:
  Shape shape_;
  int64_t element_count_ = 0;
  std::vector<uint8_t> data_;
  std::vector<Literal> elements_;
  bool elided_ = false;
};

// Shortest decimal text that reads back (with RoundToFormat) to `bits` in the
// float type `type`; `nan`, `-nan`, `inf`, `-inf` for specials (a NaN with a
// non-default payload prints as `nan(0x<payload>)`).
std::string FloatToShortestString(PrimitiveType type, uint64_t bits);

}  // namespace xla

#endif  // XLA_TYPES_LITERAL_H_
