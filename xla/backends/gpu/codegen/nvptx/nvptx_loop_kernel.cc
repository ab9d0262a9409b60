#include "xla/backends/gpu/codegen/nvptx/nvptx_fusion_kernel_emitter.h"

#include <algorithm>

#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "xla/backends/gpu/codegen/ir_array.h"
#include "xla/util/math_util.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {

absl::Status NvptxFusionKernelEmitter::EmitLoopKernel() {
  const std::vector<int64_t>& dims = leaves_[0].shape.dimensions();
  bool same_dims = true;
  for (const OutputLeaf& leaf : leaves_) same_dims = same_dims && leaf.shape.dimensions() == dims;
  const std::vector<int64_t> all = AllLeaves();
  const int64_t vw = choice_.vector_width;
  return EmitThreadLoop(problem_.elements / vw, [&](llvm::Value* i) -> absl::Status {
    if (vw == 1 && same_dims) return WriteLeaves(all, IrIndex::FromLinear(i, dims, &b_));
    if (vw == 1) {
      for (int64_t k : all) {
        const std::vector<int64_t>& leaf_dims = leaves_[k].shape.dimensions();
        RETURN_IF_ERROR(EmitIf(b_.CreateICmpSLT(i, b_.getInt64(Product(leaf_dims))), [&]() {
          return WriteLeaves({k}, IrIndex::FromLinear(i, leaf_dims, &b_));
        }));
      }
      return absl::OkStatus();
    }
    // 4 consecutive elements: <4 x float> loads and stores, align 16.
    llvm::Type* f32 = b_.getFloatTy();
    llvm::Type* v4 = llvm::FixedVectorType::get(f32, 4);
    llvm::Value* base = b_.CreateMul(i, b_.getInt64(4), "", true, true);
    Values vectors(fusion_.operand_count(), nullptr);
    for (int64_t p = 0; p < fusion_.operand_count(); ++p) {
      if (fusion_.operand(p)->shape().dimensions().empty()) continue;
      vectors[p] = b_.CreateAlignedLoad(v4, b_.CreateInBoundsGEP(f32, args_[p], base),
                                        llvm::Align(16));
    }
    Values outs(leaves_.size(), llvm::PoisonValue::get(v4));
    for (int64_t lane = 0; lane < 4; ++lane) {
      for (size_t p = 0; p < vectors.size(); ++p) {
        SetParameterValue(p, vectors[p] == nullptr ? nullptr
                                                   : b_.CreateExtractElement(vectors[p], lane));
      }
      const IrIndex index = IrIndex::FromLinear(b_.CreateAdd(base, b_.getInt64(lane)), dims, &b_);
      for (int64_t k : all) {
        ASSIGN_OR_RETURN(llvm::Value * v, LeafValue(leaves_[k], index));
        outs[k] = b_.CreateInsertElement(outs[k], v, lane);
      }
    }
    for (size_t p = 0; p < vectors.size(); ++p) SetParameterValue(p, nullptr);
    for (int64_t k : all) {
      b_.CreateAlignedStore(
          outs[k], b_.CreateInBoundsGEP(f32, args_[fusion_.operand_count() + k], base),
          llvm::Align(16));
    }
    return absl::OkStatus();
  });
}

}  // namespace xla::gpu
