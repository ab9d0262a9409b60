#include "xla/backends/gpu/codegen/ir_loops.h"

#include "llvm/IR/Metadata.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

// The distinct, self-referencing `!llvm.loop` node LangRef requires, with
// one property string.
llvm::MDNode* LoopProperty(llvm::LLVMContext& ctx, const char* property) {
  llvm::Metadata* fields[] = {nullptr,
                              llvm::MDNode::get(ctx, llvm::MDString::get(ctx, property))};
  llvm::MDNode* loop = llvm::MDNode::getDistinct(ctx, fields);
  loop->replaceOperandWith(0, loop);
  return loop;
}

}  // namespace

absl::Status EmitForLoop(llvm::IRBuilder<>* b, llvm::Value* lo, llvm::Value* hi,
                         llvm::Value* step, const std::string& name,
                         const std::function<absl::Status(llvm::Value*)>& body,
                         LoopUnroll unroll) {
  llvm::BasicBlock* pre = b->GetInsertBlock();
  llvm::Function* fn = pre->getParent();
  llvm::LLVMContext& ctx = b->getContext();
  llvm::BasicBlock* body_bb = llvm::BasicBlock::Create(ctx, name + ".body", fn);
  llvm::BasicBlock* exit_bb = llvm::BasicBlock::Create(ctx, name + ".exit", fn);
  b->CreateCondBr(b->CreateICmpSLT(lo, hi), body_bb, exit_bb);
  b->SetInsertPoint(body_bb);
  llvm::PHINode* i = b->CreatePHI(b->getInt64Ty(), 2, name);
  i->addIncoming(lo, pre);
  RETURN_IF_ERROR(body(i));
  llvm::Value* next = b->CreateAdd(i, step, name + ".next", /*HasNUW=*/true, /*HasNSW=*/true);
  i->addIncoming(next, b->GetInsertBlock());
  llvm::BranchInst* latch = b->CreateCondBr(b->CreateICmpSLT(next, hi), body_bb, exit_bb);
  if (unroll == LoopUnroll::kDisabled) {
    latch->setMetadata(llvm::LLVMContext::MD_loop,
                       LoopProperty(ctx, "llvm.loop.unroll.disable"));
  }
  b->SetInsertPoint(exit_bb);
  return absl::OkStatus();
}

absl::Status EmitIfThen(llvm::IRBuilder<>* b, llvm::Value* cond,
                        const std::function<absl::Status()>& then) {
  llvm::Function* fn = b->GetInsertBlock()->getParent();
  llvm::BasicBlock* then_bb = llvm::BasicBlock::Create(b->getContext(), "then", fn);
  llvm::BasicBlock* cont_bb = llvm::BasicBlock::Create(b->getContext(), "cont", fn);
  b->CreateCondBr(cond, then_bb, cont_bb);
  b->SetInsertPoint(then_bb);
  RETURN_IF_ERROR(then());
  b->CreateBr(cont_bb);
  b->SetInsertPoint(cont_bb);
  return absl::OkStatus();
}

llvm::AllocaInst* EmitEntryAlloca(llvm::IRBuilder<>* b, llvm::Type* type, llvm::Value* count,
                                  const std::string& name) {
  llvm::Function* fn = b->GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
  return entry.CreateAlloca(type, count, name);
}

}  // namespace xla::gpu
