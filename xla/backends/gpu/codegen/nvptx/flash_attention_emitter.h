// NVPTX kernels for Transformer Engine's fused-attention calls
// (te_fused_attn_forward_ffi, te_fused_attn_backward_ffi;
// ../../ffi/te_fused_attention.h): the FlashAttention-2 style kernels that
// flash_attention_plan.h describes, emitted as LLVM IR with tensor-core
// mma.sync (llvm.nvvm.mma.m16n8k16.row.col.{bf16,f32.f32}) and compiled by
// the same NVPTX pipeline as fusion kernels (nvptx_compiler.h).
//
// Kernel ABI: one `ptr addrspace(1)` parameter per FlashKernelArgs entry
// (custom-call operands and result leaves, docs/kernel_abi.md), 128
// threads per CTA, the plan's grid, `plan.smem_bytes` of dynamic shared
// memory (at most 48 KiB, no opt-in attribute needed). No libdevice: exp
// and log are ex2.approx.ftz and lg2.approx.
//
// Numerics: Q, K, V in bf16/f16, products and sums in f32, P rounded to
// the input type before P*V (as FlashAttention-2 does); results differ from
// the f64 evaluator by about the input type's rounding.
//
// Thread-safety: emission mutates `module` (one thread per module).
#ifndef XLA_BACKENDS_GPU_CODEGEN_NVPTX_FLASH_ATTENTION_EMITTER_H_
#define XLA_BACKENDS_GPU_CODEGEN_NVPTX_FLASH_ATTENTION_EMITTER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "llvm/IR/Module.h"
#include "xla/backends/gpu/codegen/nvptx/flash_attention_plan.h"
#include "xla/backends/gpu/codegen/nvptx/nvptx_fusion_emitter.h"

namespace xla::gpu {

// The buffers `kernel` takes, in parameter order, as custom-call operand
// numbers and result leaf numbers (FusionKernelArg::is_output):
//   forward: operands q, k, v, q_cu_seqlens, kv_cu_seqlens; results
//            output, softmax_aux.
//   dq:      operands q, k, v, softmax_aux, output, doutput, q_cu_seqlens,
//            kv_cu_seqlens; results dq, dk, dv.
//   dkdv:    the same as dq.
// Operands a layout leaves empty (v for BSHD_BS2HD) are passed anyway and
// never read; the cu_seqlens are read only for padding masks.
std::vector<NvptxKernelArg> FlashKernelArgs(FlashKernel kernel);

// Adds kernel `symbol` for `plan` to `module` and returns its launch
// (block 128 threads, the plan's grid and shared memory; grid_x 0 when
// there is nothing to compute). Errors: InvalidArgument when `symbol` is
// already in the module. On error the module may hold a partial function;
// discard it.
absl::StatusOr<NvptxKernelInfo> EmitFlashAttentionKernel(const FlashAttentionPlan& plan,
                                                         const std::string& symbol,
                                                         llvm::Module* module);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_NVPTX_FLASH_ATTENTION_EMITTER_H_
