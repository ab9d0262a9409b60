// What kind of kernel the host and NVPTX fusion emitters build for a fusion,
// and which buffers its outputs are: the codegen-side classification shared
// by host/host_fusion_emitter.cc and nvptx/nvptx_fusion_emitter.cc.
//
// Kinds (FusionKernelKind):
//   kLoop              no reduce: per output element.
//   kTranspose         kLoop, every output of the same dims, rank >= 2, and
//                      some fused transpose with the output's dims moves the
//                      input's minor dimension to output dim `transpose_dim`.
//   kRowReduction      every reduce reduces exactly the trailing dims of the
//                      same input dims D, and every output has the row dims
//                      (D's kept prefix). kWholeReduction: the same with no
//                      kept dims.
//   kRowNormalization  the same reduces, outputs of the row dims or of D,
//                      at least one output of D that is not also row-shaped.
//   kColumnReduction   every reduce is [R,C] dims={0} or [A,R,C] dims={1} of
//                      the same input dims, every reduce is an output and
//                      every output is a reduce.
//   kGenericReduction  any other fusion with a reduce.
//   kDusInPlace        root dynamic-update-slice (single output) of a fused
//                      parameter read by nothing else whose buffer the output
//                      aliases (output_aliases_operand[0]).
//   kScatter           root scatter; `in_place` as for kDusInPlace.
//
// Why not xla/service/fusion/fusion_analysis.h (ClassifyFusion)? Its kinds
// are the fusion passes' view and differ from what the emitters need:
//   * Row normalization. ClassifyFusion calls a fusion kRowNormalization when
//     some reduce is not a root, and kRowReduction when every reduce is a
//     root, whatever the other outputs' shapes. The emitters must know
//     whether any OUTPUT has the full input shape D (those outputs are
//     written per element of the row, the others once per row): a row
//     reduction that also writes a full-row-shaped elementwise output is
//     kRowReduction there but kRowNormalization here, and a fusion whose
//     non-root reduce only feeds row-shaped outputs is kRowNormalization
//     there but kRowReduction here. ClassifyFusion also never checks that
//     the outputs have the row or full shape, which the row kernels require.
//   * Variadic reduces (argmax). ClassifyFusion requires two-operand reduces
//     for every row/column kind; the emitters handle variadic reduces in
//     every kind, so those fusions would fall to kGenericReduction there.
//   * Layouts. ClassifyFusion rejects non-row-major reduce inputs for row
//     and column kinds; the emitters index through IrArray, which honours
//     any layout, so they keep the row/column kernels.
//   * Column reductions. ClassifyFusion accepts any contiguous, non-minor
//     block of reduced dims; the column kernels here handle exactly
//     [R,C] dims={0} and [A,R,C] dims={1}.
//   * Transpose. ClassifyFusion wants the single root to be (unary
//     elementwise ops over) a transpose of a parameter; here any fused
//     transpose whose result has the output dims qualifies, multi-output
//     too.
//   * Dynamic-update-slice and scatter in place depend on the buffer
//     assignment (output_aliases_operand) and on the parameter having no
//     other user; ClassifyFusion says kDynamicUpdateSliceInPlace for any
//     root DUS of a parameter, which would be wrong without the alias.
// The kind names (FusionKernelKindName) are the host emitter's
// HostKernelInfo::kind strings.
//
// Thread-safety: every function here only reads the IR; safe to call
// concurrently on unmodified computations.
#ifndef XLA_BACKENDS_GPU_CODEGEN_FUSION_KERNEL_ANALYSIS_H_
#define XLA_BACKENDS_GPU_CODEGEN_FUSION_KERNEL_ANALYSIS_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/types/shape.h"

namespace xla::gpu {

// The error the fusion emitters return for what they do not handle:
// Unimplemented "<emitter> fusion emitter: <name> (<opcode>): <why>".
absl::Status FusionEmitterUnimplemented(absl::string_view emitter, const HloInstruction& hlo,
                                        absl::string_view why);

// A kernel output: value `value` of `instr` (non-zero only for an element
// of a tuple-shaped variadic reduce), written to a buffer of `shape`.
struct OutputLeaf {
  const HloInstruction* instr = nullptr;
  int64_t value = 0;
  Shape shape;
};

// One buffer argument of a fusion kernel, in kernel parameter order: the
// fusion's operands, then its output leaves (both targets' kernel infos).
struct FusionKernelArg {
  bool is_output = false;
  // Operand number, or output leaf number.
  int64_t index = 0;
  Shape shape;
};

// The outputs of `fusion` (whose called computation is `computation`): one
// per array leaf of the fusion's shape, in order. A root tuple yields its
// operands, a variadic reduce root its values. Errors, prefixed with
// "<emitter> fusion emitter: ": Unimplemented for a tuple-shaped scatter
// ("variadic scatter") or any other tuple-shaped root, or a nested tuple
// output; InvalidArgument when the fusion's leaf count differs from the
// root's.
absl::StatusOr<std::vector<OutputLeaf>> CollectOutputLeaves(absl::string_view emitter,
                                                            const HloInstruction& fusion,
                                                            const HloComputation& computation);

// The reduce's dimensions, sorted.
std::vector<int64_t> SortedReduceDims(const HloInstruction& reduce);

// The reduces of `computation` in post order.
std::vector<const HloInstruction*> CollectReduces(const HloComputation& computation);

enum class FusionKernelKind : uint8_t {
  kLoop,
  kTranspose,
  kRowReduction,
  kRowNormalization,
  kWholeReduction,
  kColumnReduction,
  kGenericReduction,
  kDusInPlace,
  kScatter,
};

// "loop", "transpose", "row_reduction", "row_normalization",
// "whole_reduction", "column_reduction", "generic_reduction",
// "dus_in_place", "scatter".
absl::string_view FusionKernelKindName(FusionKernelKind kind);

struct FusionKernelAnalysis {
  FusionKernelKind kind = FusionKernelKind::kLoop;
  // Every output leaf has the first leaf's dimensions.
  bool same_output_dims = true;
  // Row and column kinds: the input dims of every reduce.
  std::vector<int64_t> reduce_input_dims;
  // Row kinds: how many leading dims are kept (the row dims).
  int64_t kept_dims = 0;
  // kTranspose: the output dim along the input's minor dimension.
  int64_t transpose_dim = -1;
  // kScatter: the output aliases operand 0's fused parameter (see above).
  bool in_place = false;
};

// Classifies the fusion whose called computation is `computation`, outputs
// `leaves` (CollectOutputLeaves) and reduces `reduces` (CollectReduces).
// `output_aliases_operand`: per output leaf, the operand whose buffer it
// shares, or -1 (empty: none). Never fails: kinds the kernels cannot take
// (malformed scatter, ...) are rejected by the emitters.
FusionKernelAnalysis AnalyzeFusionKernel(const HloComputation& computation,
                                         absl::Span<const OutputLeaf> leaves,
                                         absl::Span<const HloInstruction* const> reduces,
                                         absl::Span<const int64_t> output_aliases_operand);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_FUSION_KERNEL_ANALYSIS_H_
