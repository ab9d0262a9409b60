#include "xla/backends/gpu/codegen/host/host_fusion_kernel_emitter.h"

#include "llvm/IR/Constants.h"
#include "xla/backends/gpu/codegen/ir_array.h"
#include "xla/types/primitive_type.h"
#include "xla/util/math_util.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {

absl::StatusOr<HostKernelSegment> HostFusionKernelEmitter::PlanSort() {
  const HloInstruction* sort = computation_->root_instruction();
  const std::vector<int64_t>& sort_dims = sort->dimensions();
  if (sort->operand_count() < 1 || sort_dims.size() != 1 || sort->to_apply() == nullptr ||
      static_cast<int64_t>(leaves_.size()) != sort->operand_count()) {
    return Unimplemented(sort, "malformed sort");
  }
  const std::vector<int64_t> dims = sort->operand(0)->shape().dimensions();
  const int64_t dim = sort_dims[0];
  if (dim < 0 || dim >= static_cast<int64_t>(dims.size())) {
    return Unimplemented(sort, "sort dimension out of range");
  }
  for (const HloInstruction* op : sort->operands()) {
    if (op->shape().dimensions() != dims) return Unimplemented(sort, "operands of different dims");
  }
  std::vector<int64_t> line_dims;
  for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
    if (d != dim) line_dims.push_back(dims[d]);
  }
  const int64_t len = dims[dim];
  const int64_t n = sort->operand_count();
  Segment s;
  s.blocks = len == 0 ? 0 : Product(line_dims);
  s.emit = [=](llvm::Value* block) -> absl::Status {
    const std::vector<llvm::Value*> line = IrIndex::FromLinear(block, line_dims, &b_).multidim();
    auto at = [&](llvm::Value* j) {
      std::vector<llvm::Value*> index = line;
      index.insert(index.begin() + dim, j);
      return IrIndex(index, dims);
    };
    std::vector<llvm::Type*> types;
    std::vector<llvm::AllocaInst*> keys;
    for (int64_t k = 0; k < n; ++k) {
      types.push_back(ElementIrType(leaves_[k].shape.element_type(), ctx_));
      keys.push_back(EntryAlloca(types.back(), 1, "sort_key"));
    }
    llvm::AllocaInst* slot = EntryAlloca(b_.getInt64Ty(), 1, "sort_slot");
    // The line into the outputs, then a stable insertion sort there.
    RETURN_IF_ERROR(EmitLoop(0, len, "sort_copy", [&](llvm::Value* j) -> absl::Status {
      for (int64_t k = 0; k < n; ++k) {
        ASSIGN_OR_RETURN(llvm::Value * v, gens_.at(sort->operand(k))(at(j)));
        OutputArray(k).EmitWriteElement(at(j), v, &b_);
      }
      return absl::OkStatus();
    }));
    return EmitLoop(1, len, "sort_i", [&](llvm::Value* i) -> absl::Status {
      for (int64_t k = 0; k < n; ++k) {
        b_.CreateStore(OutputArray(k).EmitReadElement(at(i), &b_), keys[k]);
      }
      b_.CreateStore(i, slot);
      llvm::Function* f = b_.GetInsertBlock()->getParent();
      llvm::BasicBlock* header = llvm::BasicBlock::Create(ctx_, "sort_header", f);
      llvm::BasicBlock* check = llvm::BasicBlock::Create(ctx_, "sort_check", f);
      llvm::BasicBlock* shift = llvm::BasicBlock::Create(ctx_, "sort_shift", f);
      llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "sort_done", f);
      b_.CreateBr(header);
      b_.SetInsertPoint(header);
      llvm::Value* j = b_.CreateLoad(b_.getInt64Ty(), slot);
      b_.CreateCondBr(b_.CreateICmpSGT(j, b_.getInt64(0)), check, done);
      b_.SetInsertPoint(check);
      llvm::Value* prev = b_.CreateSub(j, b_.getInt64(1));
      std::vector<llvm::Value*> args;
      for (int64_t k = 0; k < n; ++k) {
        args.push_back(b_.CreateLoad(types[k], keys[k]));
        args.push_back(OutputArray(k).EmitReadElement(at(prev), &b_));
      }
      ASSIGN_OR_RETURN(std::vector<llvm::Value*> less, EmitComputation(sort->to_apply(), args));
      if (less.size() != 1) return Unimplemented(sort, "comparator must return one pred");
      llvm::Value* lt = b_.CreateICmpNE(less[0], llvm::ConstantInt::get(less[0]->getType(), 0));
      b_.CreateCondBr(lt, shift, done);
      b_.SetInsertPoint(shift);
      for (int64_t k = 0; k < n; ++k) {
        OutputArray(k).EmitWriteElement(at(j), OutputArray(k).EmitReadElement(at(prev), &b_),
                                        &b_);
      }
      b_.CreateStore(prev, slot);
      b_.CreateBr(header);
      b_.SetInsertPoint(done);
      llvm::Value* to = b_.CreateLoad(b_.getInt64Ty(), slot);
      for (int64_t k = 0; k < n; ++k) {
        OutputArray(k).EmitWriteElement(at(to), b_.CreateLoad(types[k], keys[k]), &b_);
      }
      return absl::OkStatus();
    });
  };
  return s;
}

}  // namespace xla::gpu
