// Small builders shared by the canonicalization passes: transposes and
// reshapes that are only added when they change something, and the unit-dim
// aware test that decides whether a permutation can be done by a reshape.
//
// The builders add instructions to a computation with row-major result
// layouts and unique names. Not thread-safe (they mutate the computation).
#ifndef XLA_SERVICE_CANONICALIZE_REWRITE_UTIL_H_
#define XLA_SERVICE_CANONICALIZE_REWRITE_UTIL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

#include "absl/types/span.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/hlo/transforms/hlo_util.h"

namespace xla::canonicalize {

// True when `perm` is 0, 1, ..., n-1. Pure.
bool IsIdentityPermutation(absl::Span<const int64_t> perm);

// True when transposing an array of `dims` by `perm` (result dim i = operand
// dim perm[i]) moves no element: the dimensions of size != 1 keep their
// relative order, so a reshape does the same job. Pure.
bool PermutationIsReshape(absl::Span<const int64_t> dims, absl::Span<const int64_t> perm);

// The inverse permutation of `perm`. Pure.
std::vector<int64_t> InversePermutation(absl::Span<const int64_t> perm);

// True when every array in `shape` (recursively) has only static
// dimensions. Pure.
bool IsStaticShape(const Shape& shape);

// True when array shape `shape` has no layout or the row-major one
// (minor_to_major = rank-1, ..., 0) without a suffix. Pure.
bool IsRowMajorOrUnset(const Shape& shape);

// Adds `opcode(operands)` with result `shape` and a unique name made from
// `base`; the caller sets its attributes.
HloInstruction* AddOp(HloComputation* computation, NameUniquer* names, HloOpcode opcode,
                      Shape shape, std::vector<HloInstruction*> operands, const std::string& base);

// Adds `reshape(operand)` to `dims` (operand's element type, row-major
// layout), or returns `operand` when its dimensions already are `dims`.
// The element counts must agree (programmer error otherwise).
HloInstruction* AddReshape(HloComputation* computation, NameUniquer* names,
                           HloInstruction* operand, absl::Span<const int64_t> dims);

// Adds `transpose(operand), dimensions=perm`, a reshape when the permutation
// moves no element (PermutationIsReshape), or returns `operand` for the
// identity. `perm` must be a permutation of the operand's rank.
HloInstruction* AddTranspose(HloComputation* computation, NameUniquer* names,
                             HloInstruction* operand, absl::Span<const int64_t> perm);

// Adds `get-tuple-element(tuple), index=index`.
HloInstruction* AddGetTupleElement(HloComputation* computation, NameUniquer* names,
                                   HloInstruction* tuple, int64_t index);

// Adds `tuple(elements...)` whose shape is the elements' shapes.
HloInstruction* AddTuple(HloComputation* computation, NameUniquer* names,
                         const std::vector<HloInstruction*>& elements);

// Builds the replacement of one instruction in `computation` (adding what it
// needs through `names`), or returns nullptr to keep the instruction.
using RewriteFn = std::function<absl::StatusOr<HloInstruction*>(
    HloInstruction* instr, HloComputation* computation, NameUniquer* names)>;

// Calls `rewrite` on every instruction of `opcode` in every computation of
// `module` (instructions with control edges are skipped), replaces each
// instruction that got a replacement (the shapes must be compatible) and
// removes the replaced ones in one sweep per computation. Returns whether
// anything changed; fails with the first error of `rewrite`.
absl::StatusOr<bool> RewriteEach(HloModule* module, HloOpcode opcode, const RewriteFn& rewrite);

}  // namespace xla::canonicalize

#endif  // XLA_SERVICE_CANONICALIZE_REWRITE_UTIL_H_
