// The NVPTX fusion emitter's state and GPU IR helpers (thread grid, shared
// memory, warp shuffles), shared by its per-kind files: one class whose
// kinds are defined in nvptx_<kind>_kernel.cc. Internal to
// :nvptx_fusion_emitter; callers use nvptx_fusion_emitter.h.
//
// What is not GPU-specific (analysis, generators, leaf values and writes)
// is ../fusion_emitter_core.h, which the host emitter shares.
//
// Thread-safety: one instance emits one kernel into one module; not
// thread-safe.
#ifndef XLA_BACKENDS_GPU_CODEGEN_NVPTX_NVPTX_FUSION_KERNEL_EMITTER_H_
#define XLA_BACKENDS_GPU_CODEGEN_NVPTX_NVPTX_FUSION_KERNEL_EMITTER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "xla/backends/gpu/codegen/fusion_emitter_core.h"
#include "xla/backends/gpu/codegen/nvptx/launch_dimensions_choice.h"
#include "xla/backends/gpu/codegen/nvptx/nvptx_fusion_emitter.h"

namespace xla::gpu {

class NvptxFusionKernelEmitter : public FusionEmitterCore {
 public:
  NvptxFusionKernelEmitter(const HloInstruction& fusion, const NvptxEmitOptions& options,
                           llvm::Module* module);

  // EmitNvptxFusionKernel (nvptx_fusion_emitter.h).
  absl::StatusOr<NvptxKernelInfo> Run(const std::string& symbol);

 private:
  // Setup (nvptx_fusion_emitter.cc, nvptx_launch_problem.cc).
  absl::Status CreateKernel(const std::string& symbol);
  // Table mode (argument_table_): args_ from the table parameter's entries.
  absl::Status LoadArgumentTable(int64_t num_args);
  absl::Status EmitKernelBody();
  NvptxKernelInfo Info(const std::string& symbol) const;
  // Chooses kind_ and fills problem_ (the launch's inputs).
  absl::Status Classify();
  absl::Status ClassifyScatter(bool in_place);
  absl::Status ClassifySort();
  bool Vectorizable() const;

  // Kernels, one file per kind.
  absl::Status EmitLoopKernel();            // nvptx_loop_kernel.cc
  absl::Status EmitRowKernel();             // nvptx_reduction_kernel.cc
  absl::Status EmitColumnKernel();          // nvptx_reduction_kernel.cc
  absl::Status EmitTransposeKernel();       // nvptx_transpose_kernel.cc
  absl::Status EmitDusKernel();             // nvptx_update_kernel.cc
  absl::Status EmitScatterKernel(bool atomic);  // nvptx_update_kernel.cc
  absl::Status EmitSortKernel();            // nvptx_sort_kernel.cc
  absl::Status EmitSelectAndScatterKernel();  // nvptx_update_kernel.cc
  absl::Status EmitRngStateKernel();          // nvptx_update_kernel.cc

  // GPU IR helpers (nvptx_fusion_kernel_emitter.cc).
  llvm::Value* Sreg(llvm::Intrinsic::ID id);
  // The thread-indexed (or grid-stride) loop over [0, n) of loop-like kinds.
  absl::Status EmitThreadLoop(int64_t n, const LoopBody& body);
  llvm::AllocaInst* EntryAlloca(llvm::Type* type, const std::string& name);
  // A static shared-memory array of `count` elements, counted in
  // static_shared_.
  llvm::GlobalVariable* SharedArray(llvm::Type* type, int64_t count, const std::string& name);
  void Barrier();
  llvm::Value* ShuffleXor(llvm::Value* v, int lane_mask);
  // Butterfly all-reduce over the warp's lanes. `valid` (i1, or null when
  // every lane holds a partial) leaves out the lanes without one, so the
  // init value is never folded in twice.
  absl::StatusOr<Values> WarpAllReduce(const HloInstruction* reduce, Values v,
                                       llvm::Value* valid = nullptr);
  // Folds positions pos, pos + step, ... below `count` of each reduce in
  // `reduces` into its accumulators `acc` (which hold the init values on
  // entry) with `load(q, c)` giving reduce q's values at position c. Over
  // all threads the init is folded in once, as on the host and in the
  // evaluator: the thread at position 0 folds from it, every other thread
  // starts from its first element (a thread with none keeps the init and
  // must be left out of the combine that follows).
  absl::Status FoldStrided(const std::vector<const HloInstruction*>& reduces,
                           const std::vector<std::vector<llvm::AllocaInst*>>& acc,
                           llvm::Value* pos, int64_t count, int64_t step, const std::string& name,
                           const std::function<absl::StatusOr<Values>(size_t, llvm::Value*)>& load);

  const NvptxEmitOptions& options_;
  const NvptxTarget target_;
  llvm::Function* kernel_ = nullptr;
  bool argument_table_ = false;  // the kernel takes one table of pointers

  NvptxKernelKind kind_ = NvptxKernelKind::kLoop;
  LaunchProblem problem_;
  LaunchChoice choice_;
  int64_t kept_ = 0;            // row kinds: kept (row) dims
  int64_t transpose_dim_ = -1;  // transpose: output dim along the input's minor dim
  int64_t static_shared_ = 0;
  bool scatter_in_place_ = false;  // scatter: the output aliases operand 0
  int64_t sort_dim_ = -1;          // sort: the sorted dimension
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_NVPTX_NVPTX_FUSION_KERNEL_EMITTER_H_
