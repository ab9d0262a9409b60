// ComplexExpander ("complex-expander"): rewrites complex numbers (c64,
// c128) into real arrays, so that every target runs them with its real
// kernels. A complex array T[d...] becomes a real array R[d..., 2] of its
// component type (f32 for c64, f64 for c128) holding (re, im) in the
// trailing dimension: the same bytes, in the same order, as the complex
// array, so a `bitcast` converts between the two for free.
//
// What changes:
//   * The entry computation keeps its signature. A complex entry parameter
//     is bitcast to its real form where used; a complex result is bitcast
//     back at the root. Buffers, the runtime and the artifact schema are
//     unchanged (the bitcasts alias their operand's buffer, or become one
//     device copy at the root).
//   * while bodies and conditions, and conditional branches, take and
//     return the real forms: their parameters' shapes change in place.
//   * Layout and data-movement ops carry the extra dimension: broadcast,
//     reshape, transpose, slice, reverse, concatenate, dynamic-slice,
//     dynamic-update-slice, gather (the pair as one more window
//     dimension), copy, tuple, get-tuple-element, while, conditional; pad
//     pads each part with its part of the padding value.
//   * Constants are reinterpreted (same bytes).
//   * Arithmetic becomes real ops on the parts (complex_math.h for the
//     definitions): complex, real, imag, add, subtract, multiply, divide,
//     negate, abs, sign, exp, expm1, log, log1p, sqrt, rsqrt, acos, sin,
//     cos, tan, sinh, cosh, tanh, logistic, power, atan2, compare EQ/NE,
//     select, convert
//     (complex to complex, real to complex, complex to real: the real
//     part, as the evaluator), a reduce whose reducer is a plain add (one
//     reduce per part), and dot (four real dots: re = ac - bd,
//     im = ad + bc, each accumulated as a real dot; XLA's precision, not
//     Gauss's three-multiplication form, which loses accuracy when the
//     parts differ in magnitude).
//   * Ops that apply a scalar computation (sort, reduce with any other
//     reducer, reduce-window, scatter) run on the parts: each complex
//     array becomes two real arrays (re, im) of the same op (so the op is
//     variadic), and its computation is rewritten to match (each complex
//     parameter two real ones, recombined with `complex` and lowered like
//     the rest; each complex result two results). A sort's comparator
//     therefore sees both parts of each operand, as JAX's lexicographic
//     order needs. A scatter-add of one complex array is instead one real
//     scatter with the pair as one more update window dimension (atomic
//     adds on sm_XX).
//   * logistic and atan2 (complex_math.h), and a select-and-scatter of a
//     complex source onto a real operand with an adding scatter (the
//     result is real: the same op on the real parts of the source and the
//     initial value, as the evaluator keeps the real part of its sums).
//   * A select-and-scatter of a complex operand (its select computation
//     compares complex values through real, imag, abs, ...; XLA:CPU runs
//     it) is first rewritten by SelectAndScatterExpander into a
//     reduce-window that finds each window's selected index and a
//     scatter of the source there, which are then split into parts as
//     above.
//   * Anything else that touches a complex value (fft, custom calls,
//     asin, atan, the inverse hyperbolic functions, bitcast-convert, ...) keeps its complex operands
//     and results, bitcast from and to the real forms around it; fft's
//     thunk then reads and writes c64/c128 buffers as they are, and the
//     targets refuse other complex ops by name.
//
// Run after the expanders that produce complex ops (cholesky,
// triangular-solve, the builder math calls) and before fusion. Not
// thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_COMPLEX_EXPANDER_H_
#define XLA_HLO_TRANSFORMS_COMPLEX_EXPANDER_H_

#include "absl/status/statusor.h"
#include "xla/hlo/transforms/hlo_pass.h"
#include "xla/types/shape.h"

namespace xla {

class ComplexExpander : public HloPass {
 public:
  absl::string_view name() const override { return "complex-expander"; }
  // Returns whether anything was rewritten. Fails (Internal, naming the
  // instruction) only when a rewrite leaves shapes that do not fit, which
  // is a bug in the pass.
  absl::StatusOr<bool> Run(HloModule* module) override;
};

// True when `shape` (or a tuple leaf of it) has a complex element type.
// Pure.
bool HasComplexLeaf(const Shape& shape);

// `shape` with every complex leaf T[d...] replaced by its real form
// R[d..., 2] (a row-major layout where the leaf had a layout). Pure.
Shape RealPairShape(const Shape& shape);

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_COMPLEX_EXPANDER_H_
