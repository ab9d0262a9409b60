#include "xla/backends/gpu/codegen/host/host_fusion_kernel_emitter.h"

#include <memory>

#include "xla/backends/gpu/codegen/ir_array.h"
#include "xla/backends/gpu/codegen/rng_state_ir.h"
#include "xla/backends/gpu/codegen/update_index_ir.h"
#include "xla/types/primitive_type.h"
#include "xla/util/math_util.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {

absl::StatusOr<HostKernelSegment> HostFusionKernelEmitter::PlanScatter(bool in_place) {
  const HloInstruction* scatter = computation_->root_instruction();
  ASSIGN_OR_RETURN(const ScatterIndexing indexing, AnalyzeScatterIndexing(emitter_, *scatter));
  Segment s;
  s.blocks = 1;
  // Variadic: output k is array k; the combiner takes the N old values then
  // the N updates and yields N values, all read before any is written.
  s.emit = [=](llvm::Value*) -> absl::Status {
    const int64_t n = indexing.count;
    if (!in_place) {
      RETURN_IF_ERROR(EmitNestedLoops(indexing.operand_dims, [&](const IrIndex& i) -> absl::Status {
        for (int64_t k = 0; k < n; ++k) {
          ASSIGN_OR_RETURN(llvm::Value * v, gens_.at(scatter->operand(k))(i));
          OutputArray(k).EmitWriteElement(i, v, &b_);
        }
        return absl::OkStatus();
      }));
    }
    return EmitNestedLoops(indexing.update_dims, [&](const IrIndex& u) -> absl::Status {
      llvm::Value* inside = nullptr;
      ASSIGN_OR_RETURN(const IrIndex t, EmitScatterTarget(indexing, u, gens_, &b_, &inside));
      return EmitIf(inside, [&]() -> absl::Status {
        std::vector<llvm::Value*> args;
        for (int64_t k = 0; k < n; ++k) args.push_back(OutputArray(k).EmitReadElement(t, &b_));
        for (int64_t k = 0; k < n; ++k) {
          ASSIGN_OR_RETURN(llvm::Value * update, gens_.at(indexing.updates(k))(u));
          args.push_back(update);
        }
        ASSIGN_OR_RETURN(std::vector<llvm::Value*> next, EmitComputation(scatter->to_apply(), args));
        for (int64_t k = 0; k < n; ++k) OutputArray(k).EmitWriteElement(t, next[k], &b_);
        return absl::OkStatus();
      });
    });
  };
  return s;
}

HostKernelSegment HostFusionKernelEmitter::PlanDusInPlace() {
  const HloInstruction* dus = computation_->root_instruction();
  const HloInstruction* update = dus->operand(1);
  const std::vector<int64_t> dims = dus->shape().dimensions();
  auto starts = std::make_shared<std::vector<llvm::Value*>>();
  auto prologue = [this, dus, starts]() -> absl::Status {
    ASSIGN_OR_RETURN(*starts, EmitDusStarts(*dus, gens_, &b_));
    return absl::OkStatus();
  };
  auto body = [this, update, dims, starts](const IrIndex& u) -> absl::Status {
    ASSIGN_OR_RETURN(llvm::Value * v, gens_.at(update)(u));
    std::vector<llvm::Value*> target;
    for (size_t d = 0; d < dims.size(); ++d) target.push_back(b_.CreateAdd((*starts)[d], u[d]));
    OutputArray(0).EmitWriteElement(IrIndex(target, dims), v, &b_);
    return absl::OkStatus();
  };
  std::vector<Segment> segments = PlanElementwise(update->shape().dimensions(),
                                                  ByteWidth(dus->shape().element_type()),
                                                  prologue, body);
  return segments.empty() ? Segment{} : segments[0];
}

absl::StatusOr<HostKernelSegment> HostFusionKernelEmitter::PlanSelectAndScatter() {
  const HloInstruction* sas = computation_->root_instruction();
  if (sas->operand_count() != 3 || sas->GetComputation(AttrId::kScatter) == nullptr ||
      leaves_.size() != 1) {
    return Unimplemented(sas, "malformed select-and-scatter");
  }
  const std::vector<int64_t> out_dims = leaves_[0].shape.dimensions();
  const std::vector<int64_t> source_dims = sas->operand(1)->shape().dimensions();
  Segment s;
  s.blocks = Product(out_dims) == 0 ? 0 : 1;
  s.emit = [=](llvm::Value*) -> absl::Status {
    const IrArray out = OutputArray(0);
    ASSIGN_OR_RETURN(llvm::Value * init, gens_.at(sas->operand(2))(IrIndex()));
    RETURN_IF_ERROR(EmitNestedLoops(out_dims, [&](const IrIndex& i) -> absl::Status {
      out.EmitWriteElement(i, init, &b_);
      return absl::OkStatus();
    }));
    // Source elements in row-major order, as the evaluator applies them.
    return EmitNestedLoops(source_dims, [&](const IrIndex& si) {
      return ScatterSourceElement(*sas, out, si);
    });
  };
  return s;
}

// One block on one thread: rng_state_ir.h (operand 0 is the state).
absl::StatusOr<HostKernelSegment> HostFusionKernelEmitter::PlanRngState() {
  const HloInstruction* root = computation_->root_instruction();
  RETURN_IF_ERROR(CheckRngStateFusion(emitter_, fusion_, *root));
  const int64_t delta = root->GetInt(AttrId::kDelta);
  Segment s;
  s.blocks = 1;
  s.emit = [this, delta](llvm::Value*) -> absl::Status {
    EmitRngStateUpdate(&b_, args_[0], args_[1], delta);
    return absl::OkStatus();
  };
  return s;
}

}  // namespace xla::gpu
