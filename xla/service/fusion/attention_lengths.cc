#include "xla/service/fusion/attention_lengths.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

namespace xla {
namespace {

std::vector<int64_t> Iota(int64_t n) {
  std::vector<int64_t> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

// A padding length as the number of visible positions of an axis of
// `size` (clamp(len, 0, size), or clamp(len + 1, 0, size) inclusive), s32,
// over the score batch dims it runs along (ascending; returned too).
std::pair<HloInstruction*, std::vector<int64_t>> VisibleCount(OpBuilder& b,
                                                              const AttentionLength& len,
                                                              int64_t size) {
  std::vector<int64_t> score_dims, sizes;
  for (size_t k = 0; k < len.dims.size(); ++k) {
    if (len.dims[k] < 0) continue;
    score_dims.push_back(len.dims[k]);
    sizes.push_back(len.value->shape().dimensions()[k]);
  }
  HloInstruction* x = len.value;
  if (sizes != x->shape().dimensions()) x = b.Reshape(x, sizes, "attention_len");
  std::vector<int64_t> perm = Iota(score_dims.size());
  std::sort(perm.begin(), perm.end(),
            [&](int64_t a, int64_t c) { return score_dims[a] < score_dims[c]; });
  if (perm != Iota(perm.size())) {
    x = b.Transpose(x, perm, "attention_len_sorted");
    std::sort(score_dims.begin(), score_dims.end());
  }
  const PrimitiveType t = x->shape().element_type();
  const std::vector<int64_t> dims = x->shape().dimensions();
  auto splat = [&](double value, const char* name) {
    return b.Broadcast(b.Scalar(t, value, name), dims, {}, name);
  };
  // index < len + 1 for index <= len; clamping first keeps the add from
  // overflowing.
  const int64_t shift = len.inclusive ? 1 : 0;
  x = b.Op(HloOpcode::kClamp, x->shape(),
           {splat(-shift, "attention_len_lo"), x, splat(size - shift, "attention_len_hi")},
           "attention_len_clamped");
  if (shift != 0) x = b.Binary(HloOpcode::kAdd, x, splat(1, "attention_len_one"), "attention_len_inclusive");
  return {b.Convert(x, PrimitiveType::S32, "attention_count"), score_dims};
}

// TE's cu_seqlens (s32[B + 1]: 0, then the running sums) of s32[B]
// lengths: cu[c] = sum of len[b] for b < c.
HloInstruction* CuSeqlens(OpBuilder& b, ScalarReducers& reducers, HloInstruction* len) {
  const int64_t batch = len->shape().dimensions()[0];
  const std::vector<int64_t> rows = {batch + 1, batch};
  HloInstruction* before = b.Compare(b.Iota(rows, 1, "attention_cu_b"),
                                     b.Iota(rows, 0, "attention_cu_c"), "LT", "attention_cu_before");
  HloInstruction* terms = b.Select(
      before, b.Broadcast(len, rows, {1}, "attention_cu_len"),
      b.Broadcast(b.Scalar(PrimitiveType::S32, 0, "attention_cu_zero"), rows, {}, "attention_cu_zeros"),
      "attention_cu_terms");
  HloInstruction* cu = b.Op(HloOpcode::kReduce, Shape::Array(PrimitiveType::S32, {batch + 1}),
                            {terms, b.Scalar(PrimitiveType::S32, 0, "attention_cu_init")},
                            "attention_cu_seqlens");
  cu->SetAttr(AttrId::kDimensions, std::vector<int64_t>{1});
  cu->SetAttr(AttrId::kToApply, reducers.Get(HloOpcode::kAdd, PrimitiveType::S32));
  return cu;
}

}  // namespace

AttentionAxisLengths BuildAttentionLengths(OpBuilder& b, ScalarReducers& reducers,
                                           const std::optional<AttentionLength>& len, int64_t size,
                                           const std::vector<int64_t>& batch_dims, int64_t te_dim) {
  const int64_t te_batch =
      te_dim >= 0 ? batch_dims[te_dim]
                  : std::accumulate(batch_dims.begin(), batch_dims.end(), int64_t{1},
                                    [](int64_t x, int64_t y) { return x * y; });
  if (!len.has_value()) {
    HloInstruction* full = b.Broadcast(b.Scalar(PrimitiveType::S32, size, "attention_full_len"),
                                       {te_batch}, {}, "attention_full_lens");
    return {CuSeqlens(b, reducers, full), nullptr};
  }
  auto [count, score_dims] = VisibleCount(b, *len, size);
  // Along the call's batch dim only (score_dims is empty or {te_dim}), or
  // spread over every batch dim and flattened.
  HloInstruction* te =
      te_dim >= 0
          ? b.Broadcast(count, {te_batch}, std::vector<int64_t>(score_dims.size(), 0),
                        "attention_te_counts")
          : b.Reshape(b.Broadcast(count, batch_dims, score_dims, "attention_counts"), {te_batch},
                      "attention_te_counts");
  return {CuSeqlens(b, reducers, te), te};
}

// With padding, rows that see no key: the kernel gives them 0, the unfused
// softmax the mean of V over every key (a finite fill: all scores equal)
// or NaN (-inf: -inf - -inf). Returns the call's output `o` ([B, Sq, H,
// Dv]) with those rows replaced by what the unfused ops give; `v` is the
// call's V ([B, Skv, H / repeat, Dv]: query head h reads head h / repeat),
// `q` and `kv` the call's lengths, `type` the output's, `fill` the
// select's fill (-inf or finite). Never fails.
HloInstruction* FixHiddenRows(OpBuilder& b, ScalarReducers& reducers, PrimitiveType type, double fill,
                              HloInstruction* o, HloInstruction* v, const AttentionAxisLengths& q,
                              const AttentionAxisLengths& kv) {
  const std::vector<int64_t>& od = o->shape().dimensions();
  const std::vector<int64_t> rows = {od[0], od[1]};  // [B, Sq]
  HloInstruction* hidden = b.Compare(
      b.Broadcast(kv.counts, rows, {0}, "attention_kv_counts"),
      b.Broadcast(b.Scalar(PrimitiveType::S32, 0, "attention_zero"), rows, {}, "attention_zeros"),
      "EQ", "attention_no_keys");
  if (q.counts != nullptr) {
    HloInstruction* padded =
        b.Compare(b.Iota(rows, 1, "attention_query"),
                  b.Broadcast(q.counts, rows, {0}, "attention_q_counts"), "GE",
                  "attention_padded_query");
    hidden = b.Binary(HloOpcode::kOr, hidden, padded, "attention_hidden_row");
  }
  HloInstruction* fallback;
  if (std::isinf(fill)) {
    fallback = b.Broadcast(
        b.Scalar(type, std::numeric_limits<double>::quiet_NaN(), "attention_nan"), od, {},
        "attention_hidden_value");
  } else {
    // The mean over the keys in f32, rounded once to V's type: [B, Hkv,
    // Dv], spread over the queries and each head's `repeat` query heads.
    if (type != PrimitiveType::F32) v = b.Convert(v, PrimitiveType::F32, "attention_v_f32");
    const std::vector<int64_t>& vd = v->shape().dimensions();
    const std::vector<int64_t> sum_dims = {vd[0], vd[2], vd[3]};
    HloInstruction* sum =
        b.Op(HloOpcode::kReduce, Shape::Array(PrimitiveType::F32, sum_dims),
             {v, b.Scalar(PrimitiveType::F32, 0, "attention_v_zero")}, "attention_v_sum");
    sum->SetAttr(AttrId::kDimensions, std::vector<int64_t>{1});
    sum->SetAttr(AttrId::kToApply, reducers.Get(HloOpcode::kAdd, PrimitiveType::F32));
    HloInstruction* mean = b.Binary(
        HloOpcode::kDivide, sum,
        b.Broadcast(b.Scalar(PrimitiveType::F32, vd[1], "attention_skv"), sum_dims, {},
                    "attention_skvs"),
        "attention_v_mean");
    if (type != PrimitiveType::F32) mean = b.Convert(mean, type, "attention_v_mean_rounded");
    HloInstruction* spread = b.Broadcast(mean, {od[0], od[1], vd[2], od[2] / vd[2], od[3]},
                                         {0, 2, 4}, "attention_v_mean_heads");
    fallback = b.Reshape(spread, od, "attention_hidden_value");
  }
  return b.Select(b.Broadcast(hidden, od, {0, 1}, "attention_hidden"), fallback, o,
                  "attention_result_rows");
}

}  // namespace xla
