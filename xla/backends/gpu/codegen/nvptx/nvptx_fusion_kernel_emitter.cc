#include "xla/backends/gpu/codegen/nvptx/nvptx_fusion_kernel_emitter.h"

#include "absl/strings/str_cat.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "xla/backends/gpu/codegen/ir_loops.h"
#include "xla/backends/gpu/codegen/nvptx/libdevice_math.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

constexpr unsigned kShared = 3;

const NvptxMathEmitter& LibdeviceMath() {
  static const NvptxMathEmitter* const kMath = new NvptxMathEmitter();
  return *kMath;
}

}  // namespace

NvptxFusionKernelEmitter::NvptxFusionKernelEmitter(const HloInstruction& fusion,
                                                   const NvptxEmitOptions& options,
                                                   llvm::Module* module)
    : FusionEmitterCore(fusion, "nvptx", module, &LibdeviceMath()),
      options_(options),
      target_(options.target) {}

llvm::Value* NvptxFusionKernelEmitter::Sreg(llvm::Intrinsic::ID id) {
  return b_.CreateZExt(b_.CreateIntrinsic(id, {}, {}), b_.getInt64Ty());
}

llvm::AllocaInst* NvptxFusionKernelEmitter::EntryAlloca(llvm::Type* type, const std::string& name) {
  return EmitEntryAlloca(&b_, type, nullptr, name);
}

void NvptxFusionKernelEmitter::Barrier() {
  b_.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
}

absl::Status NvptxFusionKernelEmitter::EmitThreadLoop(int64_t n,
                                     const LoopBody& body) {
  llvm::Value* threads = b_.getInt64(choice_.threads_per_block);
  llvm::Value* i = b_.CreateAdd(
      b_.CreateMul(Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x), threads, "", true, true),
      Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x), "linear", true, true);
  if (!choice_.grid_stride) {
    return EmitIf(b_.CreateICmpSLT(i, b_.getInt64(n)), [&]() { return body(i); });
  }
  llvm::Value* stride =
      b_.CreateMul(Sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x), threads, "", true, true);
  return EmitLoop(i, b_.getInt64(n), stride, "grid", body);
}

llvm::GlobalVariable* NvptxFusionKernelEmitter::SharedArray(llvm::Type* type, int64_t count,
                                           const std::string& name) {
  llvm::ArrayType* array = llvm::ArrayType::get(type, count);
  auto* global = new llvm::GlobalVariable(
      *module_, array, /*isConstant=*/false, llvm::GlobalValue::InternalLinkage,
      llvm::UndefValue::get(array), absl::StrCat(kernel_->getName().str(), ".", name), nullptr,
      llvm::GlobalValue::NotThreadLocal, kShared);
  global->setAlignment(llvm::Align(8));
  // ptxas places each array at an 8-byte boundary (the alignment above).
  static_shared_ = (static_shared_ + 7) / 8 * 8 +
                   static_cast<int64_t>(module_->getDataLayout().getTypeAllocSize(array));
  return global;
}

// A butterfly shuffle of any register type: 32-bit types directly, narrower
// ones widened, 64-bit ones as two halves.
llvm::Value* NvptxFusionKernelEmitter::ShuffleXor(llvm::Value* v, int lane_mask) {
  llvm::Value* full = b_.getInt32(-1);
  llvm::Value* mask = b_.getInt32(lane_mask);
  llvm::Value* clamp = b_.getInt32(0x1f);
  llvm::Type* type = v->getType();
  if (type->isFloatTy()) {
    return b_.CreateIntrinsic(llvm::Intrinsic::nvvm_shfl_sync_bfly_f32, {},
                              {full, v, mask, clamp});
  }
  auto shfl32 = [&](llvm::Value* x) {
    return b_.CreateIntrinsic(llvm::Intrinsic::nvvm_shfl_sync_bfly_i32, {}, {full, x, mask, clamp});
  };
  const unsigned bits = type->getPrimitiveSizeInBits();
  llvm::Type* int_type = b_.getIntNTy(bits);
  llvm::Value* as_int = type->isIntegerTy() ? v : b_.CreateBitCast(v, int_type);
  llvm::Value* result;
  if (bits <= 32) {
    result = b_.CreateTrunc(shfl32(b_.CreateZExt(as_int, b_.getInt32Ty())), int_type);
  } else {
    llvm::Value* lo = shfl32(b_.CreateTrunc(as_int, b_.getInt32Ty()));
    llvm::Value* hi = shfl32(b_.CreateTrunc(b_.CreateLShr(as_int, 32), b_.getInt32Ty()));
    result = b_.CreateOr(b_.CreateZExt(lo, int_type),
                         b_.CreateShl(b_.CreateZExt(hi, int_type), 32));
  }
  return type->isIntegerTy() ? result : b_.CreateBitCast(result, type);
}

absl::StatusOr<FusionEmitterCore::Values> NvptxFusionKernelEmitter::WarpAllReduce(const HloInstruction* reduce, Values v,
                                               llvm::Value* valid) {
  for (int mask = static_cast<int>(target_.warp_size) / 2; mask >= 1; mask /= 2) {
    Values other;
    for (llvm::Value* x : v) other.push_back(ShuffleXor(x, mask));
    ASSIGN_OR_RETURN(Values both, Combine(reduce, v, other));
    if (valid == nullptr) {
      v = both;
      continue;
    }
    // Both partials, else whichever exists (the invalid side's is unused).
    llvm::Value* other_valid = ShuffleXor(valid, mask);
    llvm::Value* both_valid = b_.CreateAnd(valid, other_valid);
    for (size_t k = 0; k < v.size(); ++k) {
      v[k] = b_.CreateSelect(both_valid, both[k], b_.CreateSelect(valid, v[k], other[k]));
    }
    valid = b_.CreateOr(valid, other_valid);
  }
  return v;
}

absl::Status NvptxFusionKernelEmitter::FoldStrided(
    const std::vector<const HloInstruction*>& reduces,
    const std::vector<std::vector<llvm::AllocaInst*>>& acc, llvm::Value* pos, int64_t count,
    int64_t step, const std::string& name,
    const std::function<absl::StatusOr<Values>(size_t, llvm::Value*)>& load) {
  llvm::Value* first = b_.CreateICmpEQ(pos, b_.getInt64(0));
  llvm::Value* has_one = b_.CreateICmpULT(pos, b_.getInt64(count));
  RETURN_IF_ERROR(EmitIf(b_.CreateAnd(b_.CreateNot(first), has_one), [&]() -> absl::Status {
    for (size_t q = 0; q < reduces.size(); ++q) {
      ASSIGN_OR_RETURN(Values xs, load(q, pos));
      for (size_t k = 0; k < xs.size(); ++k) b_.CreateStore(xs[k], acc[q][k]);
    }
    return absl::OkStatus();
  }));
  llvm::Value* start = b_.CreateSelect(first, pos, b_.CreateAdd(pos, b_.getInt64(step)));
  return EmitLoop(start, b_.getInt64(count), b_.getInt64(step), name,
                  [&](llvm::Value* c) -> absl::Status {
                    for (size_t q = 0; q < reduces.size(); ++q) {
                      Values cur;
                      for (llvm::AllocaInst* a : acc[q]) {
                        cur.push_back(b_.CreateLoad(a->getAllocatedType(), a));
                      }
                      ASSIGN_OR_RETURN(Values xs, load(q, c));
                      ASSIGN_OR_RETURN(Values next, Combine(reduces[q], cur, xs));
                      for (size_t k = 0; k < next.size(); ++k) b_.CreateStore(next[k], acc[q][k]);
                    }
                    return absl::OkStatus();
                  });
}

}  // namespace xla::gpu
