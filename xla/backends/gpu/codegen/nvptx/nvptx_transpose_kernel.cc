#include "xla/backends/gpu/codegen/nvptx/nvptx_fusion_kernel_emitter.h"

#include "xla/backends/gpu/codegen/ir_array.h"
#include "xla/types/primitive_type.h"
#include "xla/util/math_util.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {

absl::Status NvptxFusionKernelEmitter::EmitTransposeKernel() {
  const std::vector<int64_t>& dims = leaves_[0].shape.dimensions();
  const int64_t rank = static_cast<int64_t>(dims.size());
  const int64_t j = transpose_dim_;
  const int64_t tile = choice_.tile;
  const int64_t trows = choice_.tile_rows;
  const int64_t pitch = tile + 1;  // padding: column reads hit 32 banks
  const TransposeTiles tiling(dims, j, tile);
  llvm::Value* tid = Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value* block = Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
  llvm::Value* tx = b_.CreateURem(tid, b_.getInt64(tile), "tx");
  llvm::Value* ty = b_.CreateUDiv(tid, b_.getInt64(tile), "ty");
  const TransposeTiles::Origin origin = tiling.BlockOrigin(block, &b_, nullptr);
  llvm::Value* a0 = origin.a0;
  llvm::Value* c0 = origin.c0;
  auto index_of = [&](llvm::Value* a, llvm::Value* c) { return tiling.At(origin.batch, a, c); };
  std::vector<llvm::GlobalVariable*> tiles;
  for (const OutputLeaf& leaf : leaves_) {
    tiles.push_back(SharedArray(ElementIrType(leaf.shape.element_type(), ctx_), tile * pitch,
                                "transpose_tile"));
  }
  auto in_range = [&](llvm::Value* a, llvm::Value* c) {
    return b_.CreateAnd(b_.CreateICmpULT(a, b_.getInt64(dims[j])),
                        b_.CreateICmpULT(c, b_.getInt64(dims[rank - 1])));
  };
  auto slot = [&](size_t l, llvm::Value* at) {
    return b_.CreateInBoundsGEP(tiles[l]->getValueType(), tiles[l], {b_.getInt64(0), at});
  };
  // Phase 1 (into_tile): consecutive threads take consecutive `a` (the
  // input's minor dimension): tile[c - c0][a - a0] = value(a, c). Phase 2:
  // consecutive threads take consecutive `c` (the output's minor
  // dimension), reading a tile column (stride 33: no bank conflicts).
  auto phase = [&](bool into_tile) -> absl::Status {
    for (int64_t k = 0; k < tile / trows; ++k) {
      llvm::Value* row = b_.CreateAdd(ty, b_.getInt64(k * trows));
      llvm::Value* a = b_.CreateAdd(a0, into_tile ? tx : row);
      llvm::Value* c = b_.CreateAdd(c0, into_tile ? row : tx);
      RETURN_IF_ERROR(EmitIf(in_range(a, c), [&]() -> absl::Status {
        llvm::Value* minor = into_tile ? row : tx;
        llvm::Value* at =
            b_.CreateAdd(b_.CreateMul(minor, b_.getInt64(pitch)), into_tile ? tx : row);
        for (size_t l = 0; l < leaves_.size(); ++l) {
          if (into_tile) {
            ASSIGN_OR_RETURN(llvm::Value * v, LeafValue(leaves_[l], index_of(a, c)));
            b_.CreateStore(v, slot(l, at));
            continue;
          }
          llvm::Value* v =
              b_.CreateLoad(ElementIrType(leaves_[l].shape.element_type(), ctx_), slot(l, at));
          OutputArray(l).EmitWriteElement(index_of(a, c), v, &b_);
        }
        return absl::OkStatus();
      }));
    }
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(phase(/*into_tile=*/true));
  Barrier();
  return phase(/*into_tile=*/false);
}

}  // namespace xla::gpu
