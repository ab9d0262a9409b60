// NumPy `.npy` files (format versions 1, 2 and 3) to and from Literals.
//
// Every numeric type and bool is supported. Types NumPy lacks travel as
// wider ones: bf16, f8 and f4 variants as float32 (converted with
// round-to-nearest-even on the way in), s1/s2/s4 as int8, u1/u2/u4 as uint8
// (range-checked on the way in). Fortran-order arrays are reordered;
// big-endian data is byte-swapped.
//
// Errors are InvalidArgumentError naming the file (or `what`) and the
// problem: bad magic, truncated header or data, unsupported dtype, wrong
// dtype or shape for the expected parameter. Never reads out of bounds.
// Thread-safe (pure functions; file functions touch only the given path).
#ifndef XLA_TYPES_NPY_H_
#define XLA_TYPES_NPY_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/types/literal.h"
#include "xla/types/shape.h"

namespace xla {

// The literal a file holds, in the file's own element type. `what` names the
// source in errors (a file name).
absl::StatusOr<Literal> ParseNpy(absl::string_view bytes, absl::string_view what);

// Converts a parsed .npy literal to `expected` (an array shape): the
// dimensions must match exactly and the file's type must be the travel type
// of `expected`'s element type (see NpyTravelType). `what` names the
// destination in errors, e.g. "parameter 0 ('x')".
absl::StatusOr<Literal> ConvertNpyLiteral(const Literal& file_value, const Shape& expected,
                                          absl::string_view what);

// The element type a value of `type` has in a .npy file (F32 for BF16, S8
// for S4, ...). InvalidArgument for token/tuple/opaque.
absl::StatusOr<PrimitiveType> NpyTravelType(PrimitiveType type);

// Serializes an array literal (converted to its travel type) as .npy v1.
absl::StatusOr<std::string> SerializeNpy(const Literal& value);

// File helpers: read or write the whole file. Errors name the path.
absl::StatusOr<Literal> ReadNpyFile(const std::string& path);
absl::Status WriteNpyFile(const std::string& path, const Literal& value);

}  // namespace xla

#endif  // XLA_TYPES_NPY_H_
