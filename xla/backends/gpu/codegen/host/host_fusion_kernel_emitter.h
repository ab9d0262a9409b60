// The host fusion emitter's state and loop helpers, shared by its per-kind
// files: one class whose kinds are planned in host_<kind>_kernel.cc.
// Internal to :host_fusion_emitter; callers use host_fusion_emitter.h.
//
// A kind is planned as segments: contiguous ranges of blocks and the code
// of one block; the kernel loops over the block range it is given and runs
// each block's segment. What is not host-specific (analysis, generators,
// leaf values and writes) is ../fusion_emitter_core.h, which the NVPTX
// emitter shares.
//
// Thread-safety: one instance emits one kernel into one module; not
// thread-safe.
#ifndef XLA_BACKENDS_GPU_CODEGEN_HOST_HOST_FUSION_KERNEL_EMITTER_H_
#define XLA_BACKENDS_GPU_CODEGEN_HOST_HOST_FUSION_KERNEL_EMITTER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "xla/backends/gpu/codegen/fusion_emitter_core.h"
#include "xla/backends/gpu/codegen/host/host_fusion_emitter.h"

namespace xla::gpu {

// A contiguous range of blocks and the code of one of its blocks.
struct HostKernelSegment {
  int64_t blocks = 0;
  std::function<absl::Status(llvm::Value* block)> emit;
};

class HostFusionKernelEmitter : public FusionEmitterCore {
 public:
  using IndexFn = std::function<absl::Status(const IrIndex&)>;

  HostFusionKernelEmitter(const HloInstruction& fusion, const HostEmitOptions& options,
                          llvm::Module* module);

  // EmitHostFusionKernel (host_fusion_emitter.h).
  absl::StatusOr<HostKernelInfo> Run(const std::string& symbol);

 private:
  using Segment = HostKernelSegment;

  // Setup and dispatch (host_fusion_emitter.cc).
  absl::Status CreateFunctions(const std::string& symbol);
  absl::StatusOr<std::vector<Segment>> Plan();
  absl::StatusOr<std::vector<Segment>> PlanRoot();
  absl::Status EmitBlocks(const std::vector<Segment>& segments);

  // Plans, one file per kind.
  // host_loop_kernel.cc: element-wise loops over `dims` (also dus_in_place).
  std::vector<Segment> PlanElementwise(std::vector<int64_t> dims, int64_t bytes_per_element,
                                       std::function<absl::Status()> prologue, IndexFn body);
  std::vector<Segment> PlanLoop(bool same_dims);
  Segment PlanTiled(std::vector<int64_t> dims, int64_t tiled_dim,
                    IndexFn body);                               // host_transpose_kernel.cc
  Segment PlanRows(int64_t kept, std::vector<int64_t> input_dims);  // host_reduction_kernel.cc
  Segment PlanColumns(std::vector<int64_t> input_dims);           // host_reduction_kernel.cc
  absl::StatusOr<Segment> PlanScatter(bool in_place);              // host_update_kernel.cc
  Segment PlanDusInPlace();                                        // host_update_kernel.cc
  absl::StatusOr<Segment> PlanSelectAndScatter();                  // host_update_kernel.cc
  absl::StatusOr<Segment> PlanRngState();                          // host_update_kernel.cc
  absl::StatusOr<Segment> PlanSort();                              // host_sort_kernel.cc
  absl::StatusOr<Segment> PlanTopK();                              // host_topk_kernel.cc
  absl::StatusOr<Segment> PlanConvolution();                       // host_convolution_kernel.cc
  // Writes every output leaf at the index.
  IndexFn AllLeavesBody();

  // Loop helpers (host_fusion_kernel_emitter.cc).
  using FusionEmitterCore::EmitLoop;
  absl::Status EmitLoop(llvm::Value* lo, llvm::Value* hi, const std::string& name,
                        const LoopBody& body);
  // Row-major nested loops over `dims`, one per dimension.
  absl::Status EmitNestedLoops(const std::vector<int64_t>& dims, const IndexFn& body);
  llvm::AllocaInst* EntryAlloca(llvm::Type* type, int64_t count, const std::string& name);
  llvm::Value* Min(llvm::Value* a, llvm::Value* b);

  const HostEmitOptions& options_;
  llvm::Function* impl_ = nullptr;
  llvm::Value* block_begin_ = nullptr;
  llvm::Value* block_end_ = nullptr;
  std::string kind_;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_HOST_HOST_FUSION_KERNEL_EMITTER_H_
