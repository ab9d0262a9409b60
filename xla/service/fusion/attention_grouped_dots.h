// Grouped attention's dots, for the attention-rewriter (attention_rewriter.h):
// jax.nn.dot_product_attention (implementation='xla') and hand-written
// grouped-query einsums ("btkgd,bskd->bkgts") reshape Q to
// [B, T, K, G, D] and take two 5-D dots,
//
//   scores  = dot(q5, k)  or dot(k, q5)   two batch dims (B, K), Q's free
//                                          dims T and G, K's free dim S
//   layout  = transpose or reshape          optional: brings the scores to
//                                          the softmax's order
//   output  = dot(v, p)   or dot(p, v)    p's batch dims B and K,
//                                          contracting S, free G and T
//
// so every query head of group g of kv head k reads K and V of head k.
// This analysis names each dimension of q5, K, V, the softmax's scores
// and the output, and checks that they fit together exactly that way.
//
// Thread-safety: pure functions of the (unmodified) HLO graph.
#ifndef XLA_SERVICE_FUSION_ATTENTION_GROUPED_DOTS_H_
#define XLA_SERVICE_FUSION_ATTENTION_GROUPED_DOTS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "xla/hlo/ir/hlo_instruction.h"

namespace xla {

// Where grouped attention's tensors keep each dimension, as transpose
// dimensions: Transpose(q, q_perm) is [B, K, G, T, D], Transpose(k, k_perm)
// [B, K, S, D], Transpose(v, v_perm) [B, K, S, Dv], and Transpose(o,
// out_perm) of o = [B, K, G, T, Dv] has the output dot's shape. The
// scores keep B at dim `s_batch` (what a padding length may run along).
struct GroupedDots {
  HloInstruction *q = nullptr, *k = nullptr, *v = nullptr;
  std::vector<int64_t> q_perm, k_perm, v_perm, out_perm;
  int64_t s_batch = 0;
};

// Analyzes grouped attention: `score_dot` (rank 5), then `layout` (null,
// a transpose, or a reshape that only moves size-1 dims) giving the
// scores `s` (rank 5, [..., T, S]: the softmax reduces the last dim, the
// one before is the query position a causal mask sees), and `out_dot`
// reading `p` (of s's shape; the probabilities). nullopt when the dots do
// not have the dimension numbers above or the layout does not connect
// them. The caller checks the chain between them (scale, mask, softmax).
std::optional<GroupedDots> AnalyzeGroupedDots(const HloInstruction* score_dot,
                                              const HloInstruction* layout,
                                              const HloInstruction* out_dot,
                                              const HloInstruction* p);

}  // namespace xla

#endif  // XLA_SERVICE_FUSION_ATTENTION_GROUPED_DOTS_H_
