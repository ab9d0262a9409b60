// Comparing two literals (trees of arrays) for "same result" checks: a pass
// must not change what a module computes.
//
// Integers, pred and tokens compare exactly; floats compare within a
// relative tolerance chosen per type (see DefaultRelativeTolerance), with NaN
// equal to NaN (in the same positions) and infinities equal only to the same
// infinity; complex numbers compare each part that way. Pure; thread-safe.
#ifndef XLA_HLO_TRANSFORMS_LITERAL_COMPARE_H_
#define XLA_HLO_TRANSFORMS_LITERAL_COMPARE_H_

#include "absl/status/status.h"
#include "xla/types/literal.h"

namespace xla {

// The relative tolerance for a float type: 1e-12 for f64, 1e-5 for f32, and
// a few units in the last place for the narrow types. 0 for non-floats.
double DefaultRelativeTolerance(PrimitiveType type);

// OK when `actual` matches `expected`: same tuple structure, same element
// types and dimensions, and each element equal as described above (using
// DefaultRelativeTolerance scaled by `tolerance_scale`). Otherwise
// InvalidArgumentError naming the tuple index path, the first differing
// element's linear index and both values, and how many elements differ.
absl::Status CompareLiterals(const Literal& expected, const Literal& actual,
                             double tolerance_scale = 1.0);

// The check for a compiled program's output against a reference (`xla_aot
// run --reference`, the golden suite): for an array of floats or complex
// numbers, every element within tol * (|want| + max|want|) (|.| the modulus
// for complex numbers), where tol is DefaultRelativeTolerance
// scaled by `tolerance_scale` and max|want| the largest finite |want| (so
// errors relative to the output's scale pass; a kernel may round
// differently from the evaluator), NaN where NaN is expected (per part),
// the same infinity where one is expected. Anything else
// (integers, pred, tuples, mismatched counts or types) goes to
// CompareLiterals. InvalidArgumentError "N of M elements differ; first at
// index I: expected X but got Y" otherwise.
absl::Status CompareOutputLeaf(const Literal& want, const Literal& got,
                               double tolerance_scale = 1.0);

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_LITERAL_COMPARE_H_
