// Small integer helpers shared by the compiler and the runtime: products of
// dimension lists and rounding divisions. No LLVM, no HLO.
//
// Every function is pure and thread-safe.
#ifndef XLA_UTIL_MATH_UTIL_H_
#define XLA_UTIL_MATH_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <optional>

#include "absl/types/span.h"

namespace xla {

// The product of `dims` (1 for an empty list). No overflow check: for
// dimensions of a valid shape, whose element count fits in int64_t.
int64_t Product(absl::Span<const int64_t> dims);

// The product of dims[from], ..., dims[to - 1] (1 when from >= to). The
// range must lie inside `dims` (programmer error otherwise).
int64_t Product(absl::Span<const int64_t> dims, size_t from, size_t to);

// The product of `dims` (1 for an empty list), or nullopt when an entry is
// negative or the product overflows int64_t. For dimensions read from a
// file or a user.
std::optional<int64_t> CheckedProduct(absl::Span<const int64_t> dims);

// The number of chunks of `b` elements that cover `a` elements: a / b
// rounded up. 0 when a <= 0 or b <= 0 (nothing to cover, or no chunk
// size), so a bad divisor never divides by zero. Does not overflow.
int64_t CeilDiv(int64_t a, int64_t b);

// `a` rounded up to a multiple of `b`: CeilDiv(a, b) * b, so 0 when a <= 0
// or b <= 0. The caller keeps the result within int64_t.
int64_t RoundUp(int64_t a, int64_t b);

}  // namespace xla

#endif  // XLA_UTIL_MATH_UTIL_H_
