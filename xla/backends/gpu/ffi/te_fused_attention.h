// What Transformer Engine's fused-attention custom calls
// `te_fused_attn_forward_ffi` and `te_fused_attn_backward_ffi` mean, as far
// as this project implements them: their typed-FFI attributes parsed and
// checked, the operand and result lists checked against them, and where
// each of Q, K, V lives inside its (possibly packed) operand.
//
// Shared by the evaluator (the f64 oracle), the compiler (which refuses
// unsupported attribute values at compile time) and the built-in host
// handlers (te_fused_attention_host.cc). No HLO, no LLVM: runtime code.
//
// The calls, as Transformer Engine's JAX bindings emit them:
//
//   forward operands : q, k, v, bias, seed, q_cu_seqlens, kv_cu_seqlens,
//                      q_seq_offsets, k_seq_offsets, then any number of
//                      unused (context-parallel) operands
//   forward results  : output, softmax_aux (f32[B,H,Sq,1]), rng_state,
//                      workspace
//   backward operands: q, k, v, bias, softmax_aux, rng_state, output,
//                      doutput, q_cu_seqlens, kv_cu_seqlens, q_seq_offsets,
//                      k_seq_offsets, then any number of unused operands
//   backward results : dq, dk, dv, dbias, workspace
//
// Packed layouts put several tensors in one operand (BSHD_BS2HD: K and V
// in operand 1, operand 2 empty; BS3HD: Q, K and V in operand 0); the
// backward's dq/dk/dv results have the shapes of operands q/k/v, so a
// packed layout gets packed gradients (dKV in result 1).
//
// softmax_aux holds, per batch, head and query row, the natural-log
// log-sum-exp of the row's scaled, masked scores:
//   stats[b,h,i] = log(sum_j exp(scale * q_i . k_j))  over visible keys j
// (cuDNN's "Stats"; TE's PyTorch code hands it to FlashAttention-2's
// backward as softmax_lse); P = exp(scale * Q K^T - stats). A row that sees no key
// (a padded query row, or a sequence of no keys) gets output 0, stats 0 and
// zero gradients.
//
// Masks (NVTE_Mask_Type): 0 no_mask, 1 padding, 2 causal (top-left
// aligned: key j is visible to query i when j <= i), 3 padding_causal.
// Padding masks take each sequence's length from the cu_seqlens operands
// (s32[B+1], lengths cu[b+1] - cu[b]); queries and keys at or beyond the
// length are padding. Other masks ignore cu_seqlens; the seq_offsets
// operands only matter for THD layouts, which are not supported.
//
// Supported: qkv_layout 0..9 (the SBHD and BSHD families; NVTE_QKV_Layout
// values), mask_type 0..3, bias_type 0, dropout_probability 0, no sliding
// window (window_size_left -1 and window_size_right -1, or 0 with a causal
// mask), GQA (attn_heads a multiple of num_gqa_groups; query head h reads
// key/value head h / (attn_heads / num_gqa_groups)), element types bf16,
// f16 and f32. Everything else is refused with InvalidArgument naming the
// attribute and its value.
//
// Thread-safety: every function here is pure.
#ifndef XLA_BACKENDS_GPU_FFI_TE_FUSED_ATTENTION_H_
#define XLA_BACKENDS_GPU_FFI_TE_FUSED_ATTENTION_H_

#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "xla/backends/gpu/ffi/ffi_registry.h"
#include "xla/types/shape.h"

namespace xla::gpu::ffi {

inline constexpr char kTeFusedAttnForwardTarget[] = "te_fused_attn_forward_ffi";
inline constexpr char kTeFusedAttnBackwardTarget[] = "te_fused_attn_backward_ffi";

// Operand and result positions (see the file comment).
inline constexpr int kTeFwdNumOperands = 9;  // at least; more are ignored
inline constexpr int kTeFwdNumResults = 4;
inline constexpr int kTeBwdNumOperands = 12;  // at least; more are ignored
inline constexpr int kTeBwdNumResults = 5;
inline constexpr int kFwdQ = 0, kFwdK = 1, kFwdV = 2, kFwdBias = 3, kFwdSeed = 4,
                     kFwdQCuSeqlens = 5, kFwdKvCuSeqlens = 6;
inline constexpr int kFwdOutput = 0, kFwdSoftmaxAux = 1, kFwdRngState = 2, kFwdWorkspace = 3;
inline constexpr int kBwdQ = 0, kBwdK = 1, kBwdV = 2, kBwdBias = 3, kBwdSoftmaxAux = 4,
                     kBwdRngState = 5, kBwdOutput = 6, kBwdDOutput = 7, kBwdQCuSeqlens = 8,
                     kBwdKvCuSeqlens = 9;
inline constexpr int kBwdDq = 0, kBwdDk = 1, kBwdDv = 2, kBwdDbias = 3, kBwdWorkspace = 4;

// True for the two target names above.
bool IsTeFusedAttentionTarget(absl::string_view target);

// Where one logical [batch, seq, head, dim] tensor lives inside a flat,
// row-major operand: element (b, s, h, d) is at
// offset + b*batch_stride + s*seq_stride + h*head_stride + d.
struct TeTensorView {
  int operand = 0;  // which of q/k/v operands (0, 1 or 2) holds it
  int64_t offset = 0;
  int64_t batch_stride = 0;
  int64_t seq_stride = 0;
  int64_t head_stride = 0;
  int64_t At(int64_t b, int64_t s, int64_t h) const {
    return offset + b * batch_stride + s * seq_stride + h * head_stride;
  }
};

// The parsed, supported attributes of one call, and the views they imply.
// The dimensions of one operand or result: inline (rank 5 at most), so
// that parsing a call's attributes allocates nothing for them.
using TeDims = absl::InlinedVector<int64_t, 5>;

struct TeAttentionConfig {
  int64_t batch = 0;
  int64_t q_seqlen = 0;   // q_max_seqlen
  int64_t kv_seqlen = 0;  // kv_max_seqlen
  int64_t heads = 0;      // attn_heads
  int64_t kv_heads = 0;   // num_gqa_groups
  int64_t qk_head_dim = 0;
  int64_t v_head_dim = 0;
  int64_t qkv_layout = 0;
  int64_t mask_type = 0;
  double scale = 1.0;
  bool is_training = true;
  bool padding = false;  // mask_type 1 or 3
  bool causal = false;   // mask_type 2 or 3
  TeTensorView q, k, v;
  // The output (forward result 0, backward operands output/doutput) in
  // the layout of Q, with v_head_dim.
  TeTensorView o;
  // The dimensions operands q, k and v must have (empty: [0]).
  TeDims operand_dims[3];
  TeDims output_dims;

  // The KV head query head `h` reads.
  int64_t KvHead(int64_t h) const { return h / (heads / kv_heads); }
  // Whether key `j` is visible to query `i` of a sequence with `q_len`
  // queries and `kv_len` keys (lengths matter only for padding masks).
  bool Visible(int64_t i, int64_t j, int64_t q_len, int64_t kv_len) const {
    if (padding && (i >= q_len || j >= kv_len)) return false;
    return !causal || j <= i;
  }
};

// Parses and checks the attributes of a te_fused_attn_* call. Required:
// input_batch, q_max_seqlen, kv_max_seqlen, attn_heads, num_gqa_groups,
// qk_head_dim and v_head_dim (or head_dim for both), qkv_layout, mask_type
// (i64); scaling_factor (f64). Optional: bias_type (0), dropout_probability
// (0), is_training (true), window_size_left/right (-1); others are ignored.
// InvalidArgument "<target>: attribute '<name>' = <value> is not supported
// (...)" for an unsupported value, "... missing attribute" or "... must be
// <kind>" otherwise.
absl::StatusOr<TeAttentionConfig> ParseTeAttentionConfig(absl::string_view target,
                                                         const Attributes& attributes);

// Checks the operand and result shapes of a call (forward when `backward`
// is false) against `config`: counts, element types, dimensions, and the
// default (descending) layout where a shape has one. Only q/k/v, bias,
// cu_seqlens (padding masks), softmax_aux, output/doutput and the gradient
// results are checked; seed, rng_state, offsets and workspace are not read.
// InvalidArgument naming the operand or result otherwise.
absl::Status CheckTeAttentionShapes(absl::string_view target, const TeAttentionConfig& config,
                                    bool backward, absl::Span<const Shape* const> operands,
                                    absl::Span<const Shape* const> results);

// The per-sequence lengths a cu_seqlens operand (`batch` + 1 values) gives:
// cu[b+1] - cu[b]. InvalidArgument naming `what` when a length is negative
// or exceeds `max_len`, or the count is wrong.
absl::StatusOr<std::vector<int64_t>> TeSequenceLengths(absl::Span<const int32_t> cu_seqlens,
                                                       int64_t batch, int64_t max_len,
                                                       absl::string_view what);

// The same lengths written to `lengths` (at least `batch` values; nothing
// allocated when the lengths are valid), with the same errors. Pure.
absl::Status TeSequenceLengthsInto(absl::Span<const int32_t> cu_seqlens, int64_t batch,
                                   int64_t max_len, absl::string_view what,
                                   absl::Span<int64_t> lengths);

}  // namespace xla::gpu::ffi

#endif  // XLA_BACKENDS_GPU_FFI_TE_FUSED_ATTENTION_H_
