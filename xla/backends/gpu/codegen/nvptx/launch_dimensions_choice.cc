#include "xla/backends/gpu/codegen/nvptx/launch_dimensions_choice.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "xla/util/math_util.h"

namespace xla::gpu {
namespace {

// The tuning constants, all in one place.
constexpr int64_t kLoopThreads = 256;
constexpr int64_t kMaxWavesPerSm = 32;        // blocks per SM before grid-stride
constexpr int64_t kMaxWarpRowLength = 512;    // longer rows: a block per row
constexpr int64_t kRowsPerBlock = 8;          // warp-per-row: warps per block
constexpr int64_t kMaxRowBlockThreads = 512;  // block-per-row threads
constexpr int64_t kElementsPerRowThread = 4;  // block-per-row: aim per thread
constexpr int64_t kTile = 32;
constexpr int64_t kTileRows = 8;
constexpr int64_t kMaxGridX = (int64_t{1} << 31) - 1;

int64_t NextPowerOfTwo(int64_t a) {
  int64_t p = 1;
  while (p < a) p *= 2;
  return p;
}

LaunchChoice LoopChoice(int64_t elements, bool vectorizable, const NvptxTarget& target) {
  LaunchChoice c;
  c.vector_width = vectorizable && elements % 4 == 0 ? 4 : 1;
  c.threads_per_block = std::min(kLoopThreads, target.max_threads_per_block);
  const int64_t blocks = CeilDiv(elements / c.vector_width, c.threads_per_block);
  const int64_t cap = kMaxWavesPerSm * target.sm_count_hint;
  c.grid_stride = blocks > cap;
  c.blocks = std::min(blocks, cap);
  return c;
}

}  // namespace

absl::string_view NvptxKernelKindName(NvptxKernelKind kind) {
  switch (kind) {
    case NvptxKernelKind::kLoop: return "loop";
    case NvptxKernelKind::kGenericReduction: return "generic_reduction";
    case NvptxKernelKind::kDusInPlace: return "dus_in_place";
    case NvptxKernelKind::kScatterAtomic: return "scatter_atomic";
    case NvptxKernelKind::kScatterSerial: return "scatter_serial";
    case NvptxKernelKind::kRowReduction: return "row_reduction";
    case NvptxKernelKind::kRowNormalization: return "row_normalization";
    case NvptxKernelKind::kWholeReduction: return "whole_reduction";
    case NvptxKernelKind::kColumnReduction: return "column_reduction";
    case NvptxKernelKind::kTranspose: return "transpose";
    case NvptxKernelKind::kSort: return "sort";
    case NvptxKernelKind::kSelectAndScatter: return "select_and_scatter";
    case NvptxKernelKind::kRngState: return "rng_state";
  }
  return "unknown";
}

absl::StatusOr<LaunchChoice> ChooseLaunchDimensions(const LaunchProblem& p,
                                                    const NvptxTarget& target) {
  if (p.elements < 0 || p.rows < 0 || p.row_length < 0 || p.columns < 0 || p.batch < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "launch dimensions for ", NvptxKernelKindName(p.kind), ": negative size (elements ",
        p.elements, ", rows ", p.rows, ", row_length ", p.row_length, ", columns ", p.columns,
        ", batch ", p.batch, ")"));
  }
  const int64_t warp = target.warp_size;
  LaunchChoice c;
  switch (p.kind) {
    case NvptxKernelKind::kLoop:
      return LoopChoice(p.elements, p.vectorizable, target);
    case NvptxKernelKind::kGenericReduction:
    case NvptxKernelKind::kDusInPlace:
    case NvptxKernelKind::kScatterAtomic:
      return LoopChoice(p.elements, false, target);
    case NvptxKernelKind::kScatterSerial:
    case NvptxKernelKind::kRngState:
      c.blocks = 1;
      return c;
    case NvptxKernelKind::kSelectAndScatter:
      c.blocks = p.elements == 0 ? 0 : 1;
      return c;
    case NvptxKernelKind::kRowReduction:
    case NvptxKernelKind::kRowNormalization:
      if (p.rows == 0) return c;
      if (p.row_length <= kMaxWarpRowLength) {
        c.warp_per_row = true;
        c.rows_per_block = std::min(kRowsPerBlock, p.rows);
        c.threads_per_block = c.rows_per_block * warp;
        c.blocks = CeilDiv(p.rows, c.rows_per_block);
        return c;
      }
      c.threads_per_block = std::min(
          {kMaxRowBlockThreads, target.max_threads_per_block,
           RoundUp(CeilDiv(p.row_length, kElementsPerRowThread), warp)});
      c.blocks = p.rows;
      return c;
    case NvptxKernelKind::kWholeReduction:
      c.threads_per_block = target.max_threads_per_block;
      c.blocks = 1;
      return c;
    case NvptxKernelKind::kColumnReduction:
    case NvptxKernelKind::kTranspose:
      c.tile = kTile;
      c.tile_rows = kTileRows;
      c.threads_per_block = kTile * kTileRows;
      c.blocks = p.batch * CeilDiv(p.columns, kTile) *
                 (p.kind == NvptxKernelKind::kTranspose ? CeilDiv(p.rows, kTile) : 1);
      return c;
    case NvptxKernelKind::kSort: {
      if (p.rows == 0 || p.row_length == 0) return c;
      if (p.rows > kMaxGridX) {
        return absl::InvalidArgumentError(
            absl::StrCat("launch dimensions for sort: ", p.rows,
                         " rows exceed the grid's x limit (one block per row)"));
      }
      c.sort_in_shared = p.sort_shared_bytes <= target.max_shared_memory_per_block;
      // Bitonic: pairs of the padded power of two; odd-even: pairs of the row.
      const int64_t pairs =
          c.sort_in_shared ? NextPowerOfTwo(p.row_length) / 2 : CeilDiv(p.row_length, 2);
      c.threads_per_block =
          std::min(target.max_threads_per_block, std::max(warp, RoundUp(pairs, warp)));
      c.blocks = p.rows;
      return c;
    }
  }
  return c;
}

}  // namespace xla::gpu
