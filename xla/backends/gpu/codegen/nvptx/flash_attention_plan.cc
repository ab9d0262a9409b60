#include "xla/backends/gpu/codegen/nvptx/flash_attention_plan.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "xla/util/math_util.h"

namespace xla::gpu {
namespace {

// The largest head dim the tiles fit in 48 KiB of shared memory for.
constexpr int64_t kMaxHeadDim = 128;
// Dynamic shared memory a kernel may use without an opt-in attribute.
constexpr int64_t kMaxSmemBytes = 48 * 1024;

absl::Status Refuse(absl::string_view target, absl::string_view what, absl::string_view why) {
  return absl::UnimplementedError(
      absl::StrCat(target, ": ", what, " is not supported by the NVPTX fused-attention kernel (",
                   why, ")"));
}

absl::Status CheckHeadDim(absl::string_view target, const char* name, int64_t dim) {
  if (dim % kChunkElems == 0 && dim <= kMaxHeadDim) return absl::OkStatus();
  return Refuse(target, absl::StrCat("attribute '", name, "' = ", dim),
                absl::StrCat("head dims must be multiples of ", kChunkElems, " up to ",
                             kMaxHeadDim));
}

// Lays `tiles` out one after another from byte 0, 16-byte aligned.
int64_t LayOut(std::initializer_list<SmemTile*> tiles) {
  int64_t offset = 0;
  for (SmemTile* tile : tiles) {
    tile->offset = offset;
    offset += RoundUp(tile->Bytes(), 16);
  }
  return offset;
}

SmemTile Tile(int64_t rows, int64_t cols) { return SmemTile{0, rows, cols + kSmemRowPad}; }

}  // namespace

const char* FlashKernelName(FlashKernel kernel) {
  switch (kernel) {
    case FlashKernel::kForward:
      return "forward";
    case FlashKernel::kBackwardDq:
      return "dq";
    case FlashKernel::kBackwardDkDv:
      return "dkdv";
  }
  return "unknown";
}

int64_t FlashAttentionPlan::RowTiles() const {
  const int64_t rows = kernel == FlashKernel::kBackwardDkDv ? config.kv_seqlen : config.q_seqlen;
  return CeilDiv(rows, block_rows);
}

absl::StatusOr<FlashAttentionPlan> PlanFlashAttention(FlashKernel kernel,
                                                      const ffi::TeAttentionConfig& config,
                                                      PrimitiveType type, absl::string_view target) {
  if (type != PrimitiveType::BF16 && type != PrimitiveType::F16) {
    return Refuse(target, absl::StrCat("operand 0 (q) of element type ", PrimitiveTypeName(type)),
                  "tensor-core MMA takes bf16 or f16");
  }
  if (absl::Status s = CheckHeadDim(target, "qk_head_dim", config.qk_head_dim); !s.ok()) return s;
  if (absl::Status s = CheckHeadDim(target, "v_head_dim", config.v_head_dim); !s.ok()) return s;
  FlashAttentionPlan plan;
  plan.kernel = kernel;
  plan.config = config;
  plan.type = type;
  plan.qk_pad = RoundUp(config.qk_head_dim, kMmaK);
  plan.v_pad = RoundUp(config.v_head_dim, kMmaK);
  const int64_t widest = std::max(plan.qk_pad, plan.v_pad);
  const int64_t R = plan.block_rows;
  switch (kernel) {
    case FlashKernel::kForward:
      plan.block_cols = widest <= 64 ? 64 : 32;
      plan.q = Tile(R, plan.qk_pad);
      plan.k = Tile(plan.block_cols, plan.qk_pad);
      plan.vt = Tile(plan.v_pad, plan.block_cols);
      plan.smem_bytes = LayOut({&plan.q, &plan.k, &plan.vt});
      break;
    case FlashKernel::kBackwardDq: {
      plan.block_cols = widest <= 64 ? 32 : 16;
      plan.q = Tile(R, plan.qk_pad);
      plan.dout = Tile(R, plan.v_pad);
      plan.k = Tile(plan.block_cols, plan.qk_pad);
      plan.kt = Tile(plan.qk_pad, plan.block_cols);
      plan.v = Tile(plan.block_cols, plan.v_pad);
      // Phase one (q, dout) and phase two (k, kt, v) share the bytes.
      // D (f32[block_rows]) follows them until it is in registers.
      const int64_t one = LayOut({&plan.q, &plan.dout});
      const int64_t two = LayOut({&plan.k, &plan.kt, &plan.v});
      plan.stats_offset = one;
      plan.smem_bytes = std::max(one + 4 * R, two);
      break;
    }
    case FlashKernel::kBackwardDkDv: {
      plan.block_cols = 16;
      plan.k = Tile(R, plan.qk_pad);
      plan.v = Tile(R, plan.v_pad);
      plan.q = Tile(plan.block_cols, plan.qk_pad);
      plan.qt = Tile(plan.qk_pad, plan.block_cols);
      plan.dout = Tile(plan.block_cols, plan.v_pad);
      plan.doutt = Tile(plan.v_pad, plan.block_cols);
      const int64_t one = LayOut({&plan.k, &plan.v});
      const int64_t two = LayOut({&plan.q, &plan.qt, &plan.dout, &plan.doutt});
      plan.stats_offset = two;
      plan.smem_bytes = std::max(one, two + 2 * 4 * plan.block_cols);
      break;
    }
  }
  if (plan.smem_bytes > kMaxSmemBytes) {
    return absl::InternalError(absl::StrCat("fused-attention ", FlashKernelName(kernel),
                                            " kernel plan needs ", plan.smem_bytes,
                                            " bytes of shared memory, more than ", kMaxSmemBytes));
  }
  plan.grid_x = plan.RowTiles();
  plan.grid_y = kernel == FlashKernel::kBackwardDkDv ? config.kv_heads : config.heads;
  plan.grid_z = config.batch;
  return plan;
}

}  // namespace xla::gpu
