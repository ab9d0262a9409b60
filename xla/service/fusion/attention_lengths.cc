#include "xla/service/fusion/attention_lengths.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "xla/hlo/ir/hlo_module.h"

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

namespace {

// Which rows of the call's output ([B, Sq]) see no key: a key count of 0,
// or a query past its sequence's count.
HloInstruction* HiddenRows(OpBuilder& b, const std::vector<int64_t>& rows,
                           const AttentionAxisLengths& q, const AttentionAxisLengths& kv) {
  HloInstruction* hidden = b.Compare(
      b.Broadcast(kv.counts, rows, {0}, "attention_kv_counts"),
      b.Broadcast(b.Scalar(PrimitiveType::S32, 0, "attention_zero"), rows, {}, "attention_zeros"),
      "EQ", "attention_no_keys");
  if (q.counts == nullptr) return hidden;
  HloInstruction* padded =
      b.Compare(b.Iota(rows, 1, "attention_query"),
                b.Broadcast(q.counts, rows, {0}, "attention_q_counts"), "GE",
                "attention_padded_query");
  return b.Binary(HloOpcode::kOr, hidden, padded, "attention_hidden_row");
}

// What the unfused softmax gives a row that sees no key, for every row of
// an output of dims `od` ([B, Sq, H, Dv]): NaN with a -inf fill, else the
// mean of V ([B, Skv, Hkv, Dv]) over the keys, in f32 and rounded once to
// `type`, spread over each kv head's query heads.
HloInstruction* HiddenValue(OpBuilder& b, ScalarReducers& reducers, PrimitiveType type, double fill,
                            const std::vector<int64_t>& od, HloInstruction* v) {
  if (std::isinf(fill)) {
    return b.Broadcast(b.Scalar(type, std::numeric_limits<double>::quiet_NaN(), "attention_nan"),
                       od, {}, "attention_hidden_value");
  }
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
  return b.Reshape(spread, od, "attention_hidden_value");
}

// o with the rows `hidden` marks replaced by HiddenValue.
HloInstruction* SelectHiddenRows(OpBuilder& b, ScalarReducers& reducers, PrimitiveType type,
                                 double fill, HloInstruction* o, HloInstruction* v,
                                 HloInstruction* hidden) {
  const std::vector<int64_t>& od = o->shape().dimensions();
  return b.Select(b.Broadcast(hidden, od, {0, 1}, "attention_hidden"),
                  HiddenValue(b, reducers, type, fill, od, v), o, "attention_result_rows");
}

// A new computation of `module` named after `name`, whose one parameter
// has `shape`, with the root `body` builds from that parameter.
template <typename Body>
HloComputation* AddBranch(HloModule* module, const std::string& name, const Shape& shape,
                          Body body) {
  auto comp = std::make_unique<HloComputation>(module->UniqueComputationName(name));
  OpBuilder b(comp.get());
  comp->set_root_instruction(body(b, b.Parameter(0, shape, "rows")));
  return module->AddComputation(std::move(comp));
}

}  // namespace

HloInstruction* FixHiddenRows(OpBuilder& b, ScalarReducers& reducers, PrimitiveType type, double fill,
                              HloInstruction* o, HloInstruction* v, const AttentionAxisLengths& q,
                              const AttentionAxisLengths& kv, bool lazy) {
  const std::vector<int64_t>& od = o->shape().dimensions();
  HloInstruction* hidden = HiddenRows(b, {od[0], od[1]}, q, kv);
  // A NaN fill costs one pass over o either way.
  if (!lazy || std::isinf(fill)) return SelectHiddenRows(b, reducers, type, fill, o, v, hidden);
  // Only a call that has a hidden row reads V again.
  HloInstruction* any = b.Op(HloOpcode::kReduce, Shape::Scalar(PrimitiveType::PRED),
                             {hidden, b.Scalar(PrimitiveType::PRED, 0, "attention_none_hidden")},
                             "attention_any_hidden");
  any->SetAttr(AttrId::kDimensions, std::vector<int64_t>{0, 1});
  any->SetAttr(AttrId::kToApply, reducers.Get(HloOpcode::kOr, PrimitiveType::PRED));
  HloInstruction* operands = b.Tuple({o, v, hidden}, "attention_hidden_rows_operands");
  HloModule* module = b.computation()->parent();
  HloComputation* fix = AddBranch(
      module, "attention_fix_hidden_rows", operands->shape(), [&](OpBuilder& t, HloInstruction* p) {
        return SelectHiddenRows(t, reducers, type, fill, t.GetTupleElement(p, 0, "o"),
                                t.GetTupleElement(p, 1, "v"), t.GetTupleElement(p, 2, "hidden"));
      });
  HloComputation* keep = AddBranch(module, "attention_no_hidden_rows", o->shape(),
                                   [](OpBuilder&, HloInstruction* p) { return p; });
  HloInstruction* cond = b.Op(HloOpcode::kConditional, o->shape(), {any, operands, o},
                              "attention_result_rows");
  cond->SetAttr(AttrId::kTrueComputation, fix);
  cond->SetAttr(AttrId::kFalseComputation, keep);
  return cond;
}

}  // namespace xla
