#include "xla/backends/gpu/codegen/host/host_fusion_kernel_emitter.h"

#include "absl/strings/str_cat.h"
#include "xla/backends/gpu/codegen/host/host_math_emitter.h"
#include "xla/backends/gpu/codegen/ir_loops.h"

namespace xla::gpu {

HostFusionKernelEmitter::HostFusionKernelEmitter(const HloInstruction& fusion,
                                                 const HostEmitOptions& options,
                                                 llvm::Module* module)
    : FusionEmitterCore(fusion, "host", module, &GetHostMathEmitter()), options_(options) {}

absl::Status HostFusionKernelEmitter::EmitLoop(llvm::Value* lo, llvm::Value* hi,
                                               const std::string& name, const LoopBody& body) {
  return EmitLoop(lo, hi, b_.getInt64(1), name, body);
}

absl::Status HostFusionKernelEmitter::EmitNestedLoops(const std::vector<int64_t>& dims,
                                                      const IndexFn& body) {
  std::vector<llvm::Value*> index(dims.size());
  std::function<absl::Status(size_t)> level = [&](size_t d) -> absl::Status {
    if (d == dims.size()) return body(IrIndex(index, dims));
    return EmitLoop(0, dims[d], absl::StrCat("i", d), [&](llvm::Value* i) {
      index[d] = i;
      return level(d + 1);
    });
  };
  return level(0);
}

llvm::AllocaInst* HostFusionKernelEmitter::EntryAlloca(llvm::Type* type, int64_t count,
                                                       const std::string& name) {
  return EmitEntryAlloca(&b_, type, b_.getInt64(count), name);
}

llvm::Value* HostFusionKernelEmitter::Min(llvm::Value* a, llvm::Value* b) {
  return b_.CreateSelect(b_.CreateICmpSLT(a, b), a, b);
}

HostFusionKernelEmitter::IndexFn HostFusionKernelEmitter::AllLeavesBody() {
  return [this, all = AllLeaves()](const IrIndex& i) { return WriteLeaves(all, i); };
}

}  // namespace xla::gpu
