#include "xla/backends/gpu/codegen/nvptx/nvptx_fusion_kernel_emitter.h"

#include "llvm/IR/Instructions.h"
#include "xla/backends/gpu/codegen/ir_array.h"
#include "xla/backends/gpu/codegen/rng_state_ir.h"
#include "xla/backends/gpu/codegen/update_index_ir.h"
#include "xla/types/primitive_type.h"
#include "xla/util/math_util.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {

absl::Status NvptxFusionKernelEmitter::EmitDusKernel() {
  const HloInstruction* dus = computation_->root_instruction();
  const HloInstruction* update = dus->operand(1);
  const std::vector<int64_t>& dims = dus->shape().dimensions();
  const std::vector<int64_t>& update_dims = update->shape().dimensions();
  return EmitThreadLoop(problem_.elements, [&](llvm::Value* i) -> absl::Status {
    const IrIndex u = IrIndex::FromLinear(i, update_dims, &b_);
    ASSIGN_OR_RETURN(Values target, EmitDusStarts(*dus, gens_, &b_));
    for (size_t d = 0; d < dims.size(); ++d) target[d] = b_.CreateAdd(target[d], u[d]);
    ASSIGN_OR_RETURN(llvm::Value * v, gens_.at(update)(u));
    OutputArray(0).EmitWriteElement(IrIndex(target, dims), v, &b_);
    return absl::OkStatus();
  });
}

absl::Status NvptxFusionKernelEmitter::EmitScatterKernel(bool atomic) {
  const HloInstruction* scatter = computation_->root_instruction();
  ASSIGN_OR_RETURN(const ScatterIndexing indexing, AnalyzeScatterIndexing(emitter_, *scatter));
  const int64_t n = indexing.count;
  const std::vector<int64_t>& update_dims = indexing.update_dims;
  // Variadic: output k is array k; the combiner takes the N old values and
  // the N updates (atomic only when N == 1, see ClassifyScatter).
  auto one_update = [&](llvm::Value* i) -> absl::Status {
    const IrIndex u = IrIndex::FromLinear(i, update_dims, &b_);
    llvm::Value* inside = nullptr;
    ASSIGN_OR_RETURN(IrIndex t, EmitScatterTarget(indexing, u, gens_, &b_, &inside));
    return EmitIf(inside, [&]() -> absl::Status {
      Values old, updates;
      for (int64_t k = 0; k < n; ++k) {
        ASSIGN_OR_RETURN(llvm::Value * update, gens_.at(indexing.updates(k))(u));
        updates.push_back(update);
      }
      if (atomic) {
        const bool is_float = updates[0]->getType()->isFloatingPointTy();
        b_.CreateAtomicRMW(is_float ? llvm::AtomicRMWInst::FAdd : llvm::AtomicRMWInst::Add,
                           OutputArray(0).EmitElementAddress(t, &b_), updates[0],
                           llvm::MaybeAlign(ByteWidth(scatter->shape().element_type())),
                           llvm::AtomicOrdering::Monotonic);
        return absl::OkStatus();
      }
      for (int64_t k = 0; k < n; ++k) old.push_back(OutputArray(k).EmitReadElement(t, &b_));
      ASSIGN_OR_RETURN(Values next, Combine(scatter, old, updates));
      for (int64_t k = 0; k < n; ++k) OutputArray(k).EmitWriteElement(t, next[k], &b_);
      return absl::OkStatus();
    });
  };
  if (atomic) return EmitThreadLoop(problem_.elements, one_update);
  // Serial: one thread copies the operands (unless in place), then applies
  // the updates in order, so duplicates combine deterministically.
  if (!scatter_in_place_) {
    const std::vector<int64_t>& dims = indexing.operand_dims;
    RETURN_IF_ERROR(EmitLoop(0, Product(dims), "copy", [&](llvm::Value* i) -> absl::Status {
      const IrIndex index = IrIndex::FromLinear(i, dims, &b_);
      for (int64_t k = 0; k < n; ++k) {
        ASSIGN_OR_RETURN(llvm::Value * v, gens_.at(scatter->operand(k))(index));
        OutputArray(k).EmitWriteElement(index, v, &b_);
      }
      return absl::OkStatus();
    }));
  }
  return EmitLoop(0, problem_.elements, "update", one_update);
}

// One thread, the host's order exactly: the output set to init, then per
// source element (row-major) the shared window selection and
// output[selected] = scatter(source, output[selected]). Serial because
// overlapping windows make later updates depend on earlier ones for any
// scatter computation (an atomic variant for add is future work).
absl::Status NvptxFusionKernelEmitter::EmitSelectAndScatterKernel() {
  const HloInstruction* sas = computation_->root_instruction();
  const std::vector<int64_t>& out_dims = leaves_[0].shape.dimensions();
  const std::vector<int64_t>& source_dims = sas->operand(1)->shape().dimensions();
  const IrArray out = OutputArray(0);
  ASSIGN_OR_RETURN(llvm::Value * init, gens_.at(sas->operand(2))(IrIndex()));
  RETURN_IF_ERROR(EmitLoop(0, Product(out_dims), "init", [&](llvm::Value* i) {
    out.EmitWriteElement(IrIndex::FromLinear(i, out_dims, &b_), init, &b_);
    return absl::OkStatus();
  }));
  return EmitLoop(0, Product(source_dims), "source", [&](llvm::Value* i) -> absl::Status {
    return ScatterSourceElement(*sas, out, IrIndex::FromLinear(i, source_dims, &b_));
  });
}

// One block of one thread (rng_state_ir.h; operand 0 is the state).
absl::Status NvptxFusionKernelEmitter::EmitRngStateKernel() {
  EmitRngStateUpdate(&b_, args_[0], args_[1], computation_->root_instruction()->GetInt(AttrId::kDelta));
  return absl::OkStatus();
}

}  // namespace xla::gpu
