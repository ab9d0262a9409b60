// The one place that decides how NVPTX fusion kernels are launched: threads
// per block, blocks, the vector width of elementwise loops, how many rows a
// row-reduction block handles, and tile edges. Every kernel emitter in this
// package asks ChooseLaunchDimensions and emits code for exactly the choice
// it returns, so tuning happens here and nowhere else.
//
// The policy (constants in the .cc, limits from the NvptxTarget table):
//   loop / dus_in_place / scatter_atomic / generic_reduction:
//       256 threads per block, one work item per thread (4 elements when
//       vectorizable and the element count is a multiple of 4); when that
//       needs more than kMaxWavesPerSm * sm_count blocks, the grid is capped
//       and the kernel becomes a grid-stride loop.
//   row_reduction / row_normalization:
//       rows of at most kMaxWarpRowLength elements: one warp per row,
//       kRowsPerBlock rows (warps) per block; longer rows: one block per row
//       with up to 512 threads (a multiple of the warp size).
//   whole_reduction: one block of max_threads_per_block threads.
//   column_reduction: 32 x 8 threads per block (32 columns, 8 row lanes),
//       one block per 32 columns of each batch.
//   transpose: 32 x 8 threads per block over 32 x 32 tiles.
//   scatter_serial, select_and_scatter: one block of one thread
//       (select_and_scatter: none when `elements`, the output size, is 0).
//   sort: one block per row (sort line). When the row fits the static
//       shared memory (problem.sort_shared_bytes <= the target's limit):
//       a bitonic network in shared memory, one thread per compare-exchange
//       pair (threads = next power of two >= row / 2, at least a warp, at
//       most max_threads_per_block; more pairs loop). Otherwise
//       (sort_in_shared false): odd-even transposition in global memory,
//       threads = ceil(row / 2) rounded to a warp, same cap.
//
// Thread-safety: pure functions of their arguments; thread-safe.
#ifndef XLA_BACKENDS_GPU_CODEGEN_NVPTX_LAUNCH_DIMENSIONS_CHOICE_H_
#define XLA_BACKENDS_GPU_CODEGEN_NVPTX_LAUNCH_DIMENSIONS_CHOICE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/backends/gpu/codegen/nvptx/nvptx_target.h"

namespace xla::gpu {

enum class NvptxKernelKind : uint8_t {
  kLoop,
  kGenericReduction,
  kDusInPlace,
  kScatterAtomic,
  kScatterSerial,
  kRowReduction,
  kRowNormalization,
  kWholeReduction,
  kColumnReduction,
  kTranspose,
  kSort,
  kSelectAndScatter,
  kRngState,  // rng-get-and-update-state: one thread (rng_state_ir.h)
};

// "loop", "row_reduction", ... (the names HostKernelInfo::kind also uses,
// plus scatter_atomic / scatter_serial).
absl::string_view NvptxKernelKindName(NvptxKernelKind kind);

// The size of the work, in the terms of each kind (unused fields ignored):
struct LaunchProblem {
  NvptxKernelKind kind = NvptxKernelKind::kLoop;
  // Loop-like kinds: work elements (output or update elements).
  int64_t elements = 0;
  // Loop: all arrays are same-shape row-major f32 (4-wide path allowed).
  bool vectorizable = false;
  // Row kinds: rows (kept elements) and elements per row. Column reduction:
  // row_length is the reduced extent R. Transpose: rows is the extent of
  // the output dimension read along the input's minor dimension.
  int64_t rows = 1;
  int64_t row_length = 1;
  // Column reduction and transpose: the output's minor extent C.
  int64_t columns = 1;
  // Column reduction and transpose: independent batches (product of the
  // other dimensions).
  int64_t batch = 1;
  // Sort: `rows` sort lines of `row_length` elements; the static shared
  // memory (bytes, with alignment) one line needs in the shared-memory path.
  int64_t sort_shared_bytes = 0;
};

struct LaunchChoice {
  int64_t blocks = 0;  // 0: nothing to launch (empty output)
  int64_t threads_per_block = 1;
  int64_t vector_width = 1;    // loop: elements per thread per iteration
  bool grid_stride = false;    // loop-like: threads loop with stride blocks*threads
  bool warp_per_row = false;   // row kinds: a warp (else the block) per row
  int64_t rows_per_block = 1;  // row kinds: rows per block
  int64_t tile = 0;            // column reduction / transpose: tile edge
  int64_t tile_rows = 0;       // column reduction / transpose: thread rows
  bool sort_in_shared = false;  // sort: bitonic in shared memory (else global)
};

// Decides the launch of a kernel of `problem.kind` on `target` (see the
// header comment). Errors: InvalidArgument for negative sizes, or a sort
// with more rows than a 1-D grid holds (2^31 - 1).
absl::StatusOr<LaunchChoice> ChooseLaunchDimensions(const LaunchProblem& problem,
                                                    const NvptxTarget& target);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_NVPTX_LAUNCH_DIMENSIONS_CHOICE_H_
