#include "xla/backends/gpu/compiler/host_kernel_backend.h"

#include "xla/util/status_macros.h"

namespace xla::gpu {

absl::StatusOr<EmittedKernel> HostKernelBackend::EmitFusionKernel(
    const HloInstruction& fusion, const std::string& symbol, const KernelArgAliasing& aliasing) {
  HostEmitOptions options = options_;
  options.noalias = aliasing.noalias;
  options.alignment.clear();
  options.output_aliases_operand = aliasing.output_aliases_operand;
  ASSIGN_OR_RETURN(HostKernelInfo info, EmitHostFusionKernel(fusion, symbol, options, kernels_));
  EmittedKernel kernel;
  kernel.symbol = info.symbol;
  kernel.kind = info.kind;
  for (const HostKernelArg& arg : info.args) kernel.args.push_back({arg.is_output, arg.index});
  kernel.launch.set_grid_x(info.total_blocks);
  kernel.launch.set_grid_y(1);
  kernel.launch.set_grid_z(1);
  kernel.launch.set_block_x(1);
  kernel.launch.set_block_y(1);
  kernel.launch.set_block_z(1);
  return kernel;
}

absl::Status HostKernelBackend::DescribeKernel(const EmittedKernel& kernel, KernelProto* proto) {
  proto->set_host_symbol(kernel.symbol);
  return absl::OkStatus();
}

}  // namespace xla::gpu
