// The target-specific half of thunk emission: how one fusion becomes a
// kernel. Thunk emission (thunk_emitter.h) is target-generic; it asks a
// KernelBackend to emit each fusion's kernel and to describe the kernel in
// the artifact's kernel table. Implementations: HostKernelBackend
// (host_kernel_backend.h; kernels into one LLVM module, compiled into a
// shared object by host_compiler.h) and NvptxKernelBackend
// (nvptx_kernel_backend.h; one LLVM module per kernel, PTX/cubin).
//
// Thread-safety: a backend is used by one thread at a time.
#ifndef XLA_BACKENDS_GPU_COMPILER_KERNEL_BACKEND_H_
#define XLA_BACKENDS_GPU_COMPILER_KERNEL_BACKEND_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "xla/backends/gpu/ffi/te_fused_attention.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/hlo/ir/hlo_instruction.h"

namespace xla::gpu {

// One buffer argument of an emitted kernel: an operand of the fusion or an
// array leaf of its result (depth-first leaf order).
struct KernelArgRef {
  bool is_output = false;
  int64_t index = 0;  // operand number or output leaf number
};

// What the backend reports for one emitted kernel.
struct EmittedKernel {
  std::string symbol;  // entry / exported symbol name
  std::vector<KernelArgRef> args;  // the kernel's parameters, in order
  // Launch dimensions; grid_x == 0 means there is nothing to launch (empty
  // output), and no thunk or kernel-table entry is made.
  LaunchDimensionsProto launch;
  // The kernel takes one pointer to a table of its argument pointers (the
  // NVPTX kernel-parameter limit, docs/kernel_abi.md): thunk emission
  // reserves the table in the temp allocation and sets
  // KernelThunkProto.argument_table. Never set by the host backend.
  bool argument_table = false;
  // The emitter's kind of kernel ("loop", "row_reduction", ...; see the
  // target's fusion emitter), for timings and dumps; empty when unknown.
  std::string kind;
};

// What buffer assignment says about one kernel's buffer arguments
// (operands, then output leaves).
struct KernelArgAliasing {
  // Per output leaf: the operand whose slice the leaf is exactly (an
  // in-place update), or -1.
  std::vector<int64_t> output_aliases_operand;
  // Per argument: true when no other argument's slice overlaps it, an
  // output leaf that exactly shares an operand's slice counting as that
  // operand (the kernel then reaches both through the operand's pointer).
  // Empty: nothing is known.
  std::vector<bool> noalias;
};

class KernelBackend {
 public:
  virtual ~KernelBackend() = default;

  // The target's name for messages ("host", "sm_90").
  virtual std::string TargetName() const = 0;

  // The FFI registry platform custom calls are looked up on ("host",
  // "cuda").
  virtual std::string FfiPlatform() const = 0;

  // Emits the kernel `symbol` for `fusion` (a kFusion instruction), with
  // what buffer assignment says about its arguments (`aliasing`). Errors:
  // the emitter's (Unimplemented naming the fused instruction it cannot
  // emit).
  virtual absl::StatusOr<EmittedKernel> EmitFusionKernel(const HloInstruction& fusion,
                                                        const std::string& symbol,
                                                        const KernelArgAliasing& aliasing) = 0;

  // How many kernels the backend's own implementation of a te_fused_attn_*
  // call has (`backward`: the backward call); 0 when it has none, and the
  // call stays a custom call for an FFI handler.
  virtual int FusedAttentionKernels(bool backward) const { return 0; }

  // Emits kernel `part` (< FusedAttentionKernels(backward)) of a
  // te_fused_attn_* call with `config` (checked against the call's shapes)
  // and Q/K/V element type `type`. The kernel's args index the call's
  // operands and result leaves. Errors: Unimplemented naming the attribute
  // (or operand type) and value the kernels do not support; `target` (the
  // call's target name) prefixes the message.
  virtual absl::StatusOr<EmittedKernel> EmitFusedAttentionKernel(
      const ffi::TeAttentionConfig& config, PrimitiveType type, bool backward, int part,
      const std::string& symbol, absl::string_view target) {
    return absl::UnimplementedError(
        absl::StrCat(target, ": no fused-attention kernel for ", TargetName()));
  }

  // Called for each emitted kernel that is launched (grid_x > 0), after
  // `proto` was added to the kernel table with its name set: the backend
  // fills the spec now or records the kernel to fill it when finalizing.
  virtual absl::Status DescribeKernel(const EmittedKernel& kernel, KernelProto* proto) = 0;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_COMPILER_KERNEL_BACKEND_H_
