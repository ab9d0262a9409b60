#include "xla/backends/gpu/codegen/host/host_fusion_kernel_emitter.h"

#include <algorithm>

#include "xla/backends/gpu/codegen/ir_array.h"
#include "xla/util/math_util.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {

HostKernelSegment HostFusionKernelEmitter::PlanTiled(std::vector<int64_t> dims, int64_t tiled_dim,
                                                     IndexFn body) {
  const TransposeTiles tiling(dims, tiled_dim, std::max<int64_t>(1, options_.transpose_tile));
  Segment s;
  s.blocks = Product(tiling.other_sizes) * tiling.tiles_a * tiling.tiles_c;
  s.emit = [=](llvm::Value* block) -> absl::Status {
    // The tile's end (a1, c1), clipped to the array, before the batch index.
    llvm::Value* a1 = nullptr;
    llvm::Value* c1 = nullptr;
    const TransposeTiles::Origin origin =
        tiling.BlockOrigin(block, &b_, [&](llvm::Value* a0, llvm::Value* c0) {
          a1 = Min(b_.CreateAdd(a0, b_.getInt64(tiling.tile)), b_.getInt64(dims[tiled_dim]));
          c1 = Min(b_.CreateAdd(c0, b_.getInt64(tiling.tile)), b_.getInt64(dims.back()));
        });
    return EmitLoop(origin.a0, a1, "tile_a", [&](llvm::Value* a) {
      return EmitLoop(origin.c0, c1, "tile_c",
                      [&](llvm::Value* c) { return body(tiling.At(origin.batch, a, c)); });
    });
  };
  return s;
}

}  // namespace xla::gpu
