// Built-in host handlers for Transformer Engine's fused attention, under
// TE's own target names on platform "host":
//
//   te_fused_attn_forward_ffi   FlashAttention-2 style forward: per query
//                               tile, a running row max and row sum over
//                               key tiles (online softmax), f32
//                               accumulation; the full score matrix is
//                               never materialized. K and V are packed
//                               once per call; work units (batch, head,
//                               16-query tile) run on the host executor's
//                               launch pool; the tile products are
//                               register-blocked (per-ISA builds chosen at
//                               run time) and the exp is a vectorized
//                               polynomial (results below 2^-125 flush to
//                               0). Query blocks of up to 8 rows
//                               (KV-cache decode steps) take the decode
//                               path instead: one pass over each key/value
//                               head for all its query rows, K and V read
//                               in place, no allocation, the calling
//                               thread for small calls, keys split into
//                               chunks on the pool when there are fewer
//                               units than threads
//                               (te_fused_attention_host_decode.h).
//                               Writes output, softmax_aux (the
//                               log-sum-exp stats) and zeroes rng_state;
//                               the workspace is left untouched. Also the
//                               kernel of attention spelled in plain HLO
//                               (attention_rewriter.h).
//   te_fused_attn_backward_ffi  one unit per (batch, key/value head) on the
//                               launch pool: recomputes P tile by tile
//                               from Q, K and the stored stats (P =
//                               exp(scale*QK^T - stats)), with D =
//                               rowsum(dO * O) from the output and
//                               doutput operands, and accumulates dQ, dK,
//                               dV with the forward's micro-kernels;
//                               writes dq, dk, dv (packed like the
//                               operands for packed layouts), leaves
//                               dbias (empty) and the workspace.
//
// Semantics, supported attributes and operand order: te_fused_attention.h.
// Both run as a host callback on the call's stream (device memory is host
// memory on this platform). Unsupported attributes, shapes or sequence
// lengths fail the call with InvalidArgument naming what is wrong; bad
// cu_seqlens values are only seen when the callback runs, and become the
// stream's error.
//
// Thread-safety: the handlers may run concurrently for different calls;
// each call only touches its own buffers.
#ifndef XLA_BACKENDS_GPU_FFI_TE_FUSED_ATTENTION_HOST_H_
#define XLA_BACKENDS_GPU_FFI_TE_FUSED_ATTENTION_HOST_H_

#include "absl/status/status.h"
#include "xla/backends/gpu/ffi/ffi_registry.h"

namespace xla::gpu::ffi {

// The forward handler (see above). Fails when the call's attributes are
// unsupported, its shapes are missing (artifacts before 2026-12-02) or do
// not match the attributes, or a buffer is smaller than its shape.
absl::Status TeFusedAttnForwardHost(const CallFrame& frame);

// The backward handler; fails like the forward one.
absl::Status TeFusedAttnBackwardHost(const CallFrame& frame);

// Registers both under platform "host". AlreadyExists when either name is
// taken there.
absl::Status RegisterTeFusedAttentionHostHandlers(FfiRegistry& registry);

}  // namespace xla::gpu::ffi

#endif  // XLA_BACKENDS_GPU_FFI_TE_FUSED_ATTENTION_HOST_H_
