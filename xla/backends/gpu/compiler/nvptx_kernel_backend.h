// The NVPTX KernelBackend (kernel_backend.h): one LLVM module per kernel,
// emitted by EmitNvptxFusionKernel (codegen/nvptx/nvptx_fusion_emitter.h)
// and compiled by Finalize into PTX (and a cubin when ptxas is found) that
// is stored in the kernel's KernelProto.
//
// Why one module per kernel: each KernelProto then holds exactly the code of
// its entry (KernelProto's spec is a oneof of one PTX module or one cubin,
// and the runtime loads one module per kernel), nothing is duplicated, and
// a kernel's bytes do not depend on its neighbours.
//
// Spec choice: KernelProto.spec is a oneof: a kernel stores its PTX, its
// cubin, or (cubin_with_ptx, newer runtimes) both. NvptxSpecChoice decides;
// the PTX of every kernel is always returned in NvptxKernelBuild for
// inspection.
//
// Thread-safety: not thread-safe; one thread per backend.
#ifndef XLA_BACKENDS_GPU_COMPILER_NVPTX_KERNEL_BACKEND_H_
#define XLA_BACKENDS_GPU_COMPILER_NVPTX_KERNEL_BACKEND_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "xla/backends/gpu/codegen/nvptx/nvptx_compiler.h"
#include "xla/backends/gpu/codegen/nvptx/nvptx_fusion_emitter.h"
#include "xla/backends/gpu/codegen/nvptx/nvptx_target.h"
#include "xla/backends/gpu/compiler/kernel_backend.h"

namespace xla::gpu {

enum class NvptxSpecChoice : uint8_t {
  // The cubin when ptxas made one (the driver loads it without JIT), else
  // the PTX.
  kCubinWhenAvailable,
  // Always the PTX (the driver JIT-compiles it; portable to newer GPUs).
  kPtx,
  // The cubin and its PTX together (KernelProto.cubin_with_ptx: the runtime
  // prefers the cubin and JIT-compiles the PTX when the driver refuses it);
  // the PTX alone when ptxas made no cubin. Needs runtime feature
  // "kernel_spec.cubin_with_ptx" (stage 1: only with --emit_cubin_with_ptx).
  kCubinWithPtx,
};

// What Finalize made for one kernel.
struct NvptxKernelBuild {
  std::string name;   // KernelProto.name == the entry symbol
  std::string ptx;    // always set
  bool has_cubin = false;
  int64_t cubin_bytes = 0;
  std::string kind;   // the emitter's kernel kind ("loop", "row_reduction", ...)
  NvptxCompileTimes times;  // where CompileNvptx spent this kernel's time
};

struct NvptxFinalizeResult {
  std::vector<NvptxKernelBuild> kernels;
  // `ptxas --version` of the ptxas that made the cubins ("13.0.88"); empty
  // when no cubin was made.
  std::string ptxas_version;
  // Why there are no cubins (ptxas not found or make_cubin off); empty when
  // every kernel has one.
  std::string cubin_skipped_reason;
};

// Most threads Finalize uses by default.
inline constexpr int kMaxNvptxCompileThreads = 16;

class NvptxKernelBackend : public KernelBackend {
 public:
  // `emit.target` is the target; its noalias/alignment/
  // output_aliases_operand are filled per kernel.
  explicit NvptxKernelBackend(const NvptxEmitOptions& emit);

  std::string TargetName() const override;
  // "cuda": custom calls must be FFI handlers registered for CUDA.
  std::string FfiPlatform() const override { return "cuda"; }

  // Emits `fusion` into a fresh module. Uses aliasing.output_aliases_operand
  // only (no `noalias` on GPU kernels yet). Errors: EmitNvptxFusionKernel's
  // (Unimplemented naming the fused instruction it cannot emit).
  absl::StatusOr<EmittedKernel> EmitFusionKernel(const HloInstruction& fusion,
                                                const std::string& symbol,
                                                const KernelArgAliasing& aliasing) override;

  // Forward: one kernel; backward: dq, then dk/dv
  // (codegen/nvptx/flash_attention_plan.h).
  int FusedAttentionKernels(bool backward) const override { return backward ? 2 : 1; }

  // The FlashAttention-2 style kernel `part` in a fresh module
  // (EmitFlashAttentionKernel). Errors: PlanFlashAttention's refusals.
  absl::StatusOr<EmittedKernel> EmitFusedAttentionKernel(const ffi::TeAttentionConfig& config,
                                                         PrimitiveType type, bool backward,
                                                         int part, const std::string& symbol,
                                                         absl::string_view target) override;

  // Records the last emitted kernel's module for Finalize; the spec stays
  // unset until then. Errors: Internal when `kernel` is not the last one
  // emitted.
  absl::Status DescribeKernel(const EmittedKernel& kernel, KernelProto* proto) override;

  // Compiles every recorded kernel with CompileNvptx, on
  // ThreadCount(compile.threads, kMaxNvptxCompileThreads) threads, and sets
  // the spec of the kernel of the same name in `payload` (ptx or cubin,
  // with `entry`); the payload does not depend on the thread count.
  // Errors: CompileNvptx's (invalid IR, no NVPTX back end, libdevice
  // missing, ptxas rejecting the PTX: a compiler bug, with ptxas's log),
  // prefixed with the kernel name; Internal when a recorded kernel is not in
  // the payload. Call once.
  absl::StatusOr<NvptxFinalizeResult> Finalize(const NvptxCompileOptions& compile,
                                               NvptxSpecChoice choice,
                                               GpuExecutablePayloadProto* payload);

 private:
  // One kernel's module, in its own context so that Finalize can compile
  // kernels on several threads (an LLVMContext is single-threaded).
  struct Pending {
    std::string symbol;
    std::string kind;
    std::unique_ptr<llvm::LLVMContext> context;
    std::unique_ptr<llvm::Module> module;  // in *context; destroyed first
  };

  // The EmittedKernel of `info`, whose module becomes last_.
  EmittedKernel Emitted(const NvptxKernelInfo& info, std::unique_ptr<llvm::LLVMContext> context,
                        std::unique_ptr<llvm::Module> module);

  NvptxEmitOptions emit_;
  Pending last_;
  std::vector<Pending> kernels_;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_COMPILER_NVPTX_KERNEL_BACKEND_H_
