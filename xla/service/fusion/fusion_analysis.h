// ClassifyFusion: what kind of kernel a fusion instruction needs. The kernel
// emitters switch on FusionKind; this file is the contract between the
// fusion passes and them.
//
// Definitions (the fused computation's "roots" are its root, or the
// elements of its root tuple for a multi-output fusion; a "hero" is the
// instruction that decides the iteration space):
//
//   kLoop               No reduce inside. One thread per element of the
//                       output shape (shape = the root's, or the first
//                       tuple element's; all roots have the same
//                       dimensions). iteration = output dimensions.
//   kTranspose          A kLoop fusion whose (single) root is a transpose,
//                       possibly behind elementwise ops, of a fused
//                       parameter (or a copy of one) that moves the minor-most
//                       dimension: worth tiling through shared memory.
//                       iteration = output dimensions; permutation in
//                       `dimensions`.
//   kDynamicUpdateSliceInPlace
//                       A kLoop fusion whose root is dynamic-update-slice of
//                       a fused parameter: only the update region is
//                       written, the output aliases that parameter.
//                       iteration = the update's dimensions.
//   kScatter            Root is a scatter: iteration = the updates' shape.
//   kRowReduction       Every reduce is a root (directly or as a tuple
//                       element), all reduce the same input dimensions D =
//                       [rows..., cols...] over exactly the trailing cols.
//                       rows = product(rows...), cols = product(cols...).
//   kColumnReduction    Every reduce is a root, all with the same input
//                       shape and dims, reducing exactly one contiguous
//                       block of dimensions that is not the minor-most:
//                       input viewed as [rows, cols, minor]; reduces rows
//                       (leading block) keeping [cols...]: rows = reduced
//                       extent, cols = kept extent (kept dims all minor).
//   kWholeReduction     Every reduce is a root and reduces all dimensions
//                       (result scalar): rows = 1, cols = input elements.
//   kRowNormalization   At least one reduce is not a root (its value is
//                       broadcast back along the row, or used per row), and
//                       every reduce is a row reduction of the same D (see
//                       instruction_fusion.h). Processed one row at a time:
//                       the row's reductions in dependency order, then the
//                       row's outputs (shape D or [rows...]). rows, cols as
//                       for kRowReduction.
//   kGenericReduction   Any other fusion with a reduce (mixed or strided
//                       reduced dimensions, reductions of different
//                       shapes, reduce-window, variadic reduce, ...).
//                       iteration = the first reduce's input dimensions.
//
// Thread-safe (reads the IR only).
#ifndef XLA_SERVICE_FUSION_FUSION_ANALYSIS_H_
#define XLA_SERVICE_FUSION_FUSION_ANALYSIS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/hlo/ir/hlo_instruction.h"

namespace xla {

enum class FusionKind : uint8_t {
  kLoop,
  kTranspose,
  kDynamicUpdateSliceInPlace,
  kScatter,
  kRowReduction,
  kColumnReduction,
  kWholeReduction,
  kRowNormalization,
  kGenericReduction,
};

// Stable lower-case name ("loop", "row_reduction", ...) for reports.
absl::string_view FusionKindName(FusionKind kind);

struct FusionKindAnalysis {
  FusionKind kind = FusionKind::kLoop;
  // The hero (see above): the root for loops, the first reduce for
  // reductions, the transpose, dynamic-update-slice or scatter.
  const HloInstruction* hero = nullptr;
  // The iteration space (see above): output dimensions for kLoop and
  // kTranspose, the update's for dynamic-update-slice and scatter, the
  // reduce input's for reductions.
  std::vector<int64_t> iteration_dims;
  // For reductions: product of the kept (row) dimensions and of the reduced
  // dimensions (kRow/kWhole/kRowNormalization), or reduced extent and kept
  // extent (kColumnReduction). 0 otherwise.
  int64_t rows = 0;
  int64_t cols = 0;
  // One line: "row_normalization rows=7 cols=129 hero=reduce.1".
  std::string ToString() const;
};

// Classifies `fusion`. Errors: InvalidArgument when `fusion` is not a fusion
// instruction with a called computation (naming the instruction).
absl::StatusOr<FusionKindAnalysis> ClassifyFusion(const HloInstruction& fusion);

}  // namespace xla

#endif  // XLA_SERVICE_FUSION_FUSION_ANALYSIS_H_
