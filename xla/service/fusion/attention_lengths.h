// Padding lengths as Transformer Engine's fused-attention call takes them,
// built in HLO for the attention-rewriter (attention_rewriter.h): the
// number of visible positions of one axis per batch element, and its
// running sums `cu_seqlens` (s32[B + 1]: 0, then len[0], len[0] + len[1],
// ...); and the unfused value of the rows those lengths leave without a
// key.
//
// Thread-safety: mutates the computation the builder adds to; not
// thread-safe.
#ifndef XLA_SERVICE_FUSION_ATTENTION_LENGTHS_H_
#define XLA_SERVICE_FUSION_ATTENTION_LENGTHS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/hlo/transforms/op_builder.h"
#include "xla/service/fusion/attention_mask.h"

namespace xla {

// The lengths of one axis for the call: TE's cu_seqlens and, from a
// length, the visible count per TE batch (for the rewriter's fix of rows
// that see no key).
struct AttentionAxisLengths {
  HloInstruction* cu_seqlens = nullptr;  // s32[te_batch + 1]
  HloInstruction* counts = nullptr;      // s32[te_batch], or null without `len`
};

// Adds to `b`'s computation the lengths of an axis of `size` positions:
// from `len` (the mask analysis's prefix length, attention_mask.h) the
// visible count clamp(len, 0, size) (clamp(len + 1, 0, size) when
// inclusive) per TE batch; without `len`, `size` for every TE batch.
// `batch_dims` are the sizes of the scores' batch dims; `te_dim` the one
// of them that is the call's batch (`len` runs along no other: the caller
// checks), or -1 when the call's batch is all of them flattened (row-major,
// `len` along any of them). Never fails; reduce computations come from
// `reducers`.
AttentionAxisLengths BuildAttentionLengths(OpBuilder& b, ScalarReducers& reducers,
                                           const std::optional<AttentionLength>& len, int64_t size,
                                           const std::vector<int64_t>& batch_dims, int64_t te_dim);

// With padding, rows that see no key: the kernel gives them 0, the unfused
// softmax the mean of V over every key (a finite fill: all scores equal)
// or NaN (-inf: -inf - -inf). Returns the call's output `o` ([B, Sq, H,
// Dv]) with those rows replaced by what the unfused ops give; `v` is the
// call's V ([B, Skv, H / repeat, Dv]: query head h reads head h / repeat),
// `q` and `kv` the call's lengths, `type` the output's, `fill` the
// select's fill (-inf or finite). Never fails.
HloInstruction* FixHiddenRows(OpBuilder& b, ScalarReducers& reducers, PrimitiveType type, double fill,
                              HloInstruction* o, HloInstruction* v, const AttentionAxisLengths& q,
                              const AttentionAxisLengths& kv);

}  // namespace xla

#endif  // XLA_SERVICE_FUSION_ATTENTION_LENGTHS_H_
