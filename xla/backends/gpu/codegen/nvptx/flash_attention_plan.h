// The shape of the NVPTX fused-attention kernels (FlashAttention-2 style),
// as plain data and index functions: tile sizes, shared-memory layout,
// launch grid, and where each lane's mma.sync.m16n8k16 fragments sit in
// the tiles. The emitter (flash_attention_emitter.h) builds its IR from
// these, and flash_attention_plan_test.cc runs a host model of the kernels
// built from the same functions against plain attention at odd sizes, so
// that the index math is checked by a test.
//
// The index functions are templates over the integer type: int64_t in the
// host model, an IR value wrapper in the emitter.
//
// The kernels (one CTA of kWarps warps; warp w owns tile rows
// [16w, 16w + 16)):
//   forward  grid (ceil(Sq / block_rows), H, B). The CTA's Q tile is
//            loaded into shared memory once and kept in registers as MMA
//            A fragments; K and V tiles of block_cols keys stream through
//            shared memory (V stored transposed, so P*V's B fragments are
//            32-bit loads); S = Q*K^T and O += P*V are mma.sync with f32
//            accumulators; per row a running max and sum (online
//            softmax); P goes from S's accumulators to P*V's A fragments
//            in registers. Writes O and the log-sum-exp statistics.
//   dq       grid (ceil(Sq / block_rows), H, B): per Q tile, recomputes P
//            from Q, K and the statistics, dP = dO*V^T, D = rowsum(dO.O),
//            dS = P.(dP - D), dQ = scale * dS*K over the key tiles.
//   dkdv     grid (ceil(Skv / block_rows), G, B): per key tile (rows are
//            keys here), over the query heads of the group and the query
//            tiles: P^T and dP^T recomputed, dV += P^T*dO,
//            dK += scale * dS^T*Q. No atomics: every output element has
//            one writer, so results are deterministic.
//
// Thread-safety: immutable data and pure functions.
#ifndef XLA_BACKENDS_GPU_CODEGEN_NVPTX_FLASH_ATTENTION_PLAN_H_
#define XLA_BACKENDS_GPU_CODEGEN_NVPTX_FLASH_ATTENTION_PLAN_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "xla/backends/gpu/ffi/te_fused_attention.h"
#include "xla/types/shape.h"

namespace xla::gpu {

// mma.sync.aligned.m16n8k16.row.col (bf16 or f16 in, f32 accumulate).
inline constexpr int64_t kMmaM = 16, kMmaN = 8, kMmaK = 16;
inline constexpr int64_t kFlashWarps = 4;
inline constexpr int64_t kFlashThreads = 32 * kFlashWarps;
// Shared-memory rows are padded by 8 elements (16 bytes): rows stay
// 16-byte aligned and the 8 rows a fragment load touches fall in distinct
// banks.
inline constexpr int64_t kSmemRowPad = 8;
// Elements one 16-byte global load or shared store moves.
inline constexpr int64_t kChunkElems = 8;

// A lane's place in the fragment layouts: group g = lane / 4 (0..7) and
// thread-in-group t = lane % 4 (0..3), as the PTX ISA names them.
//
// A (16 x 16, row major): 32-bit register r (0..3) holds the two elements
// (row, col) and (row, col + 1), the first in the low half.
template <typename I>
I MmaARow(const I& g, int r) {
  return g + int64_t{8} * (r & 1);
}
template <typename I>
I MmaACol(const I& t, int r) {
  return t * int64_t{2} + int64_t{8} * (r >> 1);
}
// B (16 x 8, k x n, "col"): register r (0..1) holds (k, n) and (k + 1, n).
template <typename I>
I MmaBK(const I& t, int r) {
  return t * int64_t{2} + int64_t{8} * r;
}
template <typename I>
I MmaBN(const I& g) {
  return g;
}
// C and D (16 x 8, f32): element e (0..3) is (row, col).
template <typename I>
I MmaCRow(const I& g, int e) {
  return g + int64_t{8} * (e >> 1);
}
template <typename I>
I MmaCCol(const I& t, int e) {
  return t * int64_t{2} + (e & 1);
}
// Accumulators of two neighbouring n tiles (2j, 2j + 1) of a 16 x 16
// product make one A fragment of the next product over the same 16
// columns: register r of the A fragment is elements (2r', 2r' + 1) of
// tile 2j + (r >> 1), with r' = r & 1. This pair of functions names them.
inline int MmaCTileOfA(int r) { return r >> 1; }
inline int MmaCElemOfA(int r) { return 2 * (r & 1); }

// One of the kernels above.
enum class FlashKernel : uint8_t { kForward, kBackwardDq, kBackwardDkDv };
const char* FlashKernelName(FlashKernel kernel);

// A tile in shared memory: `rows` rows of `stride` 16-bit elements at byte
// `offset` of the dynamic shared memory.
struct SmemTile {
  int64_t offset = 0;
  int64_t rows = 0;
  int64_t stride = 0;
  int64_t Bytes() const { return rows * stride * 2; }
  template <typename I>
  I Element(const I& row, const I& col) const {
    return row * stride + col;
  }
};

// Everything one kernel's emission needs.
struct FlashAttentionPlan {
  FlashKernel kernel = FlashKernel::kForward;
  ffi::TeAttentionConfig config;
  PrimitiveType type = PrimitiveType::BF16;  // of Q, K, V, O and gradients
  // Head dims rounded up to the MMA k (16); the extra columns are zeros.
  int64_t qk_pad = 0, v_pad = 0;
  // Rows of a CTA's own tile (queries, or keys for dkdv): 16 per warp.
  int64_t block_rows = 16 * kFlashWarps;
  // Rows of the tiles streamed through shared memory (keys, or queries
  // for dkdv); a multiple of 16.
  int64_t block_cols = 64;
  // Shared memory. Forward: q (block_rows x qk_pad), k (block_cols x
  // qk_pad), vt (v_pad x block_cols: V transposed). dq: q and dout in
  // phase one (moved to registers), then k (block_cols x qk_pad), kt
  // (qk_pad x block_cols), v (block_cols x v_pad). dkdv: k and v in phase
  // one, then q, qt, dout, doutt of the streamed query tile, the tile's
  // statistics and D (f32, block_cols each).
  SmemTile q, k, v, kt, vt, dout, qt, doutt;
  int64_t stats_offset = 0;  // dkdv: f32[block_cols] statistics, then D
  int64_t smem_bytes = 0;
  int64_t grid_x = 0, grid_y = 0, grid_z = 0;

  // Sequence tile counts.
  int64_t RowTiles() const;
};

// The plan for `kernel` of a call with `config` whose Q/K/V have element
// type `type`. Unimplemented, naming the attribute (or operand type) and
// its value, for what the kernels do not support: element types other
// than bf16/f16, head dims that are not multiples of 8 or above 128
// (qk_head_dim, v_head_dim), and layouts outside the BSHD/SBHD families
// that te_fused_attention.h already accepts.
absl::StatusOr<FlashAttentionPlan> PlanFlashAttention(FlashKernel kernel,
                                                      const ffi::TeAttentionConfig& config,
                                                      PrimitiveType type, absl::string_view target);

// The number of key tiles a query tile starting at row `q_start` visits:
// all keys below `kv_len`, and for a causal mask only keys <= the tile's
// last row. Shared by the emitter (with IR values through `min`) and the
// host model.
template <typename I, typename Min>
I FlashKvTileCount(const I& q_start, const I& kv_len, bool causal, int64_t block_rows,
                   int64_t block_cols, Min min) {
  I end = kv_len;
  if (causal) end = min(end, q_start + block_rows);
  return (end + (block_cols - 1)) / block_cols;
}

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_NVPTX_FLASH_ATTENTION_PLAN_H_
