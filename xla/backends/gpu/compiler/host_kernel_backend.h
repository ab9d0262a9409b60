// The host KernelBackend (kernel_backend.h): every fusion's kernel goes into
// one LLVM module through EmitHostFusionKernel
// (codegen/host/host_fusion_emitter.h); host_compiler.h compiles that module
// into the artifact's shared object. A kernel is described in the artifact
// by its exported symbol (KernelProto.host_symbol) and launched as grid_x =
// total_blocks single-"thread" blocks.
//
// Thread-safety: not thread-safe; one thread per backend (and per `kernels`
// module).
#ifndef XLA_BACKENDS_GPU_COMPILER_HOST_KERNEL_BACKEND_H_
#define XLA_BACKENDS_GPU_COMPILER_HOST_KERNEL_BACKEND_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "llvm/IR/Module.h"
#include "xla/backends/gpu/codegen/host/host_fusion_emitter.h"
#include "xla/backends/gpu/compiler/kernel_backend.h"

namespace xla::gpu {

class HostKernelBackend : public KernelBackend {
 public:
  // Emits with `options` (its noalias, alignment and output_aliases_operand
  // are replaced per kernel) into `kernels`. Both must outlive the backend.
  HostKernelBackend(const HostEmitOptions& options, llvm::Module* kernels)
      : options_(options), kernels_(kernels) {}

  // "host" for both.
  std::string TargetName() const override { return "host"; }
  std::string FfiPlatform() const override { return "host"; }

  // Adds the kernel `symbol` to the module. Errors: EmitHostFusionKernel's.
  absl::StatusOr<EmittedKernel> EmitFusionKernel(const HloInstruction& fusion,
                                                const std::string& symbol,
                                                const KernelArgAliasing& aliasing) override;

  // Sets proto->host_symbol. Never fails.
  absl::Status DescribeKernel(const EmittedKernel& kernel, KernelProto* proto) override;

 private:
  const HostEmitOptions& options_;
  llvm::Module* kernels_;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_COMPILER_HOST_KERNEL_BACKEND_H_
