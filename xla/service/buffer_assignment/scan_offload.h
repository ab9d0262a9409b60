// Scan stacks in host memory (issue 25, docs/architecture.md "Scan stacks
// in host memory"): which loop-carried buffers are stacks of offloaded
// activations that can live in host memory, one row per loop iteration.
//
// Leaf k of a while W is a scan stack when, all four or nothing:
//   1. W's body root leaf k is a dynamic-update-slice of the body
//      parameter's leaf k (bare, or the root of a kLoop fusion in which
//      nothing else reads that operand) whose update is a custom-call
//      MoveToHost result (through bitcasts and reshapes), whose start
//      indices are 0 in every dimension but the first, and whose update
//      spans every other dimension, all in the default (row-major)
//      layout: row r is the bytes [r * row_bytes, (r + 1) * row_bytes);
//   2. the first index is a + b * v for W's induction variable v (a tuple
//      leaf that starts at a constant and grows by a constant each
//      iteration), W's trip count is known (recorded in backend_config or
//      provable), and the row stays in [0, rows) on every iteration (so
//      the dynamic-update-slice never clamps);
//   3. every other reader of the stack's buffer (in W, or after W
//      wherever the buffer flows through tuples and loops that pass it on
//      unchanged) is a dynamic-slice of one whole row (bare or the root of
//      a kLoop fusion) in the body of a while W', at a row a' + b' * v'
//      affine in W''s induction variable, in range on every iteration,
//      whose only use is one MoveToDevice (through bitcasts);
//   4. the buffer's only other writer, its init, is a broadcast of a
//      constant (bare, or a kLoop fusion of one), and the buffer is no
//      entry parameter, constant or result.
// The rows are given in W's iteration number i (0, 1, ...), which a
// WhileThunk publishes: row = base + stride * i.
//
// Buffer assignment (buffer_assignment.h, options.offload_scan_stacks)
// puts such a stack's buffer in the host temp allocation, and the thunk
// emitter turns the update into a copy of the MoveToHost's operand into
// row `base + stride * i`, and each read plus its MoveToDevice into one
// copy out of its row (CopyThunkProto.dynamic_offset).
//
// Thread-safety: pure functions of a module nobody mutates.
#ifndef XLA_SERVICE_BUFFER_ASSIGNMENT_SCAN_OFFLOAD_H_
#define XLA_SERVICE_BUFFER_ASSIGNMENT_SCAN_OFFLOAD_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/service/buffer_assignment/alias_analysis.h"

namespace xla {

// One read of a stack: the row base + stride * i at iteration i of `loop`.
struct ScanStackRead {
  const HloInstruction* slice = nullptr;           // the dynamic-slice or its fusion
  const HloInstruction* move_to_device = nullptr;  // its one use, through bitcasts
  const HloInstruction* loop = nullptr;            // the while whose body holds `slice`
  int64_t base = 0;
  int64_t stride = 0;
};

struct ScanStack {
  const HloInstruction* loop = nullptr;          // W
  int64_t leaf = 0;                              // k: W's tuple index of the stack
  const HloInstruction* update = nullptr;        // W's body root leaf k
  const HloInstruction* move_to_host = nullptr;  // the update's row
  const HloInstruction* init = nullptr;          // the broadcast (or its fusion)
  int64_t rows = 0;
  int64_t row_bytes = 0;
  // The row the update writes at iteration i of `loop`: base + stride * i.
  int64_t base = 0;
  int64_t stride = 0;
  int64_t trips = 0;  // W's trip count
  std::vector<ScanStackRead> reads;
  // Whether no read can see a row the init wrote: W's update writes every
  // row (|stride| = 1 and trips = rows), and every read is in a loop W'
  // other than W that takes the stack straight from W's result (through
  // tuples and get-tuple-elements only), so it runs after W. The thunk
  // emitter then emits nothing for the init (no pass over host memory).
  bool init_dead = false;
};

// Leaf `leaf` of `loop` as a scan stack. NotFound naming the condition
// that fails and the instruction at fault (a near miss stays on the
// device); never an error for well-formed HLO otherwise.
absl::StatusOr<ScanStack> MatchScanStack(const AliasAnalysis& aa, const HloInstruction& loop,
                                         int64_t leaf);

// Every scan stack of `module`: each array leaf of each while in a
// computation that owns buffers, in computation and instruction order
// (deterministic).
std::vector<ScanStack> FindScanStacks(const HloModule& module, const AliasAnalysis& aa);

}  // namespace xla

#endif  // XLA_SERVICE_BUFFER_ASSIGNMENT_SCAN_OFFLOAD_H_
