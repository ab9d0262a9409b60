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
  // Bytes of kernel parameters one .entry may declare with this PTX ISA
  // version: 4352 (0x1100) before PTX ISA 8.1, on every sm; PTX ISA 8.1
  // (CUDA 12.1) raised it to 32764 on sm_70 and later. Source: the PTX ISA
  // manual's release notes for 8.1 ("kernel parameters up to 32764 bytes")
  // and ptxas's own refusal of 7.8 PTX ("uses too much parameter space
  // (0x1888 bytes, 0x1100 max)", MobileNet v2 for sm_90, 2026-12-01).
  // Kernels past it take an argument table (docs/kernel_abi.md).
  int64_t max_kernel_param_bytes;
};

// Every supported target, by ascending compute capability.
const std::vector<NvptxTarget>& NvptxTargets();

// The target named `name` ("sm_80", ...). Errors: unknown names, listing the
// supported ones.
absl::StatusOr<NvptxTarget> FindNvptxTarget(absl::string_view name);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_NVPTX_NVPTX_TARGET_H_
