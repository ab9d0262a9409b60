#include "xla/service/fusion/attention_score_chain.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/transforms/hlo_util.h"

namespace xla {
namespace {

PrimitiveType TypeOf(const HloInstruction* i) { return i->shape().element_type(); }
bool IsF32(const HloInstruction* i) { return TypeOf(i) == PrimitiveType::F32; }
bool Is16Bit(PrimitiveType t) { return t == PrimitiveType::BF16 || t == PrimitiveType::F16; }
int64_t Rank(const HloInstruction* i) { return static_cast<int64_t>(i->shape().dimensions().size()); }

std::vector<int64_t> Iota(int64_t n) {
  std::vector<int64_t> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

// `computation` is (x, y) -> opcode(x, y) over scalars of `type`.
bool IsScalarReducer(const HloComputation* computation, HloOpcode opcode, PrimitiveType type) {
  if (computation == nullptr || computation->num_parameters() != 2) return false;
  const HloInstruction* root = computation->root_instruction();
  if (root->opcode() != opcode || TypeOf(root) != type || Rank(root) != 0) return false;
  const HloInstruction* a = root->operand(0);
  const HloInstruction* b = root->operand(1);
  return a != b && a->opcode() == HloOpcode::kParameter && b->opcode() == HloOpcode::kParameter;
}

// reduce(input, init) over the last dimension with `opcode` and `init`.
bool IsLastDimReduce(const HloInstruction* r, const HloInstruction* input, HloOpcode opcode,
                     double init) {
  return r->opcode() == HloOpcode::kReduce && r->operand_count() == 2 && r->operand(0) == input &&
         r->dimensions() == std::vector<int64_t>{Rank(input) - 1} &&
         IsUniformConstantEqualTo(*r->operand(1), init) &&
         IsScalarReducer(r->to_apply(), opcode, TypeOf(r));
}

// Steps through reshapes and order-keeping, size-keeping broadcasts (JAX's
// keepdims chains), which all keep the elements' linear order; with
// `through_convert`, also through converts (JAX's 16-bit softmax rounds
// its f32 row sum to 16 bits inside the chain).
HloInstruction* PeelKeepdims(HloInstruction* x, bool through_convert = false) {
  while (true) {
    const bool order_keeping_broadcast =
        x->opcode() == HloOpcode::kBroadcast &&
        ElementCountOrZero(x->shape()) == ElementCountOrZero(x->operand(0)->shape()) &&
        std::is_sorted(x->dimensions().begin(), x->dimensions().end());
    const bool convert = through_convert && x->opcode() == HloOpcode::kConvert;
    if (x->opcode() != HloOpcode::kReshape && !order_keeping_broadcast && !convert) return x;
    x = x->operand(0);
  }
}

// Whether `b` broadcasts `row` (shape = b's without its last dim) along
// b's last dimension, possibly through a keepdims chain (through converts
// too, as PeelKeepdims says).
bool IsRowBroadcastOf(const HloInstruction* b, const HloInstruction* row,
                      bool through_convert = false) {
  const int64_t r = Rank(b);
  return b->opcode() == HloOpcode::kBroadcast && r > 0 && b->dimensions() == Iota(r - 1) &&
         PeelKeepdims(b->operand(0), through_convert) == row &&
         row->shape().dimensions() == b->operand(0)->shape().dimensions();
}

// The row max that `m` (the broadcast subtracted from the scores `s`)
// carries: reduce-max(x, -inf) over the last dim, maybe clamped by
// maximum(., -inf) (jax.nn.softmax's `initial`), of x = s. With `grouped`,
// x may also be the operand of s when s is a layout op that keeps the last
// dim and that the simplifier moved below the max: a reshape (the same
// rows in the same order), or a transpose keeping the last dim last whose
// permutation of the other dims the row vector goes through too. Returns
// the reduce and x; nullopt otherwise.
std::optional<std::pair<const HloInstruction*, HloInstruction*>> RowMax(const HloInstruction* m,
                                                                         HloInstruction* s,
                                                                         bool grouped) {
  const int64_t r = Rank(m);
  if (m->opcode() != HloOpcode::kBroadcast || r == 0 || m->dimensions() != Iota(r - 1)) {
    return std::nullopt;
  }
  const HloInstruction* row = PeelKeepdims(m->operand(0));
  HloInstruction* x = s;
  const bool keeps_last = grouped && s->operand_count() == 1 && Rank(s->operand(0)) == r &&
                          s->shape().dimensions().back() == s->operand(0)->shape().dimensions().back();
  if (keeps_last && s->opcode() == HloOpcode::kTranspose && s->dimensions().back() == r - 1 &&
      row->opcode() == HloOpcode::kTranspose &&
      row->dimensions() == std::vector<int64_t>(s->dimensions().begin(), s->dimensions().end() - 1)) {
    row = PeelKeepdims(row->operand(0));
    x = s->operand(0);
  }
  const double neg_inf = -std::numeric_limits<double>::infinity();
  const HloInstruction* max = row;
  if (max->opcode() == HloOpcode::kMaximum && IsUniformConstantEqualTo(*max->operand(1), neg_inf)) {
    max = max->operand(0);
  }
  if (keeps_last && s->opcode() == HloOpcode::kReshape && max->operand_count() > 0 &&
      max->operand(0) == s->operand(0)) {
    x = s->operand(0);
  }
  if (!IsLastDimReduce(max, x, HloOpcode::kMaximum, neg_inf)) return std::nullopt;
  // m spreads the row vector in x's row order: the chain between keeps it.
  const Shape& rows = m->operand(0)->shape();
  const bool same_rows = x == s ? row->shape().dimensions() == rows.dimensions()
                                : ElementCountOrZero(row->shape()) == ElementCountOrZero(rows);
  if (!same_rows) return std::nullopt;
  return std::make_pair(max, x);
}

// Peels an optional scale by a scalar constant off the scores.
std::pair<HloInstruction*, double> PeelScale(HloInstruction* s) {
  if (s->opcode() == HloOpcode::kMultiply) {
    for (int c : {1, 0}) {
      const Literal* value = UniformConstant(*s->operand(c));
      if (value != nullptr) return {s->operand(1 - c), value->GetDouble(0)};
    }
  }
  if (s->opcode() == HloOpcode::kDivide) {
    const Literal* value = UniformConstant(*s->operand(1));
    if (value != nullptr && value->GetDouble(0) != 0) {
      return {s->operand(0), 1.0 / value->GetDouble(0)};
    }
  }
  return {s, 1.0};
}

// Whether every finite value of `scores` lies in f16's range: f16 scores,
// or f16 scores converted to f32 and then maybe scaled by |c| <= 1 (JAX's
// jnp.where(mask, s.astype(f32), jnp.finfo(f16).min)).
bool HoldsF16Range(HloInstruction* scores) {
  if (TypeOf(scores) == PrimitiveType::F16) return true;
  auto [x, scale] = PeelScale(scores);
  return std::fabs(scale) <= 1 && x->opcode() == HloOpcode::kConvert &&
         TypeOf(x->operand(0)) == PrimitiveType::F16;
}

// A finite fill at most kAttentionLargestFill, or -inf.
// With scores in f16's range, also f16's most negative finite value
// (jnp.finfo(f16).min, what JAX models use, in f16 or after the convert to
// f32): a visible score is at least that, so the fill is within ~104 of
// the row's largest visible score only when that score is within 0.2% of
// f16's range.
bool IsMaskingFill(double fill, HloInstruction* scores) {
  constexpr double kF16Lowest = -65504;
  return fill <= kAttentionLargestFill || (fill == kF16Lowest && HoldsF16Range(scores));
}


// Peels an optional mask off the masked scores `s` ([batch..., Sq, Skv],
// or [batch..., Skv] without `query_axis`); nullopt when `s` is masked in
// a way the kernel does not compute exactly.
std::optional<AttentionUnmasked> PeelMask(HloInstruction* s, bool query_axis) {
  if (s->opcode() == HloOpcode::kSelect) {
    for (int fill_index : {2, 1}) {
      const Literal* fill = UniformConstant(*s->operand(fill_index));
      if (fill == nullptr || !IsMaskingFill(fill->GetDouble(0), s->operand(3 - fill_index))) {
        continue;
      }
      std::optional<AttentionMask> mask =
          AnalyzeAttentionMask(s->operand(0), /*visible_when_true=*/fill_index == 2, query_axis);
      if (!mask.has_value()) return std::nullopt;
      return AttentionUnmasked{s->operand(3 - fill_index), *mask, fill->GetDouble(0)};
    }
    return std::nullopt;
  }
  if (s->opcode() == HloOpcode::kAdd && query_axis) {
    for (int mask_index : {1, 0}) {
      std::optional<AttentionMask> mask = AnalyzeAdditiveMask(s->operand(mask_index), kAttentionLargestFill);
      if (mask.has_value()) return AttentionUnmasked{s->operand(1 - mask_index), *mask, 0};
    }
    return std::nullopt;
  }
  return AttentionUnmasked{s, AttentionMask(), 0};
}

bool OnlyUsers(const HloInstruction* i, std::vector<const HloInstruction*> users) {
  if (i->users().size() != users.size()) return false;
  for (const HloInstruction* u : i->users()) {
    if (std::find(users.begin(), users.end(), u) == users.end()) return false;
  }
  return i->parent() == nullptr || i != i->parent()->root_instruction();
}

// The normalized probabilities' numerator and row sum: e / bcast(sum) or
// e * bcast(1 / sum). The sum is of e's type, or, with 16-bit e, of
// convert(e) to f32 rounded back to e's type (jnp.sum's upcast): the
// returned sum's operand is then that convert.
std::optional<std::pair<HloInstruction*, HloInstruction*>> PeelNormalization(HloInstruction* p) {
  if (p->opcode() != HloOpcode::kDivide && p->opcode() != HloOpcode::kMultiply) return std::nullopt;
  HloInstruction* e = p->operand(0);
  const HloInstruction* b = p->operand(1);
  if (b->opcode() != HloOpcode::kBroadcast) return std::nullopt;
  const bool through_convert = Is16Bit(TypeOf(e));
  HloInstruction* row = PeelKeepdims(b->operand(0), through_convert);
  if (!IsRowBroadcastOf(b, row, through_convert)) return std::nullopt;
  HloInstruction* sum = row;
  if (p->opcode() == HloOpcode::kMultiply) {  // e * (1 / sum)
    if (row->opcode() != HloOpcode::kDivide || !IsUniformConstantEqualTo(*row->operand(0), 1.0)) {
      return std::nullopt;
    }
    sum = row->operand(1);
  }
  const HloInstruction* summed = sum->operand_count() > 0 ? sum->operand(0) : nullptr;
  const bool upcast = summed != nullptr && summed->opcode() == HloOpcode::kConvert &&
                      IsF32(summed) && summed->operand(0) == e && OnlyUsers(summed, {sum});
  if (!IsLastDimReduce(sum, upcast ? summed : e, HloOpcode::kAdd, 0.0)) return std::nullopt;
  // A sum accumulated in 16 bits loses ~Skv / 2^8 of itself: refused.
  if (Is16Bit(TypeOf(e)) && !upcast) return std::nullopt;
  return std::make_pair(e, sum);
}

// With 16-bit attention and an f32 softmax (mixed precision), the one
// convert between the scores (16-bit) and the softmax (f32): steps over
// it where it sits in the score chain, once.
struct ScoreConvert {
  PrimitiveType from;
  bool pending;

  // `x`'s operand when `x` is that convert, else `x`.
  HloInstruction* Peel(HloInstruction* x) {
    if (!pending || x->opcode() != HloOpcode::kConvert || TypeOf(x->operand(0)) != from) return x;
    pending = false;
    return x->operand(0);
  }
};

// Grouped attention only: the one transpose or reshape between the score
// dot and the mask (AnalyzeGroupedDots decides whether it fits); steps
// over it once.
struct LayoutStep {
  bool allowed;
  HloInstruction* found = nullptr;

  HloInstruction* Peel(HloInstruction* x) {
    const bool layout = x->opcode() == HloOpcode::kTranspose || x->opcode() == HloOpcode::kReshape;
    if (!allowed || found != nullptr || !layout) return x;
    found = x;
    return x->operand(0);
  }
};

}  // namespace

std::optional<AttentionScoreSide> PeelAttentionScores(HloInstruction* out, HloInstruction* p_dot,
                                                      PrimitiveType type, bool grouped,
                                                      bool query_axis) {
  HloInstruction* p = p_dot;
  // Mixed precision: p = convert(f32 probabilities) to the dots' type, and
  // one convert from it to f32 in the score chain.
  ScoreConvert convert{type, false};
  const HloInstruction* p_user = out;
  if (Is16Bit(type) && p->opcode() == HloOpcode::kConvert && IsF32(p->operand(0))) {
    if (!OnlyUsers(p, {out})) return std::nullopt;
    p_user = p;
    p = p->operand(0);
    convert.pending = true;
  }
  const PrimitiveType softmax_type = TypeOf(p);
  std::optional<std::pair<HloInstruction*, HloInstruction*>> norm = PeelNormalization(p);
  if (!norm.has_value()) return std::nullopt;
  auto [e, sum] = *norm;
  if (e->opcode() != HloOpcode::kExp) return std::nullopt;
  HloInstruction* sub = e->operand(0);
  if (sub->opcode() != HloOpcode::kSubtract) return std::nullopt;
  HloInstruction* s = sub->operand(0);
  std::optional<std::pair<const HloInstruction*, HloInstruction*>> row_max =
      RowMax(sub->operand(1), s, grouped);
  if (!row_max.has_value()) return std::nullopt;
  const HloInstruction* max = row_max->first;
  HloInstruction* max_reads = row_max->second;
  // Every intermediate feeds only the pattern (else the fused call would
  // not save the unfused work).
  const HloInstruction* sum_reader = sum->operand(0) == e ? sum : sum->operand(0);
  if (!OnlyUsers(p, {p_user}) || !OnlyUsers(e, {p, sum_reader}) || !OnlyUsers(sub, {e})) {
    return std::nullopt;
  }
  if (max_reads == s ? !OnlyUsers(s, {max, sub}) : !OnlyUsers(s, {sub})) return std::nullopt;
  // The score chain from the softmax's input back to the dot: [convert]
  // mask [layout] [convert] [layout] scale [layout] [convert] [layout],
  // each step used by the one before only (max_reads: and by the max).
  bool private_chain = true;
  auto step = [&](HloInstruction* from, HloInstruction* next) {
    std::vector<const HloInstruction*> users = {from};
    if (next == max_reads && next != s) users.push_back(max);
    if (next != from && !OnlyUsers(next, users)) private_chain = false;
    return next;
  };
  LayoutStep layout{grouped};
  HloInstruction* unconverted = step(s, convert.Peel(s));
  std::optional<AttentionUnmasked> masked = PeelMask(unconverted, query_axis);
  if (!masked.has_value()) return std::nullopt;
  HloInstruction* scaled = step(unconverted, masked->scores);
  scaled = step(scaled, layout.Peel(scaled));
  HloInstruction* scaled16 = step(scaled, convert.Peel(scaled));
  scaled16 = step(scaled16, layout.Peel(scaled16));
  auto [scaled_input, scale] = PeelScale(scaled16);
  HloInstruction* scores32 = step(scaled16, scaled_input);
  scores32 = step(scores32, layout.Peel(scores32));
  HloInstruction* scores = step(scores32, convert.Peel(scores32));
  scores = step(scores, layout.Peel(scores));
  // The max must read the chain itself: through the layout reshape s.
  if (max_reads != s && layout.found != s) return std::nullopt;
  // Mixed precision may also widen in the score dot itself (16-bit
  // operands, f32 scores: preferred_element_type=f32, what
  // jax.nn.dot_product_attention emits); it stands for the score convert.
  if (convert.pending && IsF32(scores)) convert.pending = false;
  if (!private_chain || convert.pending || !std::isfinite(scale)) return std::nullopt;
  if (TypeOf(scores) != type && !(Is16Bit(type) && IsF32(scores))) return std::nullopt;
  if (TypeOf(s) != softmax_type || TypeOf(e) != softmax_type) return std::nullopt;
  return AttentionScoreSide{scores, layout.found, p, scale, *masked};
}

}  // namespace xla
