// Kernel reuse: one kernel for every fusion that would emit the same code.
//
// Large programs repeat themselves: the same layer norm, the same
// broadcast-multiply, the same convert, at the same shapes, dozens of times.
// Each of those fusions used to become its own kernel, and LLVM compiled it
// again (about 45 ms of CPU time per kernel on the host target). Thunk
// emission now asks a KernelReuseKey for each fusion and, when an earlier
// fusion had the same key, points the new kernel thunk at the earlier
// kernel-table entry instead of emitting a second copy.
//
// The key is exact, not a hash: two fusions get the same key only when
// everything the kernel emitters read is the same:
//   * the fused computation's structure: opcodes, result shapes with
//     layouts, operand positions, parameter numbers, constant bytes, and
//     every attribute except the ones that only describe where the
//     instruction came from (metadata, origin, original_value, statistics);
//     called computations (a reduce's to_apply, a sort's comparator) are
//     keyed the same way, recursively;
//   * the fusion instruction's own attributes (kind, backend_config) and
//     result shape;
//   * the shapes, with layouts, of the fusion's operands;
//   * what buffer assignment says about the kernel's arguments (noalias and
//     in-place outputs; KernelArgAliasing), which changes the emitted code.
// Instruction names never enter the key. A constant whose literal is elided
// (`{...}`) never matches another instruction.
//
// Thread-safety: the functions are pure; KernelReuseCache is
// thread-compatible (one thread at a time).
#ifndef XLA_BACKENDS_GPU_COMPILER_KERNEL_REUSE_H_
#define XLA_BACKENDS_GPU_COMPILER_KERNEL_REUSE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "xla/backends/gpu/compiler/kernel_backend.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/ir/hlo_instruction.h"

namespace xla::gpu {

// The exact reuse key of `fusion` (a kFusion instruction, or a scratch
// fusion wrapping a lone op) emitted with `aliasing`. Never fails.
std::string KernelReuseKey(const HloInstruction& fusion, const KernelArgAliasing& aliasing);

// The structural key of one computation, as KernelReuseKey uses it for
// fused and called computations: equal for computations that differ only
// in instruction and computation names (and in the provenance attributes
// listed above).
std::string ComputationStructureKey(const HloComputation& computation);

// What thunk emission remembers of an emitted kernel: where it went in the
// kernel table (-1 when it had nothing to launch, grid_x == 0) and what the
// backend reported.
struct ReusableKernel {
  int64_t kernel_index = -1;
  EmittedKernel kernel;
};

// Emitted kernels by reuse key, with counts for the compile report.
class KernelReuseCache {
 public:
  // The kernel emitted earlier under `key`, or nullopt. Counts a hit.
  std::optional<ReusableKernel> Find(const std::string& key);
  // Records the kernel emitted under `key` (the first one wins).
  void Add(std::string key, ReusableKernel kernel);

  // Fusions that reused an earlier kernel, and kernels emitted.
  int64_t hits() const { return hits_; }
  int64_t emitted() const { return static_cast<int64_t>(kernels_.size()); }

 private:
  absl::flat_hash_map<std::string, ReusableKernel> kernels_;
  int64_t hits_ = 0;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_COMPILER_KERNEL_REUSE_H_
