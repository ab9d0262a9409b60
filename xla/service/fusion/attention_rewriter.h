// AttentionRewriter: attention spelled in plain HLO, as JAX emits it,
// becomes one call of the built-in fused-attention kernel (Transformer
// Engine's `te_fused_attn_forward_ffi`, te_fused_attention_host.h), so the
// host runs the tiled online-softmax kernel instead of two GEMMs, the score
// matrix and three softmax kernels.
//
// Accepted, Q, K, V, both dots and the output of one type, n >= 1 batch
// dimensions (batch, heads, ...). f32 (scores and softmax f32 too), or
// bf16/f16 in two spellings (docs/attention_fusion.md, "16-bit
// attention"; not exact: within the error bound stated there):
//   mixed precision  one convert of the 16-bit scores to f32 anywhere
//                    between the score dot and the softmax (or a score dot
//                    of 16-bit operands with f32 scores: JAX's
//                    preferred_element_type=f32), the softmax in f32, a
//                    convert of p back before the P.V dot (JAX's
//                    softmax(s.astype(f32)).astype(bf16));
//   16-bit softmax   every step 16-bit but the row sum, taken in f32
//                    between converts (jax.nn.softmax of bf16 scores).
// The chain, in the dots' and softmax's types:
//
//   s  = dot(q, k)                          n batch dims and one contracting
//                                            dim on each side, in any
//                                            positions (JAX's "bhqd,bhkd"
//                                            and "bqhd,bkhd" einsums): the
//                                            scores are [batch..., Sq, Skv]
//   s  = s * c  |  c * s  |  s / c          optional, c a scalar constant
//   s  = select(mask, s, fill)              optional mask (or the inverted
//      | select(!mask, fill, s)              select), or s + A where A is 0
//      | s + A                               where visible and the fill
//                                            where masked; mask and A must
//                                            be parameter-free (iota,
//                                            compare, constants) and equal
//                                            everywhere to the top-left
//                                            causal mask (key j visible to
//                                            query i iff j <= i) or to no
//                                            mask at all; a select's mask
//                                            may also hold key (and query)
//                                            padding from lengths
//                                            (attention_mask.h)
//   m  = reduce-max(s, -inf) over Skv        optionally maximum(m, -inf)
//   e  = exp(s - broadcast(m))
//   p  = e / broadcast(reduce-add(e, 0))     or e * broadcast(1 / sum)
//   o  = dot(p, v) or dot(v, p)              contracting p's last dim with
//                                            v's key dim, v's batch dims
//                                            in any positions
//
// K and V that repeat each head R times (jnp.repeat over the head dim:
// reshape(broadcast(x)) with the copy dim right after the heads) are read
// un-repeated, as grouped-query attention (num_gqa_groups = H / R). Any
// other K or V is simply an operand: the call reads whatever values it has.
// Grouped 5-D dots (jax.nn.dot_product_attention, grouped einsums: Q as
// [B, T, K, G, D], one transpose or size-1 reshape before the mask;
// attention_grouped_dots.h) are read as K*G query heads over K kv heads,
// unmasked, causal, padded by lengths that run along B, or causal and
// padded. KV-cache decode steps that write their one query without its
// axis (q [batch..., D], "bhd,bthd->bht", p [batch..., Skv]; a mask over
// [batch..., Skv] such as arange(Skv) <= pos) are read as Sq = 1.
//
// The fill must be -inf or a finite value <= -1e9 (jnp.where(m, s, -1e9),
// jnp.finfo(f32).min), or for scores in f16's range (f16, or f16 converted
// to f32) f16's lowest value -65504. exp(fill - rowmax) is exactly 0 in f32 unless the
// row's largest visible score is within ~104 of the fill (scores near
// -1e9): the kernel, which leaves masked keys out, then computes what the
// HLO computes. A causal row always sees key 0; rows that padding hides
// entirely (the kernel gives 0) get the unfused value back by a select:
// the mean of V over all keys (finite fill) or NaN (-inf).
//
// Refused (the unfused ops stay): other element types, a 16-bit row sum,
// the softmax over another axis, no max
// subtraction, a mask or scale applied after the softmax, masks from
// parameters other than padding from lengths (boolean mask parameters,
// query-only or per-head padding, additive padding), bottom-right or
// other masks, larger fills, intermediates
// with users outside the pattern, dots with more than one contracting or
// free dim per side (but the grouped ones above), grouped dots with padding.
//
// The rewrite: Q, K and V are transposed to [batch..., S, D]; with two
// batch dims ([B, H, S, D]) then to TE's BSHD layout (qkv_layout 9,
// BSHD_BSHD_BSHD); the simplifier folds these transposes into JAX's own
// head transposes where they meet; other batch ranks are
// reshaped to [prod(batch), S, 1, D]. The result is transposed/reshaped
// back. Scale goes to scaling_factor (1/c for a divide), the mask to
// mask_type (0, 1, 2 or 3), padding lengths to cu_seqlens computed in HLO.
//
// Not thread-safe (mutates the module).
#ifndef XLA_SERVICE_FUSION_ATTENTION_REWRITER_H_
#define XLA_SERVICE_FUSION_ATTENTION_REWRITER_H_

#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

// Which attention the rewriter fuses, by target.
struct AttentionRewriterOptions {
  // "host": f32, bf16 and f16 attention (the host kernel computes in f32
  // whatever the inputs). An NVPTX target ("sm_80", "sm_90"): bf16/f16
  // attention only, and only what the NVPTX kernel's plan accepts
  // (flash_attention_plan.h: head dims multiples of 8 up to 128); f32
  // stays unfused (tensor-core MMA takes 16-bit operands).
  std::string target = "host";
  // Also fuse bf16/f16 attention (the spellings above); off: f32 only.
  bool fuse_16bit = true;
  // Also fuse KV-cache decode steps written without the query axis
  // ("bhd,bthd->bht"). Exact, and on the host at least as fast as the
  // unfused ops since the host kernel's decode path (docs/perf.md,
  // decode26), so the fuse_attention_host stage-2 default keeps it true;
  // false leaves decode steps unfused (the A/B switch of the benchmarks).
  bool fuse_decode_steps = true;
};

class AttentionRewriter : public HloPass {
 public:
  explicit AttentionRewriter(AttentionRewriterOptions options = {}) : options_(std::move(options)) {}
  absl::string_view name() const override { return "attention-rewriter"; }
  // Returns whether any attention was rewritten. Fails only on an internal
  // error building the replacement (the message names the instruction).
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  AttentionRewriterOptions options_;
};

}  // namespace xla

#endif  // XLA_SERVICE_FUSION_ATTENTION_REWRITER_H_
