// NVPTX kernels for fusion instructions: one PTX kernel (an LLVM function
// with the PTX_Kernel calling convention and a maxntidx annotation) per
// fusion, built on the shared elemental emitter, with the transcendental
// functions mapped to libdevice (NvptxMathEmitter; call LinkLibdevice on
// the module before CompileToPtx).
//
// Kernel ABI (docs/kernel_abi.md): one `ptr addrspace(1)` parameter per
// buffer argument: the fusion's operands in order, then one per array leaf
// of the fusion's shape (tuple elements in order), exactly the
// KernelThunkProto argument order. Pointers carry `align`
// (options.alignment, at least 16) and `noalias` when options.noalias says
// so. When those pointers would exceed the target's kernel-parameter space
// (NvptxUsesArgumentTable), the kernel takes one `ptr addrspace(1)`
// parameter instead, the argument table, and loads buffer pointer i from
// its entry i (8 bytes each, invariant loads: ld.global.nc) in the entry
// block; NvptxKernelInfo::argument_table says so. The launch is
// NvptxKernelInfo::launch (1-D grid and blocks; shared memory is static, so
// no dynamic bytes).
//
// Kinds (classified by AnalyzeFusionKernel in ../fusion_kernel_analysis.h, as for the host; the launch of
// each comes from launch_dimensions_choice.h). The emitter is
// NvptxFusionKernelEmitter (nvptx_fusion_kernel_emitter.h) over the core both
// targets share (../fusion_emitter_core.h), one file per kind:
// nvptx_loop_kernel.cc, nvptx_reduction_kernel.cc (row and column kinds),
// nvptx_transpose_kernel.cc, nvptx_update_kernel.cc (dus, scatter,
// select-and-scatter), nvptx_sort_kernel.cc; nvptx_launch_problem.cc
// classifies.
//   loop               per output element (thread-indexed with a bounds
//                      check, grid-stride when the grid is capped); 4-wide
//                      <4 x float> global loads/stores when every operand
//                      and output is a same-shape row-major f32 array, the
//                      computation elementwise and the count a multiple of 4.
//   generic_reduction  loop whose outputs loop sequentially over reduced dims.
//   transpose          32x32 tiles through a 32x33 shared tile (padding
//                      against bank conflicts), reads along the input's
//                      minor dimension, writes along the output's.
//   row_reduction, row_normalization, whole_reduction
//                      a warp per row (several rows per block) for short
//                      rows, a block per row otherwise; per-thread strided
//                      partials, butterfly warp shuffles, shared memory
//                      across warps; every reduce of the row computed once,
//                      then row outputs (lane 0) and full outputs (strided).
//                      whole_reduction is one block (no multi-block pass yet).
//   column_reduction   [R,C] dims={0} / [A,R,C] dims={1}: 32 columns x 8
//                      row lanes, coalesced loads, partials through shared.
//   dus_in_place       iterates over the update only (output aliases the
//                      operand; options.output_aliases_operand).
//   scatter_atomic     in-place scatter whose combiner is add (f32, f64, s32,
//                      u32, s64, u64): one thread per update element,
//                      atomicrmw add in addrspace(1).
//   scatter_serial     any other scatter: one thread, sequential (copy of the
//                      operand first unless in place).
//   convolution, gather, reduce-window (fused anywhere, variadic
//                      reduce-window roots too): the loop kind, one thread
//                      per output element, with the shared element
//                      generators of ../window_gather_ir.h, so each element
//                      follows the host's (and the evaluator's) accumulation
//                      order: convolutions accumulate in f64 per element
//                      (slow on GPUs with little f64 throughput; no tiling
//                      yet).
//   sort               root sort (variadic: one output per operand), one
//                      block per sort line: a bitonic network in shared
//                      memory when the line fits the static shared memory
//                      (about 4K f32 keys + s32 values), else odd-even
//                      transposition in global memory (correct, O(len)
//                      phases). Always stable (ties ordered by original
//                      position), so GPU, host and evaluator agree whatever
//                      is_stable says. See EmitSortKernel in the .cc.
//   select_and_scatter root select-and-scatter: one thread, serial in source
//                      order with the shared window selection of
//                      ../window_gather_ir.h (the host's order exactly).
// Numerics: parallel reductions combine partials in a tree, so results may
// differ from the sequential evaluator by rounding. The init value is folded
// in once per output element, as on the host and in the evaluator (XLA's
// semantics would allow once per partial, which differs when the init is
// not the reducer's identity): the thread at position 0 folds from it, the
// others start from their first element, and the partial-less threads of
// short rows are left out of the shuffles. The unit tests check the PTX
// text and ptxas only; the kernels ran on a GPU once (an H200, 2026-11-30,
// tools/gpu_check.sh: 71 of 72 sm_90 corpus modules matched the evaluator,
// docs/perf/gpu.md), before the init fix above, which has not run on one
// yet. The elementwise parts are the shared elemental emitter, tested
// against the evaluator on the host.
//
// Thread-safety: emission mutates `module` (one thread per module).
#ifndef XLA_BACKENDS_GPU_CODEGEN_NVPTX_NVPTX_FUSION_EMITTER_H_
#define XLA_BACKENDS_GPU_CODEGEN_NVPTX_NVPTX_FUSION_EMITTER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "llvm/IR/Module.h"
#include "xla/backends/gpu/codegen/fusion_kernel_analysis.h"
#include "xla/backends/gpu/codegen/nvptx/launch_dimensions_choice.h"
#include "xla/backends/gpu/codegen/nvptx/nvptx_target.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/types/shape.h"

namespace xla::gpu {

struct NvptxEmitOptions {
  NvptxTarget target = NvptxTargets().front();
  // Per buffer argument (operands, then outputs): true when it overlaps no
  // other argument (`noalias`). Empty: none.
  std::vector<bool> noalias;
  // Per buffer argument: guaranteed alignment in bytes (power of two);
  // smaller than 16 or missing means 16 (the runtime's allocation minimum).
  std::vector<int64_t> alignment;
  // Per output leaf: the operand whose buffer the output shares, or -1.
  // Enables dus_in_place and in-place scatter. Empty: none.
  std::vector<int64_t> output_aliases_operand;
  // Allow the 4-wide f32 loop path.
  bool vectorize = true;
};

// Matches LaunchDimensionsProto.
struct NvptxLaunchDimensions {
  int64_t grid_x = 0, grid_y = 1, grid_z = 1;
  int64_t block_x = 1, block_y = 1, block_z = 1;
  int64_t shared_memory_bytes = 0;  // dynamic shared memory (always 0 here)
};

using NvptxKernelArg = FusionKernelArg;

struct NvptxKernelInfo {
  std::string symbol;
  std::string kind;  // NvptxKernelKindName
  NvptxLaunchDimensions launch;  // grid_x == 0: nothing to launch
  LaunchChoice choice;
  int64_t static_shared_bytes = 0;
  std::vector<NvptxKernelArg> args;
  // The kernel takes one pointer to a table of `args`' pointers (see the
  // ABI above) instead of one parameter per argument.
  bool argument_table = false;
};

// Bytes of kernel parameters a kernel with `num_buffer_args` pointer
// parameters declares (8 each). Thread-safe.
int64_t NvptxBufferParamBytes(int64_t num_buffer_args);

// Whether a kernel with `num_buffer_args` buffer arguments must take them
// through an argument table on `target`: their pointers would exceed
// target.max_kernel_param_bytes. Thread-safe.
bool NvptxUsesArgumentTable(int64_t num_buffer_args, const NvptxTarget& target);

// Adds kernel `symbol` for `fusion` to `module`. Errors: InvalidArgument for
// a non-fusion, tuple-shaped operands or a `symbol` already in the module;
// Unimplemented naming the fused instruction for ops no emitter handles
// (dot, a sort or select-and-scatter that is not the fused root, variadic
// scatter, ops the elemental emitter rejects, ...).
// On error the module may hold a partial function; discard the module.
absl::StatusOr<NvptxKernelInfo> EmitNvptxFusionKernel(const HloInstruction& fusion,
                                                      const std::string& symbol,
                                                      const NvptxEmitOptions& options,
                                                      llvm::Module* module);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_NVPTX_NVPTX_FUSION_EMITTER_H_
