// Host kernels for fusion instructions: one LLVM function per fusion that
// follows xla/stream_executor/host/host_kernel_abi.h.
//
// The kernel's buffer arguments are the fusion's operands in order, then one
// output buffer per array leaf of the fusion's shape (tuple elements in order
// for multi-output fusions). The kernel loops over its block range; blocks
// are independent and each writes a disjoint part of the outputs, except for
// the kinds that use a single block (scatter, whole reduction).
//
// Kinds (chosen by AnalyzeFusionKernel in ../fusion_kernel_analysis.h, reported in
// HostKernelInfo::kind). The emitter is HostFusionKernelEmitter
// (host_fusion_kernel_emitter.h) over the core both targets share
// (../fusion_emitter_core.h), one file per kind: host_loop_kernel.cc,
// host_transpose_kernel.cc, host_reduction_kernel.cc (row and column kinds),
// host_update_kernel.cc (dus, scatter, select-and-scatter),
// host_sort_kernel.cc, host_topk_kernel.cc, host_convolution_kernel.cc;
// host_fusion_emitter.cc
// dispatches.
//   loop               no reduce: per output element, the fused computation
//                      through the elemental emitter; block = rows x column
//                      chunk of the output, inner loop unit-stride.
//   transpose          loop whose computation holds a transpose moving the
//                      minor dimension: tiles of transpose_tile^2 elements.
//   row_reduction      every reduce reduces the trailing dims of the same
//   row_normalization  input dims D (row = the kept prefix); per row the
//   whole_reduction    reductions are computed once (dependency order,
//                      later ones reading earlier cached values), then
//                      outputs of the row shape or of D are written.
//                      whole = no kept dims (one block, sequential).
//   column_reduction   every root is a reduce of [R,C] dims={0} or [A,R,C]
//                      dims={1}: block = (a, chunk of C), accumulators along
//                      C in a stack array, loop over R outside.
//   generic_reduction  any other fusion with reduces: per output leaf, per
//                      element, a loop over the reduced dims.
//   dus_in_place       root dynamic-update-slice of a fused parameter whose
//                      buffer the output aliases: only the update is written.
//   scatter            root scatter: one block, sequential in update order,
//                      the operand copied first unless the output aliases it.
//   sort               root sort (one or more operands, any sort dim): one
//                      block per line along the sort dim; the line is
//                      copied to the outputs and insertion-sorted there
//                      when it has at most 128 elements; longer lines
//                      sort runs of 16 so, then bottom-up merge passes go back
//                      and forth through a scratch line (stack or malloc,
//                      see sort_stack_scratch_bytes): stable, O(n log n)
//                      comparator calls per line, for any comparator.
//   topk               root topk (any non-complex type, k <= kHostTopKMaxK
//                      by the compiler's choice, any k here): one block per
//                      row; one pass over the row keeps its best k sorted in
//                      the outputs (insertion from the end), in the
//                      evaluator's total order, lower index first among
//                      equal keys: bit-exact. O(n) typical, O(n k) worst.
//   select_and_scatter root select-and-scatter: one block; the output is
//                      set to init, then per source element (row-major)
//                      the window selection of ../window_gather_ir.h and
//                      output[selected] = scatter(source, output[selected]).
//   convolution        root convolution: block = one output position x up
//                      to 128 output features; loops over the window and
//                      input features with the feature loop innermost
//                      (vectorizes), f64 accumulators in the evaluator's
//                      order (bit-exact).
// Convolution, reduce-window and gather are also element generators
// (../window_gather_ir.h) usable in any kind, typically loop: one output
// element loops over its window (and input features); convolutions
// accumulate in f64 in the evaluator's order, so they are bit-exact too.
// Every reduction accumulates sequentially over the reduced dims in
// row-major order starting from the init value, exactly as the reference
// evaluator does, so results are bit-identical to it (at the cost of no
// vectorization along a reduced row). No fast-math flags are used.
//
// Thread-safety: emission mutates `module` (not thread-safe for one module);
// the emitted kernel is safe to call concurrently on disjoint block ranges.
#ifndef XLA_BACKENDS_GPU_CODEGEN_HOST_HOST_FUSION_EMITTER_H_
#define XLA_BACKENDS_GPU_CODEGEN_HOST_HOST_FUSION_EMITTER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "llvm/IR/Module.h"
#include "xla/backends/gpu/codegen/fusion_kernel_analysis.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/types/shape.h"

namespace xla::gpu {

// The host compiler leaves `topk` ops with k up to this to the topk kind
// (TopKDecomposer's keep_topk_up_to_k); larger ones become sorts, whose
// O(n log n) beats the topk kind's O(n k) worst case there.
inline constexpr int64_t kHostTopKMaxK = 128;

struct HostEmitOptions {
  // Approximate bytes of output (or, for reductions, of input) per block.
  int64_t target_block_bytes = 32 * 1024;
  // Edge of the square tiles of transpose kernels.
  int64_t transpose_tile = 64;
  // Column reductions: most columns per block (accumulators on the stack).
  int64_t column_chunk = 512;
  // Per buffer argument (operands, then outputs): true when the buffer
  // overlaps no other argument, so it may be marked `noalias`. Empty: none.
  std::vector<bool> noalias;
  // Per buffer argument: the alignment in bytes the caller guarantees (a
  // power of two); smaller than 16 or missing means 16.
  std::vector<int64_t> alignment;
  // Per output leaf: the operand index whose buffer the output shares, or
  // -1. Enables in-place dynamic-update-slice and scatter, and the kernel
  // writes such a leaf through the operand's pointer (its own argument is
  // unused), so in-place element-wise loops vectorize. Empty: none.
  std::vector<int64_t> output_aliases_operand;
  // Row (and whole) reductions whose reducer is an add, multiply, maximum
  // or minimum of f32/f64 keep this many bytes of independent accumulators
  // (32: 8 f32 or 4 f64 lanes) so LLVM vectorizes them, the fused
  // element-wise work feeding them included (see lane_reduce_ir.h). The
  // result is deterministic but, for add and multiply, not the evaluator's
  // bits. 0: every reduction folds sequentially in the evaluator's order.
  int64_t reduction_vector_bytes = 32;
  // Row maximum and minimum reductions of that kind whose input is cheap
  // per element (no transcendental) keep this many such vectors of
  // accumulators, folded in turn, so the reducer's latency chain (13 cycles
  // per step with NaN and signed-zero semantics) does not bound the loop.
  // 1: one (host_reduction_kernel.cc, ReductionVectors).
  int64_t reduction_vectors = 4;
  // Row kernels whose output pass needs the last reduction's input again
  // (softmax: exp(x - max) is summed, then divided by the sum) and whose
  // input is expensive per element keep that input's row on the stack, up
  // to this many bytes, instead of computing it twice. 0: always recompute.
  int64_t row_cache_bytes = 64 * 1024;
  // Sort kernels merge through one scratch line per operand: a stack array
  // when all of a line's scratch takes at most this many bytes, else one
  // malloc per line (freed after it). 0: always malloc.
  int64_t sort_stack_scratch_bytes = 64 * 1024;
};

// One buffer argument of the kernel (operands, then output leaves).
using HostKernelArg = FusionKernelArg;

struct HostKernelInfo {
  std::string symbol;
  // The grid: the runtime splits [0, total_blocks) across threads. 0 when
  // the output is empty (nothing to launch).
  int64_t total_blocks = 0;
  std::vector<HostKernelArg> args;
  // The kind of kernel emitted ("loop", "row_normalization", ... see above).
  std::string kind;
};

// Adds kernel `symbol` for `fusion` (a kFusion instruction with a called
// computation) to `module`. Errors: InvalidArgument when `fusion` is not a
// fusion, has tuple-shaped operands, or `symbol` already exists in
// `module`; Unimplemented naming the fused instruction when it contains an
// op no host emitter handles (dot, select-and-scatter, rng, a sort that is
// not the root, variadic scatter, ...). On error the module may hold a partial function
// that the caller must discard with the module.
absl::StatusOr<HostKernelInfo> EmitHostFusionKernel(
    const HloInstruction& fusion, const std::string& symbol, const HostEmitOptions& options,
    llvm::Module* module);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_HOST_HOST_FUSION_EMITTER_H_
