// Stacked literals: the `--replicas=N` file layout of `xla_aot run` and
// `xla_aot eval`, where every input and output array carries a leading
// dimension of N and slice i belongs to participant i.
//
// Thread-safety: pure functions.
#ifndef XLA_TOOLS_STACKED_LITERALS_H_
#define XLA_TOOLS_STACKED_LITERALS_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "xla/types/literal.h"

namespace xla::tools {

// Slice `index` of the leading dimension of `stacked` (an array of rank >= 1
// with index < its leading dimension; callers check).
Literal LeadingSlice(const Literal& stacked, int64_t index);

// Splits an array literal with leading dimension `n` into its n slices.
// InvalidArgument naming `what` when the literal is not an array or its
// leading dimension is not n.
absl::StatusOr<std::vector<Literal>> UnstackLeading(const Literal& stacked, int64_t n,
                                                    absl::string_view what);

// Stacks equally shaped array literals along a new leading dimension.
// InvalidArgument naming `what` and the participant when a shape differs
// from participant 0's, or when `parts` is empty.
absl::StatusOr<Literal> StackLeading(absl::Span<const Literal* const> parts,
                                     absl::string_view what);
absl::StatusOr<Literal> StackLeading(absl::Span<const Literal> parts, absl::string_view what);

// The participants' argument lists from stacked inputs: result[r][p] is
// slice r of stacked[p], or a token where stacked[p] is a token (a token
// parameter holds nothing and is not stacked). Errors as UnstackLeading,
// naming "input <p>".
absl::StatusOr<std::vector<std::vector<Literal>>> UnstackArguments(
    absl::Span<const Literal> stacked, int64_t n);

// Stacks the participants' result leaves: result[k] stacks leaves[r][k] over
// the participants r. Errors as StackLeading, naming "<what> <k>", or when
// participants have different numbers of leaves.
absl::StatusOr<std::vector<Literal>> StackParticipantLeaves(
    const std::vector<std::vector<const Literal*>>& leaves, absl::string_view what);

}  // namespace xla::tools

#endif  // XLA_TOOLS_STACKED_LITERALS_H_
