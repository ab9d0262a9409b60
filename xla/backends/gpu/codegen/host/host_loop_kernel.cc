#include "xla/backends/gpu/codegen/host/host_fusion_kernel_emitter.h"

#include <algorithm>
#include <utility>

#include "xla/backends/gpu/codegen/ir_array.h"
#include "xla/types/primitive_type.h"
#include "xla/util/math_util.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {

// ---------------------------------------------------------------- plans

std::vector<HostKernelSegment> HostFusionKernelEmitter::PlanElementwise(
    std::vector<int64_t> dims, int64_t bytes_per_element, std::function<absl::Status()> prologue,
    IndexFn body) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  const int64_t target =
      std::max<int64_t>(1, options_.target_block_bytes / std::max<int64_t>(1, bytes_per_element));
  if (rank == 0) {
    return {Segment{1, [this, prologue, body](llvm::Value*) -> absl::Status {
                      RETURN_IF_ERROR(prologue());
                      return body(IrIndex());
                    }}};
  }
  const std::vector<int64_t> outer(dims.begin(), dims.end() - 1);
  const int64_t cols = dims.back();
  const int64_t rows = Product(outer);
  if (cols == 0 || rows == 0) return {};
  const int64_t col_chunk = std::min(cols, target);
  const int64_t col_blocks = CeilDiv(cols, col_chunk);
  const int64_t rows_per_block = col_blocks == 1 ? std::max<int64_t>(1, target / cols) : 1;
  const int64_t row_blocks = CeilDiv(rows, rows_per_block);
  Segment s;
  s.blocks = row_blocks * col_blocks;
  s.emit = [=](llvm::Value* block) -> absl::Status {
    RETURN_IF_ERROR(prologue());
    llvm::Value* rb = b_.CreateUDiv(block, b_.getInt64(col_blocks));
    llvm::Value* cb = b_.CreateURem(block, b_.getInt64(col_blocks));
    llvm::Value* r0 = b_.CreateMul(rb, b_.getInt64(rows_per_block));
    llvm::Value* r1 = Min(b_.CreateAdd(r0, b_.getInt64(rows_per_block)), b_.getInt64(rows));
    llvm::Value* c0 = b_.CreateMul(cb, b_.getInt64(col_chunk));
    llvm::Value* c1 = Min(b_.CreateAdd(c0, b_.getInt64(col_chunk)), b_.getInt64(cols));
    return EmitLoop(r0, r1, "row", [&](llvm::Value* r) {
      std::vector<llvm::Value*> index = IrIndex::FromLinear(r, outer, &b_).multidim();
      return EmitLoop(c0, c1, "col", [&](llvm::Value* c) {
        std::vector<llvm::Value*> full = index;
        full.push_back(c);
        return body(IrIndex(full, dims));
      });
    });
  };
  return {s};
}

std::vector<HostKernelSegment> HostFusionKernelEmitter::PlanLoop(bool same_dims) {
  auto no_prologue = []() { return absl::OkStatus(); };
  if (!same_dims) {
    // Per output leaf, its own loop (outputs of different shapes).
    std::vector<Segment> all;
    for (size_t k = 0; k < leaves_.size(); ++k) {
      std::vector<int64_t> one = {static_cast<int64_t>(k)};
      for (Segment& s : PlanElementwise(
               leaves_[k].shape.dimensions(), ByteWidth(leaves_[k].shape.element_type()),
               no_prologue, [this, one](const IrIndex& i) { return WriteLeaves(one, i); })) {
        all.push_back(std::move(s));
      }
    }
    return all;
  }
  int64_t bytes = 0;
  for (const OutputLeaf& leaf : leaves_) bytes += ByteWidth(leaf.shape.element_type());
  return PlanElementwise(leaves_[0].shape.dimensions(), bytes, no_prologue, AllLeavesBody());
}

}  // namespace xla::gpu
