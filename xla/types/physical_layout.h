// Moving array bytes between the logical order Literal uses (row-major,
// whatever the shape's layout says) and the physical order a layout
// prescribes (minor_to_major: the first dimension listed varies fastest).
//
// Device buffers hold physical bytes; host Literals hold logical bytes. Tools
// that copy between them (xla_aot run, tests) go through these functions.
//
// Thread-safety: pure functions.
#ifndef XLA_TYPES_PHYSICAL_LAYOUT_H_
#define XLA_TYPES_PHYSICAL_LAYOUT_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "xla/types/shape.h"

namespace xla {

// True when `shape` is an array whose physical order equals the logical one:
// no layout, or the descending layout, without tiles. Element-size (`E(n)`)
// and memory-space (`S(n)`) suffix items do not change the order. Any layout
// is trivial for arrays of at most one element.
bool PhysicalOrderIsLogical(const Shape& shape);

// Copies `logical` (row-major) into `physical` ordered by `shape`'s layout.
// Both spans must be ElementCount * ByteWidth bytes. Errors: a tuple shape,
// a layout that is not a permutation of the dimensions, a tiled layout
// (`T(...)`, unsupported), or wrong span sizes.
absl::Status LogicalToPhysical(const Shape& shape, absl::Span<const uint8_t> logical,
                               absl::Span<uint8_t> physical);

// The inverse of LogicalToPhysical, with the same errors.
absl::Status PhysicalToLogical(const Shape& shape, absl::Span<const uint8_t> physical,
                               absl::Span<uint8_t> logical);

}  // namespace xla

#endif  // XLA_TYPES_PHYSICAL_LAYOUT_H_
