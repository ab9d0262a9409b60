// The NVPTX targets the compiler supports, as one table: the name users
// write (`sm_90`), the compute capability, the PTX ISA version emitted (the
// highest LLVM 16 supports for the target), and the hardware limits the
// launch-dimension choice needs.
//
// Thread-safety: immutable data; every function is thread-safe.
#ifndef XLA_BACKENDS_GPU_CODEGEN_NVPTX_NVPTX_TARGET_H_
#define XLA_BACKENDS_GPU_CODEGEN_NVPTX_NVPTX_TARGET_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xla::gpu {

struct NvptxTarget {
  const char* name;             // "sm_90": the --target value and ptxas -arch
  int compute_capability;       // 90
  const char* ptx_feature;      // LLVM subtarget feature: "+ptx78"
  const char* ptx_version;      // as printed in `.version`: "7.8"
  int64_t max_threads_per_block;
  int64_t max_shared_memory_per_block;  // bytes, without opt-in
  int64_t warp_size;
  int64_t sm_count_hint;        // typical SM count (launch heuristics only)
};

// Every supported target, by ascending compute capability.
const std::vector<NvptxTarget>& NvptxTargets();

// The target named `name` ("sm_80", ...). Errors: unknown names, listing the
// supported ones.
absl::StatusOr<NvptxTarget> FindNvptxTarget(absl::string_view name);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_NVPTX_NVPTX_TARGET_H_
