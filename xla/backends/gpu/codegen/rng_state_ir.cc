#include "xla/backends/gpu/codegen/rng_state_ir.h"

#include "llvm/Support/Alignment.h"
#include "xla/backends/gpu/codegen/fusion_kernel_analysis.h"
#include "xla/hlo/ir/hlo_opcode.h"
#include "xla/types/primitive_type.h"

namespace xla::gpu {
namespace {

// u64[2] or s64[2] (the verifier's forms of XLA's state).
bool IsStateShape(const Shape& shape) {
  return shape.IsArray() && shape.rank() == 1 && shape.dimensions(0) == 2 &&
         (shape.element_type() == PrimitiveType::U64 ||
          shape.element_type() == PrimitiveType::S64);
}

}  // namespace

bool IsRngStateRoot(const HloInstruction& root) {
  return root.opcode() == HloOpcode::kRngGetAndUpdateState;
}

absl::Status CheckRngStateFusion(absl::string_view emitter, const HloInstruction& fusion,
                                 const HloInstruction& root) {
  if (fusion.operand_count() != 1 || !IsStateShape(fusion.operand(0)->shape()) ||
      !IsStateShape(root.shape())) {
    return FusionEmitterUnimplemented(
        emitter, root,
        "rng-get-and-update-state needs a u64[2] or s64[2] result and its fusion one operand, "
        "the u64[2] state (thunk emission makes that fusion)");
  }
  return absl::OkStatus();
}

void EmitRngStateUpdate(llvm::IRBuilder<>* b, llvm::Value* state, llvm::Value* out,
                        int64_t delta) {
  llvm::Type* i64 = b->getInt64Ty();
  const llvm::MaybeAlign align(8);
  const auto ordering = llvm::AtomicOrdering::Monotonic;
  llvm::Value* lo_ptr = state;
  llvm::Value* hi_ptr = b->CreateConstInBoundsGEP1_64(i64, state, 1, "state_hi");
  llvm::Value* add = b->getInt64(static_cast<uint64_t>(delta));
  llvm::Value* old_lo = b->CreateAtomicRMW(llvm::AtomicRMWInst::Add, lo_ptr, add, align, ordering);
  // 128-bit add of the sign-extended delta: the high word gets the carry out
  // of the low word plus all ones for a negative delta.
  llvm::Value* carry = b->CreateZExt(
      b->CreateICmpULT(b->CreateAdd(old_lo, add), old_lo, "carry"), i64);
  llvm::Value* hi_add = delta < 0 ? b->CreateSub(carry, b->getInt64(1)) : carry;
  llvm::Value* old_hi =
      b->CreateAtomicRMW(llvm::AtomicRMWInst::Add, hi_ptr, hi_add, align, ordering);
  b->CreateAlignedStore(old_lo, out, align);
  b->CreateAlignedStore(old_hi, b->CreateConstInBoundsGEP1_64(i64, out, 1), align);
}

}  // namespace xla::gpu
