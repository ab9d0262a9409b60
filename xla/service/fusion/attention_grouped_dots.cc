#include "xla/service/fusion/attention_grouped_dots.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace xla {
namespace {

// What a dimension holds. kF0/kF1 stand for Q's two free dims until the
// softmax's order says which is the query position (T) and which the
// group (G).
enum Label : int { kB, kK, kG, kT, kS, kD, kF0, kF1 };
using Labels = std::vector<int>;

int64_t Rank(const HloInstruction* i) { return i->shape().rank(); }

// One operand's dims in a dot: batch (in the dot's pairing order),
// contracting, and the rest (free, ascending).
struct Side {
  std::vector<int64_t> batch, contracting, free;
};

Side SideOf(const HloInstruction* dot, int operand) {
  Side s;
  s.batch = dot->GetIntList(operand == 0 ? AttrId::kLhsBatchDims : AttrId::kRhsBatchDims);
  s.contracting =
      dot->GetIntList(operand == 0 ? AttrId::kLhsContractingDims : AttrId::kRhsContractingDims);
  for (int64_t d = 0; d < Rank(dot->operand(operand)); ++d) {
    const bool used = std::count(s.batch.begin(), s.batch.end(), d) > 0 ||
                      std::count(s.contracting.begin(), s.contracting.end(), d) > 0;
    if (!used) s.free.push_back(d);
  }
  return s;
}

// A dot's result: the batch dims, then lhs's free dims, then rhs's.
Labels ResultLabels(const Labels& lhs, const Side& l, const Labels& rhs, const Side& r) {
  Labels out;
  for (int64_t d : l.batch) out.push_back(lhs[d]);
  for (int64_t d : l.free) out.push_back(lhs[d]);
  for (int64_t d : r.free) out.push_back(rhs[d]);
  return out;
}

// `in` (the labels of layout's operand) after `layout`: a transpose, or a
// reshape that keeps the dims of size > 1 in order (size-1 dims hold one
// index, so any of them may take any size-1 label).
std::optional<Labels> ThroughLayout(const HloInstruction* layout, const Labels& in) {
  if (layout == nullptr) return in;
  const std::vector<int64_t>& from = layout->operand(0)->shape().dimensions();
  const std::vector<int64_t>& to = layout->shape().dimensions();
  if (to.size() != in.size() || from.size() != in.size()) return std::nullopt;
  Labels out;
  if (layout->opcode() == HloOpcode::kTranspose) {
    for (int64_t d : layout->dimensions()) out.push_back(in[d]);
    return out;
  }
  if (layout->opcode() != HloOpcode::kReshape) return std::nullopt;
  Labels big, ones;
  std::vector<int64_t> big_sizes;
  for (size_t i = 0; i < from.size(); ++i) {
    (from[i] == 1 ? ones : big).push_back(in[i]);
    if (from[i] != 1) big_sizes.push_back(from[i]);
  }
  size_t b = 0, o = 0;
  for (int64_t size : to) {
    if (size == 1) {
      if (o >= ones.size()) return std::nullopt;
      out.push_back(ones[o++]);
    } else {
      if (b >= big.size() || big_sizes[b] != size) return std::nullopt;
      out.push_back(big[b++]);
    }
  }
  if (b != big.size()) return std::nullopt;
  return out;
}

// The transpose dims that bring a tensor with `labels` to `canonical`.
std::optional<std::vector<int64_t>> PermTo(const Labels& labels, const Labels& canonical) {
  if (labels.size() != canonical.size()) return std::nullopt;
  std::vector<int64_t> perm;
  for (int c : canonical) {
    const auto at = std::find(labels.begin(), labels.end(), c);
    if (at == labels.end()) return std::nullopt;
    perm.push_back(at - labels.begin());
  }
  return perm;
}

// What a dim of the scores must hold: a batch label (B, K), a free label
// of Q (F0, F1), or S.
int ClassOf(int label) { return label == kB || label == kK ? 0 : label == kS ? 2 : 1; }

// Size-1 dims hold one index, so their labels may be exchanged freely:
// gives each size-1 dim of the scores `s` a label of the class its
// position needs (`wanted`), from the labels the size-1 dims hold.
// nullopt when they do not fit.
std::optional<Labels> FitUnitDims(const Labels& s, const std::vector<int64_t>& sizes,
                                  const std::vector<int>& wanted) {
  Labels free_labels;
  for (size_t i = 0; i < s.size(); ++i) {
    if (sizes[i] == 1) free_labels.push_back(s[i]);
  }
  Labels out = s;
  for (size_t i = 0; i < s.size(); ++i) {
    if (sizes[i] != 1) continue;
    auto fits = [&](int label) { return ClassOf(label) == wanted[i]; };
    const auto at = std::find_if(free_labels.begin(), free_labels.end(), fits);
    if (at == free_labels.end()) return std::nullopt;
    out[i] = *at;
    free_labels.erase(at);
  }
  return out;
}

bool OneEach(const Side& s, size_t batch, size_t free) {
  return s.batch.size() == batch && s.contracting.size() == 1 && s.free.size() == free;
}

}  // namespace

std::optional<GroupedDots> AnalyzeGroupedDots(const HloInstruction* score_dot,
                                              const HloInstruction* layout,
                                              const HloInstruction* out_dot,
                                              const HloInstruction* p) {
  if (score_dot->opcode() != HloOpcode::kDot || out_dot->opcode() != HloOpcode::kDot ||
      Rank(score_dot) != 5 || Rank(out_dot) != 5 || Rank(p) != 5) {
    return std::nullopt;
  }
  const int qi = Rank(score_dot->operand(0)) == 5 ? 0 : 1;
  HloInstruction* q = score_dot->operand(qi);
  HloInstruction* k = score_dot->operand(1 - qi);
  const Side qs = SideOf(score_dot, qi), ks = SideOf(score_dot, 1 - qi);
  if (Rank(q) != 5 || Rank(k) != 4 || !OneEach(qs, 2, 2) || !OneEach(ks, 2, 1)) return std::nullopt;
  // The batch pair on Q's earlier dim is B (so JAX's [B, T, K, G, D] needs
  // no transpose); which is which does not change the result.
  Labels ql(5), kl(4);
  for (int i = 0; i < 2; ++i) {
    const bool first = qs.batch[i] < qs.batch[1 - i];
    ql[qs.batch[i]] = kl[ks.batch[i]] = first ? kB : kK;
  }
  ql[qs.contracting[0]] = kl[ks.contracting[0]] = kD;
  kl[ks.free[0]] = kS;
  ql[qs.free[0]] = kF0;
  ql[qs.free[1]] = kF1;
  // The output dot: p's batch dims B and K, contracting S (its last).
  const int pi = out_dot->operand(0) == p ? 0 : 1;
  if (out_dot->operand(pi) != p || out_dot->operand(1 - pi) == p) return std::nullopt;
  HloInstruction* v = out_dot->operand(1 - pi);
  const Side ps = SideOf(out_dot, pi), vs = SideOf(out_dot, 1 - pi);
  if (Rank(v) != 4 || !OneEach(ps, 2, 2) || !OneEach(vs, 2, 1) || ps.contracting[0] != 4) {
    return std::nullopt;
  }
  std::vector<int> wanted(5, 1);  // Q's free dims (T at 3, G)
  wanted[4] = 2;
  for (int64_t d : ps.batch) wanted[d] = 0;
  std::optional<Labels> sl = ThroughLayout(
      layout, qi == 0 ? ResultLabels(ql, qs, kl, ks) : ResultLabels(kl, ks, ql, qs));
  if (sl.has_value()) sl = FitUnitDims(*sl, p->shape().dimensions(), wanted);
  if (!sl.has_value() || (*sl)[4] != kS || ((*sl)[3] != kF0 && (*sl)[3] != kF1)) {
    return std::nullopt;
  }
  const int t = (*sl)[3];
  for (Labels* l : {&ql, &*sl}) {
    for (int& x : *l) {
      if (x == kF0 || x == kF1) x = x == t ? kT : kG;
    }
  }
  Labels vl(4);
  for (int i = 0; i < 2; ++i) {
    const int label = (*sl)[ps.batch[i]];
    if (label != kB && label != kK) return std::nullopt;
    vl[vs.batch[i]] = label;
  }
  vl[vs.contracting[0]] = kS;
  vl[vs.free[0]] = kD;
  const Labels out_canonical = {kB, kK, kG, kT, kD};
  std::optional<std::vector<int64_t>> q_perm = PermTo(ql, out_canonical);
  std::optional<std::vector<int64_t>> k_perm = PermTo(kl, {kB, kK, kS, kD});
  std::optional<std::vector<int64_t>> v_perm = PermTo(vl, {kB, kK, kS, kD});
  // Transpose(o, out_perm) has the output's labels: out_perm[j] = where o
  // keeps the output's dim j.
  std::optional<std::vector<int64_t>> out_perm = PermTo(
      out_canonical, pi == 0 ? ResultLabels(*sl, ps, vl, vs) : ResultLabels(vl, vs, *sl, ps));
  if (!q_perm || !k_perm || !v_perm || !out_perm) return std::nullopt;
  const int64_t s_batch = std::find(sl->begin(), sl->end(), kB) - sl->begin();
  return GroupedDots{q, k, v, *q_perm, *k_perm, *v_perm, *out_perm, s_batch};
}

}  // namespace xla
