#include "xla/backends/gpu/codegen/host/host_fusion_kernel_emitter.h"

#include "absl/strings/str_cat.h"
#include "llvm/IR/Constants.h"
#include "xla/backends/gpu/codegen/ir_array.h"
#include "xla/types/float_format.h"
#include "xla/types/primitive_type.h"
#include "xla/util/math_util.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {

// One pass per row (a block): the row's best k so far are kept sorted in the
// outputs, best first; an element better than the last kept one (or any
// element while fewer than k are kept) is inserted by shifting the worse
// ones down. "Better" is strictly greater (less, with largest=false) in the
// evaluator's total order (-NaN < -inf < ... < -0.0 < 0.0 < ... < inf <
// NaN), as integer keys: a float's bits with the magnitude bits flipped
// when the sign is set, compared signed. Equal keys keep the lower index
// first, as the evaluator's stable sort does. O(n) compares per row plus
// O(k) per insertion; O(n k) when every element is an insertion (input
// already in the opposite order).
absl::StatusOr<HostKernelSegment> HostFusionKernelEmitter::PlanTopK() {
  const HloInstruction* topk = computation_->root_instruction();
  if (topk->operand_count() != 1 || leaves_.size() != 2) return Unimplemented(topk, "malformed topk");
  const HloInstruction* x = topk->operand(0);
  const PrimitiveType type = x->shape().element_type();
  if (IsComplex(type)) return Unimplemented(topk, "complex operand (no total order)");
  const std::vector<int64_t> dims = x->shape().dimensions();
  if (dims.empty()) return Unimplemented(topk, "rank-0 operand");
  const int64_t n = dims.back();
  const int64_t k = topk->GetInt(AttrId::kK);
  if (k < 0 || k > n || leaves_[0].shape.dimensions().back() != k) {
    return Unimplemented(topk, absl::StrCat("k=", k, " does not fit the operand and results"));
  }
  const bool largest = topk->GetBool(AttrId::kLargest, true);
  const std::vector<int64_t> row_dims(dims.begin(), dims.end() - 1);
  std::vector<int64_t> out_dims = row_dims;
  out_dims.push_back(k);
  Segment s;
  s.blocks = k == 0 ? 0 : Product(row_dims);
  s.emit = [=](llvm::Value* block) -> absl::Status {
    const std::vector<llvm::Value*> row = IrIndex::FromLinear(block, row_dims, &b_).multidim();
    auto at = [&row](llvm::Value* j, const std::vector<int64_t>& shape) {
      std::vector<llvm::Value*> index = row;
      index.push_back(j);
      return IrIndex(index, shape);
    };
    const IrArray values = OutputArray(0);
    const IrArray indices = OutputArray(1);
    // The total-order key of a value (the evaluator's TotalOrderKey): an
    // integer of the register width, compared signed or unsigned.
    llvm::Type* reg_type = ElementIrType(type, ctx_);
    const int reg_bits = static_cast<int>(reg_type->getPrimitiveSizeInBits());
    llvm::IntegerType* int_type = b_.getIntNTy(reg_bits);
    const bool exponent_only =
        IsFloat(type) &&
        GetFloatFormat(FloatFormatOf(type)).specials == SpecialValues::kExponentOnly;
    // Sign-magnitude floats: the magnitude bits flip when the sign is set,
    // then compare signed; sub-byte codes (f4) move up to the register's
    // sign bit first.
    const bool sign_magnitude = IsFloat(type) && !exponent_only;
    const bool is_unsigned = IsUnsignedInt(type) || IsPred(type) || exponent_only;
    auto key_of = [&](llvm::Value* v) -> llvm::Value* {
      if (!sign_magnitude) return v;
      llvm::Value* raw = b_.CreateBitCast(v, int_type);
      if (const int unused = reg_bits - BitWidth(type); unused > 0) raw = b_.CreateShl(raw, unused);
      llvm::Value* sign = b_.CreateAShr(raw, reg_bits - 1);
      llvm::Value* magnitude_mask =
          llvm::ConstantInt::get(int_type, llvm::APInt::getSignedMaxValue(reg_bits));
      return b_.CreateXor(raw, b_.CreateAnd(sign, magnitude_mask));
    };
    // Whether key a is strictly better than key b.
    auto better = [&](llvm::Value* a, llvm::Value* b) -> llvm::Value* {
      llvm::CmpInst::Predicate p;
      if (largest) {
        p = is_unsigned ? llvm::CmpInst::ICMP_UGT : llvm::CmpInst::ICMP_SGT;
      } else {
        p = is_unsigned ? llvm::CmpInst::ICMP_ULT : llvm::CmpInst::ICMP_SLT;
      }
      return b_.CreateICmp(p, a, b);
    };
    llvm::AllocaInst* count_slot = EntryAlloca(b_.getInt64Ty(), 1, "topk_count");
    llvm::AllocaInst* pos_slot = EntryAlloca(b_.getInt64Ty(), 1, "topk_pos");
    b_.CreateStore(b_.getInt64(0), count_slot);
    llvm::Function* f = b_.GetInsertBlock()->getParent();
    auto new_block = [&](const char* name) { return llvm::BasicBlock::Create(ctx_, name, f); };
    llvm::Value* k_value = b_.getInt64(k);
    llvm::Value* last = b_.getInt64(k - 1);
    return EmitLoop(0, n, "topk_j", [&](llvm::Value* j) -> absl::Status {
      ASSIGN_OR_RETURN(llvm::Value * v, gens_.at(x)(at(j, dims)));
      llvm::Value* key = key_of(v);
      llvm::Value* count = b_.CreateLoad(b_.getInt64Ty(), count_slot);
      llvm::BasicBlock* filling = new_block("topk_filling");
      llvm::BasicBlock* full = new_block("topk_full");
      llvm::BasicBlock* header = new_block("topk_header");
      llvm::BasicBlock* check = new_block("topk_check");
      llvm::BasicBlock* shift = new_block("topk_shift");
      llvm::BasicBlock* place = new_block("topk_place");
      llvm::BasicBlock* next = new_block("topk_next");
      b_.CreateCondBr(b_.CreateICmpSLT(count, k_value), filling, full);
      // Fewer than k kept: the element goes in, starting from the end.
      b_.SetInsertPoint(filling);
      b_.CreateStore(count, pos_slot);
      b_.CreateStore(b_.CreateAdd(count, b_.getInt64(1)), count_slot);
      b_.CreateBr(header);
      // k kept: only an element better than the last one goes in, over it.
      b_.SetInsertPoint(full);
      llvm::Value* worst = key_of(values.EmitReadElement(at(last, out_dims), &b_));
      b_.CreateStore(last, pos_slot);
      b_.CreateCondBr(better(key, worst), header, next);
      // Shift worse kept elements down one place until a better-or-equal one.
      b_.SetInsertPoint(header);
      llvm::Value* pos = b_.CreateLoad(b_.getInt64Ty(), pos_slot);
      b_.CreateCondBr(b_.CreateICmpSGT(pos, b_.getInt64(0)), check, place);
      b_.SetInsertPoint(check);
      llvm::Value* prev = b_.CreateSub(pos, b_.getInt64(1));
      llvm::Value* prev_value = values.EmitReadElement(at(prev, out_dims), &b_);
      b_.CreateCondBr(better(key, key_of(prev_value)), shift, place);
      b_.SetInsertPoint(shift);
      values.EmitWriteElement(at(pos, out_dims), prev_value, &b_);
      indices.EmitWriteElement(at(pos, out_dims),
                               indices.EmitReadElement(at(prev, out_dims), &b_), &b_);
      b_.CreateStore(prev, pos_slot);
      b_.CreateBr(header);
      b_.SetInsertPoint(place);
      llvm::Value* final_pos = b_.CreateLoad(b_.getInt64Ty(), pos_slot);
      values.EmitWriteElement(at(final_pos, out_dims), v, &b_);
      indices.EmitWriteElement(at(final_pos, out_dims), b_.CreateTrunc(j, b_.getInt32Ty()), &b_);
      b_.CreateBr(next);
      b_.SetInsertPoint(next);
      return absl::OkStatus();
    });
  };
  return s;
}

}  // namespace xla::gpu
