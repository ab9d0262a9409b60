// Per-kernel resource usage as reported by `ptxas -v`: registers, local
// memory (stack frame, spill stores and loads) and static shared memory.
// Used by tests and tools to check that kernels do not spill.
//
// Thread-safety: thread-safe (each call runs its own ptxas in its own
// scratch directory).
#ifndef XLA_BACKENDS_GPU_CODEGEN_NVPTX_PTXAS_RESOURCE_USAGE_H_
#define XLA_BACKENDS_GPU_CODEGEN_NVPTX_PTXAS_RESOURCE_USAGE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/backends/gpu/codegen/nvptx/nvptx_target.h"

namespace xla::gpu {

struct KernelResourceUsage {
  std::string function;
  int64_t registers = 0;
  int64_t stack_frame_bytes = 0;
  int64_t spill_store_bytes = 0;
  int64_t spill_load_bytes = 0;
  int64_t shared_bytes = 0;  // static shared memory (smem)
};

// Parses `ptxas -v` output: one entry per function, in output order.
// Errors: InvalidArgument when a function's "Used N registers" line is
// missing (the output format changed), quoting the output.
absl::StatusOr<std::vector<KernelResourceUsage>> ParsePtxasVerbose(absl::string_view output);

// Runs `ptxas -v -arch=<target>` at `ptxas` on `ptx` and parses its report.
// Errors: ptxas cannot run or rejects the PTX (its log in the message).
absl::StatusOr<std::vector<KernelResourceUsage>> PtxasResourceUsage(absl::string_view ptx,
                                                                    const NvptxTarget& target,
                                                                    const std::string& ptxas);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_NVPTX_PTXAS_RESOURCE_USAGE_H_
