#include "xla/service/fusion/attention_rewriter.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_format.h"
#include "xla/backends/gpu/codegen/nvptx/flash_attention_plan.h"
#include "xla/backends/gpu/ffi/te_fused_attention.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/transforms/hlo_util.h"
#include "xla/hlo/transforms/op_builder.h"
#include "xla/service/fusion/attention_grouped_dots.h"
#include "xla/service/fusion/attention_lengths.h"
#include "xla/service/fusion/attention_mask.h"
#include "xla/service/fusion/attention_score_chain.h"

namespace xla {
namespace {

// NVTE_QKV_Layout BSHD_BSHD_BSHD and NVTE_Mask_Type values.
constexpr int64_t kLayoutBshd = 9;
constexpr int64_t kMaskNone = 0, kMaskPadding = 1, kMaskCausal = 2, kMaskPaddingCausal = 3;

PrimitiveType TypeOf(const HloInstruction* i) { return i->shape().element_type(); }
bool Is16Bit(PrimitiveType t) { return t == PrimitiveType::BF16 || t == PrimitiveType::F16; }

std::vector<int64_t> Iota(int64_t n) {
  std::vector<int64_t> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

int64_t Rank(const HloInstruction* i) { return static_cast<int64_t>(i->shape().dimensions().size()); }

// A dot of two rank n+2 operands of its own element type, with n batch
// dims and one contracting dim each, as permutations that bring each
// operand to the canonical order [batch..., free, contracting]: the dot's
// result is [batch..., lhs free, rhs free].
struct DotRoles {
  std::vector<int64_t> lhs_perm, rhs_perm;
};

std::optional<std::vector<int64_t>> CanonicalPerm(const HloInstruction* operand,
                                                  const std::vector<int64_t>& batch,
                                                  const std::vector<int64_t>& contracting) {
  const int64_t rank = Rank(operand);
  if (contracting.size() != 1 || static_cast<int64_t>(batch.size()) != rank - 2) {
    return std::nullopt;
  }
  std::vector<int64_t> perm = batch;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(batch.begin(), batch.end(), d) == batch.end() && d != contracting[0]) {
      perm.push_back(d);
    }
  }
  perm.push_back(contracting[0]);
  if (static_cast<int64_t>(perm.size()) != rank) return std::nullopt;
  return perm;
}

// `operands` is the type both operands must have (the dot's own, or
// 16-bit operands of an f32 score dot: preferred_element_type=f32).
std::optional<DotRoles> Roles(const HloInstruction* dot, int64_t n, PrimitiveType operands) {
  if (dot->opcode() != HloOpcode::kDot || TypeOf(dot->operand(0)) != operands ||
      TypeOf(dot->operand(1)) != operands || Rank(dot->operand(0)) != n + 2 ||
      Rank(dot->operand(1)) != n + 2) {
    return std::nullopt;
  }
  std::optional<std::vector<int64_t>> lhs = CanonicalPerm(
      dot->operand(0), dot->GetIntList(AttrId::kLhsBatchDims), dot->GetIntList(AttrId::kLhsContractingDims));
  std::optional<std::vector<int64_t>> rhs = CanonicalPerm(
      dot->operand(1), dot->GetIntList(AttrId::kRhsBatchDims), dot->GetIntList(AttrId::kRhsContractingDims));
  if (!lhs.has_value() || !rhs.has_value()) return std::nullopt;
  return DotRoles{*lhs, *rhs};
}

// `perm` applied to [batch..., free, contracting] gives the canonical
// order; the identity for operands already in it.
bool IsCanonical(const std::vector<int64_t>& perm) { return perm == Iota(perm.size()); }


// Everything the rewrite needs from one match.
struct Match {
  HloInstruction* output = nullptr;  // the P.V dot
  PrimitiveType type = PrimitiveType::F32;  // of Q, K, V and the output
  int64_t batch_rank = 2;  // n: the batch dims of K and V (Q's too unless grouped)
  HloInstruction *q = nullptr, *k = nullptr, *v = nullptr;
  // Transposes to [batch..., S, D] (Q and K: free, contracting; V:
  // contracting, free).
  std::vector<int64_t> q_perm, k_perm, v_perm;
  bool v_first = false;  // dot(v, p): the output is [batch..., Dv, Sq]
  // A decode step without the query axis: Q is [batch..., D] through
  // q_perm (Sq = 1), the output [batch..., Dv].
  bool no_query_axis = false;
  // Grouped (5-D) attention only: q_perm brings Q to [B, K, G, T, D], and
  // Transpose(o, out_perm) of o = [B, K, G, T, Dv] is the output dot's
  // shape. Empty otherwise.
  std::vector<int64_t> out_perm;
  // Grouped-query heads: K and V are each head of k_groups/v_groups
  // repeated `repeat` times (jnp.repeat), read without the copy.
  int64_t repeat = 1;
  // The sizes of the scores' batch dims (what the mask's lengths run
  // along), and the one that is the call's batch (-1: all of them
  // flattened; attention_lengths.h).
  std::vector<int64_t> score_batch;
  int64_t te_dim = -1;
  double scale = 1.0;
  AttentionMask mask;
  double fill = 0;  // the select's fill, with a padding mask
};


// When `x` is `reshape(broadcast(src))` that repeats each index of
// `src`'s dim `head` `repeat` times in a row (jnp.repeat(src, repeat,
// axis=head)): src and repeat.
std::optional<std::pair<HloInstruction*, int64_t>> RepeatedHeads(HloInstruction* x, int64_t head) {
  if (x->opcode() != HloOpcode::kReshape) return std::nullopt;
  const HloInstruction* y = x->operand(0);
  if (y->opcode() != HloOpcode::kBroadcast || Rank(y) != Rank(x) + 1) return std::nullopt;
  HloInstruction* src = y->operand(0);
  const std::vector<int64_t>& xd = x->shape().dimensions();
  const std::vector<int64_t>& yd = y->shape().dimensions();
  std::vector<int64_t> expect_y = xd, expect_src = xd, expect_map;
  const int64_t groups = yd[head], repeat = yd[head + 1];
  if (groups * repeat != xd[head] || repeat < 2) return std::nullopt;
  expect_y[head] = groups;
  expect_y.insert(expect_y.begin() + head + 1, repeat);
  expect_src[head] = groups;
  for (int64_t i = 0; i < Rank(y); ++i) {
    if (i != head + 1) expect_map.push_back(i);
  }
  if (yd != expect_y || src->shape().dimensions() != expect_src || y->dimensions() != expect_map) {
    return std::nullopt;
  }
  return std::make_pair(src, repeat);
}

// K and V as their un-repeated heads when both repeat the same heads the
// same number of times (only with [B, H, S, D] canonical operands).
void FindGroupedHeads(Match& m) {
  if (m.k_perm.size() != 4) return;
  std::optional<std::pair<HloInstruction*, int64_t>> k = RepeatedHeads(m.k, m.k_perm[1]);
  std::optional<std::pair<HloInstruction*, int64_t>> v = RepeatedHeads(m.v, m.v_perm[1]);
  if (!k.has_value() || !v.has_value() || k->second != v->second) return;
  m.k = k->first;
  m.v = v->first;
  m.repeat = k->second;
}

// Whether TE's padding masks express `mask`'s lengths: key padding, with
// or without query padding (a query mask alone hides whole rows and
// nothing else: refused), and lengths that run along the call's batch
// dim `te_dim` of the scores only (for [B, H, ...] scores B, for grouped
// scores their B: not per head, as cu_seqlens has one length per batch),
// or along any dim with `te_dim` -1 (one batch of one head per element).
bool PaddingFitsTheKernel(const AttentionMask& mask, int64_t te_dim) {
  if (mask.q_len.has_value() && !mask.kv_len.has_value()) return false;
  if (te_dim < 0) return true;
  for (const std::optional<AttentionLength>* len : {&mask.q_len, &mask.kv_len}) {
    if (!len->has_value()) continue;
    for (int64_t d : (*len)->dims) {
      if (d >= 0 && d != te_dim) return false;
    }
  }
  return true;
}


// Whether attention of `type` runs on the target's kernel at all: f32 on
// the host kernel only (the NVPTX kernel's MMA takes 16-bit operands);
// 16-bit attention only when asked for.
bool TypeFits(PrimitiveType type, const AttentionRewriterOptions& options) {
  if (type == PrimitiveType::F32) return options.target == "host";
  return Is16Bit(type) && options.fuse_16bit;
}

// A match's fields that come from the output dot and the score side: the
// scores' first `score_batch_rank` dims are their batch dims (what the
// mask's lengths run along), `te_dim` the call's batch among them.
Match MatchFromScores(HloInstruction* out, int64_t n, const AttentionScoreSide& side,
                      int64_t score_batch_rank, int64_t te_dim) {
  Match match;
  match.output = out;
  match.type = TypeOf(out);
  match.batch_rank = n;
  const std::vector<int64_t>& pd = side.p->shape().dimensions();
  match.score_batch.assign(pd.begin(), pd.begin() + score_batch_rank);
  match.te_dim = te_dim;
  match.scale = side.scale;
  match.mask = side.masked.mask;
  match.fill = side.masked.fill;
  return match;
}

std::optional<Match> MatchAttention(HloInstruction* out, const AttentionRewriterOptions& options) {
  if (out->opcode() != HloOpcode::kDot || Rank(out) < 3 || !TypeFits(TypeOf(out), options)) {
    return std::nullopt;
  }
  const PrimitiveType type = TypeOf(out);
  const int64_t n = Rank(out) - 2;
  std::optional<DotRoles> out_roles = Roles(out, n, type);
  if (!out_roles.has_value()) return std::nullopt;
  // p's canonical order must be its own: [batch..., Sq, Skv] contracting Skv.
  const std::vector<int64_t> p_perm = Iota(n + 2);
  const bool v_first = out_roles->rhs_perm == p_perm && out_roles->lhs_perm != p_perm;
  if (!v_first && out_roles->lhs_perm != p_perm) return std::nullopt;
  std::vector<int64_t> v_perm = v_first ? out_roles->lhs_perm : out_roles->rhs_perm;
  std::swap(v_perm[n], v_perm[n + 1]);  // V: [batch..., Skv (contracting), Dv]
  std::optional<AttentionScoreSide> side =
      PeelAttentionScores(out, out->operand(v_first ? 1 : 0), type, false);
  const int64_t te_dim = n == 2 ? 0 : -1;
  if (!side.has_value() || !PaddingFitsTheKernel(side->masked.mask, te_dim)) return std::nullopt;
  std::optional<DotRoles> score_roles = Roles(side->dot, n, type);
  if (!score_roles.has_value()) return std::nullopt;
  Match match = MatchFromScores(out, n, *side, n, te_dim);
  match.q = side->dot->operand(0);
  match.k = side->dot->operand(1);
  match.v = out->operand(v_first ? 0 : 1);
  match.q_perm = score_roles->lhs_perm;
  match.k_perm = score_roles->rhs_perm;
  match.v_perm = v_perm;
  match.v_first = v_first;
  FindGroupedHeads(match);
  return match;
}

// Grouped attention (attention_grouped_dots.h: jax.nn.dot_product_attention's
// 5-D dots), causal, padded (lengths per B: query_seq_lengths,
// key_value_seq_lengths), both or unmasked: Q is read as [B, K*G, T, D]
// (query head k*G + g), K and V as [B, K, S, D] un-repeated
// (num_gqa_groups = K).
std::optional<Match> MatchGroupedAttention(HloInstruction* out,
                                           const AttentionRewriterOptions& options) {
  if (out->opcode() != HloOpcode::kDot || Rank(out) != 5 || !TypeFits(TypeOf(out), options)) {
    return std::nullopt;
  }
  const PrimitiveType type = TypeOf(out);
  const int p_index = Rank(out->operand(0)) == 5 ? 0 : 1;
  if (TypeOf(out->operand(p_index)) != type) return std::nullopt;
  std::optional<AttentionScoreSide> side =
      PeelAttentionScores(out, out->operand(p_index), type, true);
  if (!side.has_value()) return std::nullopt;
  std::optional<GroupedDots> dots =
      AnalyzeGroupedDots(side->dot, side->layout, out, out->operand(p_index));
  if (!dots.has_value() || !PaddingFitsTheKernel(side->masked.mask, dots->s_batch)) {
    return std::nullopt;
  }
  if (TypeOf(dots->q) != type || TypeOf(dots->k) != type || TypeOf(dots->v) != type) {
    return std::nullopt;
  }
  Match match = MatchFromScores(out, 2, *side, 3, dots->s_batch);
  match.q = dots->q;
  match.k = dots->k;
  match.v = dots->v;
  match.q_perm = dots->q_perm;
  match.k_perm = dots->k_perm;
  match.v_perm = dots->v_perm;
  match.out_perm = dots->out_perm;
  match.repeat = match.q->shape().dimensions()[dots->q_perm[2]];
  return match;
}

// The permutation that brings a dot operand with no free dim to
// [batch..., contracting]; nullopt for other dimension numbers.
std::optional<std::vector<int64_t>> RowPerm(const HloInstruction* operand,
                                            const std::vector<int64_t>& batch,
                                            const std::vector<int64_t>& contracting) {
  if (contracting.size() != 1 || static_cast<int64_t>(batch.size()) + 1 != Rank(operand)) {
    return std::nullopt;
  }
  std::vector<int64_t> perm = batch;
  perm.push_back(contracting[0]);
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  if (sorted != Iota(Rank(operand))) return std::nullopt;
  return perm;
}

// One side of a dot as (batch, contracting) dims: operand 0 or 1.
std::pair<std::vector<int64_t>, std::vector<int64_t>> DotSide(const HloInstruction* dot, int i) {
  return {dot->GetIntList(i == 0 ? AttrId::kLhsBatchDims : AttrId::kRhsBatchDims),
          dot->GetIntList(i == 0 ? AttrId::kLhsContractingDims : AttrId::kRhsContractingDims)};
}

// A dot of a row operand (rank n + 1, no free dim: the one query, or the
// probabilities of one query) with a rank n + 2 operand, n batch dims and
// one contracting dim each: the row's index, its perm to [batch...,
// contracting] and the other's to [batch..., free, contracting].
struct RowDot {
  int row = 0;
  std::vector<int64_t> row_perm, other_perm;
};

std::optional<RowDot> RowDotRoles(const HloInstruction* dot, int64_t n, PrimitiveType operands) {
  if (dot->opcode() != HloOpcode::kDot || TypeOf(dot->operand(0)) != operands ||
      TypeOf(dot->operand(1)) != operands) {
    return std::nullopt;
  }
  const int row = Rank(dot->operand(0)) == n + 1 ? 0 : 1;
  if (Rank(dot->operand(row)) != n + 1 || Rank(dot->operand(1 - row)) != n + 2) return std::nullopt;
  auto [rb, rc] = DotSide(dot, row);
  auto [ob, oc] = DotSide(dot, 1 - row);
  std::optional<std::vector<int64_t>> row_perm = RowPerm(dot->operand(row), rb, rc);
  std::optional<std::vector<int64_t>> other_perm = CanonicalPerm(dot->operand(1 - row), ob, oc);
  if (!row_perm.has_value() || !other_perm.has_value()) return std::nullopt;
  return RowDot{row, *row_perm, *other_perm};
}

// KV-cache decode steps that write the one query without its axis
// ("bhd,bthd->bht", softmax over t, "bht,bthd->bhd"): Q [batch..., D], K
// and V [batch..., S, D], a mask of [batch..., S] (a key length such as
// `arange(S) <= pos`); read as attention with Sq = 1.
std::optional<Match> MatchDecodeAttention(HloInstruction* out,
                                          const AttentionRewriterOptions& options) {
  if (!options.fuse_decode_steps || out->opcode() != HloOpcode::kDot || Rank(out) < 2 ||
      !TypeFits(TypeOf(out), options)) {
    return std::nullopt;
  }
  const PrimitiveType type = TypeOf(out);
  const int64_t n = Rank(out) - 1;
  std::optional<RowDot> out_roles = RowDotRoles(out, n, type);
  // p's own order is [batch..., Skv], contracting Skv.
  if (!out_roles.has_value() || out_roles->row_perm != Iota(n + 1)) return std::nullopt;
  std::optional<AttentionScoreSide> side =
      PeelAttentionScores(out, out->operand(out_roles->row), type, false, /*query_axis=*/false);
  const int64_t te_dim = n == 2 ? 0 : -1;
  if (!side.has_value() || !PaddingFitsTheKernel(side->masked.mask, te_dim)) return std::nullopt;
  std::optional<RowDot> score_roles = RowDotRoles(side->dot, n, type);
  if (!score_roles.has_value()) return std::nullopt;
  Match match = MatchFromScores(out, n, *side, n, te_dim);
  match.no_query_axis = true;
  match.q = side->dot->operand(score_roles->row);
  match.k = side->dot->operand(1 - score_roles->row);
  match.v = out->operand(1 - out_roles->row);
  match.q_perm = score_roles->row_perm;
  match.k_perm = score_roles->other_perm;
  match.v_perm = out_roles->other_perm;
  std::swap(match.v_perm[n], match.v_perm[n + 1]);  // V: [batch..., Skv, Dv]
  FindGroupedHeads(match);
  return match;
}

// Whether the target's fused-attention kernel computes `m`: the host's
// takes every match; the NVPTX kernel's own plan decides for sm_XX (bf16/
// f16, head dims multiples of 8 up to 128), so a match it refuses keeps
// the unfused ops instead of failing the compile.
bool KernelTakes(const Match& m, const std::string& target) {
  if (target == "host") return true;
  const int64_t n = m.batch_rank;
  const std::vector<int64_t>& qd = m.q->shape().dimensions();  // [..., Sq, D] through q_perm
  gpu::ffi::TeAttentionConfig config;
  config.qk_head_dim = qd[m.q_perm.back()];
  config.v_head_dim = m.v->shape().dimensions()[m.v_perm[n + 1]];
  config.q_seqlen = m.no_query_axis ? 1 : qd[m.q_perm[m.q_perm.size() - 2]];
  config.kv_seqlen = m.k->shape().dimensions()[m.k_perm[n]];
  config.qkv_layout = kLayoutBshd;
  config.scale = m.scale;
  config.causal = m.mask.causal;
  config.padding = m.mask.padding();
  return gpu::PlanFlashAttention(gpu::FlashKernel::kForward, config, m.type, target).ok();
}

// [batch..., S, D] as TE's [B, S, H, D]: a head transpose for two batch
// dims, a reshape to one batch of one head otherwise.
HloInstruction* ToBshd(OpBuilder& b, HloInstruction* x, const std::vector<int64_t>& perm,
                       const std::string& name) {
  if (!IsCanonical(perm)) x = b.Transpose(x, perm, name + "_canonical");
  const std::vector<int64_t>& d = x->shape().dimensions();
  const int64_t n = static_cast<int64_t>(d.size()) - 2;
  if (n == 2) return b.Transpose(x, {0, 2, 1, 3}, name);
  int64_t batch = 1;
  for (int64_t i = 0; i < n; ++i) batch *= d[i];
  return b.Reshape(x, {batch, d[n], 1, d[n + 1]}, name);
}

// Where [B, T, K, G, D] keeps each dim of grouped Q's [B, K, G, T, D]
// (q_perm's and out_perm's order).
constexpr int64_t kGroupedBshd[] = {0, 2, 3, 1, 4};

// Grouped Q as the call reads it: [B, T, K*G, D] (query head k*G + g);
// JAX's [B, T, K, G, D] needs no transpose.
HloInstruction* GroupedBshdQ(OpBuilder& b, const Match& m) {
  const std::vector<int64_t>& p = m.q_perm;
  const std::vector<int64_t> perm = {p[0], p[3], p[1], p[2], p[4]};
  HloInstruction* q = IsCanonical(perm) ? m.q : b.Transpose(m.q, perm, "attention_q_groups");
  const std::vector<int64_t>& d = q->shape().dimensions();  // [B, T, K, G, D]
  return b.Reshape(q, {d[0], d[1], d[2] * d[3], d[4]}, "attention_q");
}

// A decode step's Q [batch..., D] (through q_perm) as [batch..., 1, D].
HloInstruction* DecodeQ(OpBuilder& b, const Match& m) {
  HloInstruction* q = IsCanonical(m.q_perm) ? m.q : b.Transpose(m.q, m.q_perm, "attention_q_row");
  std::vector<int64_t> dims = q->shape().dimensions();
  dims.insert(dims.end() - 1, 1);
  return b.Reshape(q, dims, "attention_q_rows");
}

// The call's output o [B, T, K*G, Dv] as the grouped output dot's shape.
HloInstruction* GroupedResult(OpBuilder& b, const Match& m, HloInstruction* o) {
  const std::vector<int64_t>& od = o->shape().dimensions();
  const std::vector<int64_t>& qd = m.q->shape().dimensions();
  HloInstruction* x = b.Reshape(o, {od[0], od[1], qd[m.q_perm[1]], qd[m.q_perm[2]], od[3]},
                                "attention_groups");
  std::vector<int64_t> perm;
  for (int64_t c : m.out_perm) perm.push_back(kGroupedBshd[c]);
  return IsCanonical(perm) ? x : b.Transpose(x, perm, "attention_result_grouped");
}

absl::Status Rewrite(const Match& m) {
  HloComputation* computation = m.output->parent();
  OpBuilder b(computation);
  ScalarReducers reducers(computation->parent(), "attention");
  const bool grouped = !m.out_perm.empty();
  HloInstruction* q = grouped           ? GroupedBshdQ(b, m)
                     : m.no_query_axis ? ToBshd(b, DecodeQ(b, m), Iota(m.batch_rank + 2), "attention_q")
                                       : ToBshd(b, m.q, m.q_perm, "attention_q");
  HloInstruction* k = ToBshd(b, m.k, m.k_perm, "attention_k");
  HloInstruction* v = ToBshd(b, m.v, m.v_perm, "attention_v");
  const std::vector<int64_t>& qd = q->shape().dimensions();  // [B, Sq, H, D]
  const int64_t batch = qd[0], sq = qd[1], heads = qd[2], dqk = qd[3];
  const int64_t skv = k->shape().dimensions()[1];
  const int64_t dv = v->shape().dimensions()[3];
  const int64_t n = m.batch_rank;
  // Operands TE's call takes but this use does not read: an empty bias,
  // the dropout seed (and, without padding, the cu_seqlens and offsets).
  HloInstruction* empty = b.Op(HloOpcode::kConstant, Shape::Array(PrimitiveType::F32, {0}), {},
                               "attention_unused");
  empty->set_literal(Literal(Shape::Array(PrimitiveType::F32, {0})));
  HloInstruction* seed = b.Op(HloOpcode::kConstant, Shape::Array(PrimitiveType::U32, {2}), {},
                              "attention_seed");
  seed->set_literal(Literal(Shape::Array(PrimitiveType::U32, {2})));
  const bool padding = m.mask.padding();
  AttentionAxisLengths q_lens, kv_lens;
  if (padding) {
    q_lens = BuildAttentionLengths(b, reducers, m.mask.q_len, sq, m.score_batch, m.te_dim);
    kv_lens = BuildAttentionLengths(b, reducers, m.mask.kv_len, skv, m.score_batch, m.te_dim);
  } else {
    HloInstruction* cu = b.Op(HloOpcode::kConstant, Shape::Array(PrimitiveType::S32, {batch + 1}),
                              {}, "attention_cu_seqlens");
    cu->set_literal(Literal(Shape::Array(PrimitiveType::S32, {batch + 1})));
    q_lens.cu_seqlens = kv_lens.cu_seqlens = cu;
  }
  const Shape result = Shape::Tuple({
      Shape::Array(m.type, {batch, sq, heads, dv}),                 // output
      Shape::Array(PrimitiveType::F32, {batch, heads, sq, 1}),      // softmax_aux
      Shape::Array(PrimitiveType::U32, {2}),                        // rng_state
      Shape::Array(PrimitiveType::U8, {0}),                         // workspace
  });
  HloInstruction* call = b.Op(
      HloOpcode::kCustomCall, result,
      {q, k, v, empty, seed, q_lens.cu_seqlens, kv_lens.cu_seqlens, empty, empty}, "fused_attention");
  call->SetAttr(AttrId::kCustomCallTarget, std::string(gpu::ffi::kTeFusedAttnForwardTarget));
  call->SetAttr(AttrId::kApiVersion, std::string("API_VERSION_TYPED_FFI"));
  const int64_t mask_type = padding ? (m.mask.causal ? kMaskPaddingCausal : kMaskPadding)
                                    : (m.mask.causal ? kMaskCausal : kMaskNone);
  call->SetAttr(
      AttrId::kBackendConfig,
      absl::StrFormat(
          "{attn_heads = %d : i64, bias_type = 0 : i64, dropout_probability = 0.0 : f64, "
          "input_batch = %d : i64, is_training = false, kv_max_seqlen = %d : i64, "
          "mask_type = %d : i64, num_gqa_groups = %d : i64, q_max_seqlen = %d : i64, "
          "qk_head_dim = %d : i64, qkv_layout = %d : i64, scaling_factor = %.17e : f64, "
          "v_head_dim = %d : i64, window_size_left = -1 : i64, window_size_right = -1 : i64}",
          heads, batch, skv, mask_type, heads / m.repeat, sq, dqk, kLayoutBshd, m.scale, dv));
  HloInstruction* o = b.GetTupleElement(call, gpu::ffi::kFwdOutput, "attention_output");
  if (padding) o = FixHiddenRows(b, reducers, m.type, m.fill, o, v, q_lens, kv_lens);
  if (grouped) return ReplaceInstruction(m.output, GroupedResult(b, m, o));
  if (m.no_query_axis) {  // [B, 1, H, Dv] (or [batch, 1, 1, Dv]): drop Sq = 1
    return ReplaceInstruction(m.output, b.Reshape(o, m.output->shape().dimensions(), "attention_result"));
  }
  // Back to [batch..., Sq, Dv], then to the dot's order.
  std::vector<int64_t> canonical = m.score_batch;
  canonical.push_back(sq);
  canonical.push_back(dv);
  HloInstruction* back = n == 2 ? b.Transpose(o, {0, 2, 1, 3}, "attention_result")
                                : b.Reshape(o, canonical, "attention_result");
  if (m.v_first) {
    std::vector<int64_t> swap = Iota(n + 2);
    std::swap(swap[n], swap[n + 1]);
    back = b.Transpose(back, swap, "attention_result_t");
  }
  return ReplaceInstruction(m.output, back);
}

}  // namespace

absl::StatusOr<bool> AttentionRewriter::Run(HloModule* module) {
  bool changed = false;
  // A rewrite adds computations (ScalarReducers' reduce computations),
  // which may reallocate the module's list: walk a copy of it.
  std::vector<HloComputation*> computations;
  for (const auto& computation : module->computations()) computations.push_back(computation.get());
  for (HloComputation* computation : computations) {
    std::vector<HloInstruction*> dots;
    for (const auto& instr : computation->instructions()) {
      if (instr->opcode() == HloOpcode::kDot) dots.push_back(instr.get());
    }
    for (HloInstruction* dot : dots) {
      std::optional<Match> match = MatchAttention(dot, options_);
      if (!match.has_value()) match = MatchGroupedAttention(dot, options_);
      if (!match.has_value()) match = MatchDecodeAttention(dot, options_);
      if (!match.has_value() || !KernelTakes(*match, options_.target)) continue;
      if (absl::Status s = Rewrite(*match); !s.ok()) {
        return absl::InternalError(absl::StrCat("attention-rewriter: rewriting ", dot->name(), ": ",
                                                s.message()));
      }
      changed = true;
    }
  }
  return changed;
}

}  // namespace xla
