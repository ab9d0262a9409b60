// What the mask of an attention's scores hides, for the attention-rewriter
// (attention_rewriter.h): a mask over scores [batch..., Sq, Skv] is
// accepted only when it is, element for element, the conjunction of
//
//   * the top-left causal mask (key j visible to query i iff j <= i), or
//     none, from parameter-free operations (iota, compare, constants);
//   * key padding: key j visible iff j < kv_len[batch...];
//   * query padding: query i sees keys iff i < q_len[batch...];
//
// where kv_len and q_len are integer tensors of the program (parameters,
// or anything computed from them) that vary only along the batch dims,
// compared against the key or query index: `iota < len` (or `len > iota`,
// `iota <= len`), broadcast over heads and queries the ways JAX's
// `mask[:, None, None, :]` spells it, combined by `and`, or as the hidden
// part: `or` of `iota >= len` and friends under `not` / an inverted select.
// Such a mask is a prefix of every row by construction. A boolean mask
// read from a parameter is not provably a prefix and is refused, as is
// anything else (a length compared with a value that is not the index,
// lengths that depend on the query or key position, two lengths on one
// axis, unsigned or 8/16-bit lengths).
//
// Thread-safety: pure functions of the (unmodified) HLO graph.
#ifndef XLA_SERVICE_FUSION_ATTENTION_MASK_H_
#define XLA_SERVICE_FUSION_ATTENTION_MASK_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "xla/hlo/ir/hlo_instruction.h"

namespace xla {

// A visible prefix along the query or key axis: index x is visible iff
// x < value (x <= value when `inclusive`), per batch element.
struct AttentionLength {
  HloInstruction* value = nullptr;  // s32 or s64, any shape (see dims)
  // For each dimension of `value`: the score batch dimension it runs
  // along, or -1 for a dimension of size 1 that runs along none.
  std::vector<int64_t> dims;
  bool inclusive = false;
};

struct AttentionMask {
  bool causal = false;
  std::optional<AttentionLength> q_len, kv_len;
  bool padding() const { return q_len.has_value() || kv_len.has_value(); }
};

// Analyzes a pred `mask` of the scores' shape [batch..., Sq, Skv] (rank
// >= 2), or, without `query_axis`, [batch..., Skv] (rank >= 1: one query
// per batch element, a KV-cache decode step's "bhd,bthd->bht"; a key
// length's `dims` then refer to those batch dims). `visible_when_true`:
// true elements are the visible keys (select(mask, s, fill)); false: true
// elements are hidden (select(mask, fill, s)). nullopt when the mask is
// not of the form in the file comment. Evaluates parameter-free parts at
// compile time (up to 2^24 elements and 64 instructions each).
std::optional<AttentionMask> AnalyzeAttentionMask(const HloInstruction* mask,
                                                  bool visible_when_true, bool query_axis = true);

// Analyzes an additive f32 mask `a` (scores + a) of the scores' shape:
// parameter-free, 0 where visible and a value <= `largest_fill` where
// hidden, causal or none. nullopt otherwise (including every mask that
// reads a parameter: a fully hidden row of s + a is not computable by the
// kernel).
std::optional<AttentionMask> AnalyzeAdditiveMask(const HloInstruction* a, double largest_fill);

}  // namespace xla

#endif  // XLA_SERVICE_FUSION_ATTENTION_MASK_H_
