#include "xla/service/fusion/attention_rewriter.h"

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
#include "xla/backends/gpu/ffi/te_fused_attention.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/transforms/hlo_util.h"
#include "xla/hlo/transforms/op_builder.h"

namespace xla {
namespace {

// The most negative finite fill that still counts as "masked out": see
// the header (exp(fill - rowmax) underflows to exactly 0 in f32).
constexpr double kLargestFill = -1e9;
// A mask expression is evaluated at compile time up to this many elements
// (a 4096 x 4096 causal mask) and this many instructions.
constexpr int64_t kMaxMaskElements = int64_t{1} << 24;
constexpr int kMaxMaskInstructions = 64;
// NVTE_QKV_Layout BSHD_BSHD_BSHD and NVTE_Mask_Type values.
constexpr int64_t kLayoutBshd = 9;
constexpr int64_t kMaskNone = 0, kMaskCausal = 2;

bool IsF32(const HloInstruction* i) { return i->shape().element_type() == PrimitiveType::F32; }

std::vector<int64_t> Iota(int64_t n) {
  std::vector<int64_t> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

int64_t Rank(const HloInstruction* i) { return static_cast<int64_t>(i->shape().dimensions().size()); }

// An f32 dot of two rank n+2 operands with n batch dims and one
// contracting dim each, as permutations that bring each operand to the
// canonical order [batch..., free, contracting]: the dot's result is
// [batch..., lhs free, rhs free].
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

std::optional<DotRoles> Roles(const HloInstruction* dot, int64_t n) {
  if (dot->opcode() != HloOpcode::kDot || !IsF32(dot) || !IsF32(dot->operand(0)) ||
      !IsF32(dot->operand(1)) || Rank(dot->operand(0)) != n + 2 || Rank(dot->operand(1)) != n + 2) {
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

// `computation` is (x, y) -> opcode(x, y) over f32 scalars.
bool IsScalarReducer(const HloComputation* computation, HloOpcode opcode) {
  if (computation == nullptr || computation->num_parameters() != 2) return false;
  const HloInstruction* root = computation->root_instruction();
  if (root->opcode() != opcode || !IsF32(root) || Rank(root) != 0) return false;
  const HloInstruction* a = root->operand(0);
  const HloInstruction* b = root->operand(1);
  return a != b && a->opcode() == HloOpcode::kParameter && b->opcode() == HloOpcode::kParameter;
}

// reduce(input, init) over the last dimension with `opcode` and `init`.
bool IsLastDimReduce(const HloInstruction* r, const HloInstruction* input, HloOpcode opcode,
                     double init) {
  return r->opcode() == HloOpcode::kReduce && r->operand_count() == 2 && r->operand(0) == input &&
         r->dimensions() == std::vector<int64_t>{Rank(input) - 1} &&
         IsUniformConstantEqualTo(*r->operand(1), init) && IsScalarReducer(r->to_apply(), opcode);
}

// Steps through reshapes and order-keeping, size-keeping broadcasts (JAX's
// keepdims chains), which all keep the elements' linear order.
HloInstruction* PeelKeepdims(HloInstruction* x) {
  while (true) {
    const bool order_keeping_broadcast =
        x->opcode() == HloOpcode::kBroadcast &&
        ElementCountOrZero(x->shape()) == ElementCountOrZero(x->operand(0)->shape()) &&
        std::is_sorted(x->dimensions().begin(), x->dimensions().end());
    if (x->opcode() != HloOpcode::kReshape && !order_keeping_broadcast) return x;
    x = x->operand(0);
  }
}

// Whether `b` broadcasts `row` (shape = b's without its last dim) along
// b's last dimension, possibly through a keepdims chain.
bool IsRowBroadcastOf(const HloInstruction* b, const HloInstruction* row) {
  const int64_t r = Rank(b);
  return b->opcode() == HloOpcode::kBroadcast && r > 0 && b->dimensions() == Iota(r - 1) &&
         PeelKeepdims(b->operand(0)) == row &&
         row->shape().dimensions() == b->operand(0)->shape().dimensions();
}

// The instruction's value when it is computed from constants and iotas
// only (no parameters, no called computations), evaluated in a scratch
// computation; nullopt otherwise or when too large.
std::optional<Literal> EvaluateParameterFree(const HloInstruction* root) {
  if (ElementCountOrZero(root->shape()) > kMaxMaskElements) return std::nullopt;
  std::vector<const HloInstruction*> order;  // post-order
  absl::flat_hash_map<const HloInstruction*, bool> seen;
  std::vector<std::pair<const HloInstruction*, size_t>> stack = {{root, 0}};
  while (!stack.empty()) {
    auto& [instr, next] = stack.back();
    if (next == 0) {
      if (instr->opcode() == HloOpcode::kParameter || !instr->called_computations().empty() ||
          HasSideEffect(*instr) || IsRngOpcode(instr->opcode()) || !instr->shape().IsArray() ||
          ElementCountOrZero(instr->shape()) > kMaxMaskElements) {
        return std::nullopt;
      }
    }
    if (next < instr->operands().size()) {
      const HloInstruction* op = instr->operand(next++);
      if (!seen[op]) {
        seen[op] = true;
        stack.push_back({op, 0});
      }
      continue;
    }
    order.push_back(instr);
    stack.pop_back();
    if (static_cast<int>(order.size()) > kMaxMaskInstructions) return std::nullopt;
  }
  HloComputation scratch("attention_mask_scratch");
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> clones;
  for (const HloInstruction* instr : order) {
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* op : instr->operands()) operands.push_back(clones.at(op));
    clones[instr] = scratch.AddInstruction(
        instr->CloneWithNewOperands(instr->shape(), operands, instr->name()));
  }
  scratch.set_root_instruction(clones.at(root));
  absl::StatusOr<Literal> value = HloEvaluator(EvaluatorOptions()).EvaluateComputation(scratch, {});
  if (!value.ok()) return std::nullopt;
  return *std::move(value);
}

// What a mask expression of the scores' shape [batch..., Sq, Skv] hides.
enum class MaskPattern { kNone, kCausal };

// Classifies `mask` (pred, or f32 additive) by evaluating it at compile
// time: `visible(value)` says whether an element lets its key through
// (nullopt: a value no pattern allows). The mask may depend only on the
// query and key positions: a broadcast over the batch dims is peeled first.
template <typename Visible>
std::optional<MaskPattern> ClassifyMask(const HloInstruction* mask, Visible visible) {
  const int64_t r = Rank(mask);
  const int64_t sq = mask->shape().dimensions()[r - 2];
  const int64_t skv = mask->shape().dimensions()[r - 1];
  // The dims of the evaluated value that are the query and key positions.
  const HloInstruction* source = mask;
  if (mask->opcode() == HloOpcode::kBroadcast && mask->dimensions() == std::vector<int64_t>{r - 2, r - 1}) {
    source = mask->operand(0);
  }
  std::optional<Literal> value = EvaluateParameterFree(source);
  if (!value.has_value()) return std::nullopt;
  bool all_visible = true, causal = true;
  const int64_t n = value->element_count();
  for (int64_t e = 0; e < n; ++e) {
    const std::optional<bool> v = visible(value->GetDouble(e));
    if (!v.has_value()) return std::nullopt;
    // Row-major: the last two dims are the key and query positions.
    const int64_t j = e % skv, i = (e / skv) % sq;
    all_visible = all_visible && *v;
    causal = causal && (*v == (j <= i));
    if (!all_visible && !causal) return std::nullopt;
  }
  return all_visible ? MaskPattern::kNone : MaskPattern::kCausal;
}

// A finite fill at most kLargestFill, or -inf.
bool IsMaskingFill(double fill) { return fill <= kLargestFill; }

// Everything the rewrite needs from one match.
struct Match {
  HloInstruction* output = nullptr;  // the P.V dot
  HloInstruction *q = nullptr, *k = nullptr, *v = nullptr;
  // Transposes to [batch..., S, D] (Q and K: free, contracting; V:
  // contracting, free).
  std::vector<int64_t> q_perm, k_perm, v_perm;
  bool v_first = false;  // dot(v, p): the output is [batch..., Dv, Sq]
  // Grouped-query heads: K and V are each head of k_groups/v_groups
  // repeated `repeat` times (jnp.repeat), read without the copy.
  int64_t repeat = 1;
  double scale = 1.0;
  MaskPattern mask = MaskPattern::kNone;
};

// Peels an optional mask off the masked scores `s`: the unmasked scores
// and the mask's pattern, or nullopt when `s` is masked in a way the kernel
// does not compute exactly.
std::optional<std::pair<HloInstruction*, MaskPattern>> PeelMask(HloInstruction* s) {
  if (s->opcode() == HloOpcode::kSelect) {
    for (int fill_index : {2, 1}) {
      const Literal* fill = UniformConstant(*s->operand(fill_index));
      if (fill == nullptr || !IsMaskingFill(fill->GetDouble(0))) continue;
      const bool fill_when_false = fill_index == 2;
      std::optional<MaskPattern> pattern = ClassifyMask(
          s->operand(0), [&](double p) -> std::optional<bool> { return (p != 0) == fill_when_false; });
      if (!pattern.has_value()) return std::nullopt;
      return std::make_pair(s->operand(3 - fill_index), *pattern);
    }
    return std::nullopt;
  }
  if (s->opcode() == HloOpcode::kAdd) {
    for (int mask_index : {1, 0}) {
      std::optional<MaskPattern> pattern =
          ClassifyMask(s->operand(mask_index), [](double a) -> std::optional<bool> {
            if (a == 0) return true;
            if (IsMaskingFill(a)) return false;
            return std::nullopt;
          });
      if (pattern.has_value()) return std::make_pair(s->operand(1 - mask_index), *pattern);
    }
    return std::nullopt;
  }
  return std::make_pair(s, MaskPattern::kNone);
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

bool OnlyUsers(const HloInstruction* i, std::vector<const HloInstruction*> users) {
  if (i->users().size() != users.size()) return false;
  for (const HloInstruction* u : i->users()) {
    if (std::find(users.begin(), users.end(), u) == users.end()) return false;
  }
  return i->parent() == nullptr || i != i->parent()->root_instruction();
}

// The normalized probabilities' numerator and row sum: e / bcast(sum) or
// e * bcast(1 / sum).
std::optional<std::pair<HloInstruction*, HloInstruction*>> PeelNormalization(HloInstruction* p) {
  if (p->opcode() != HloOpcode::kDivide && p->opcode() != HloOpcode::kMultiply) return std::nullopt;
  HloInstruction* e = p->operand(0);
  const HloInstruction* b = p->operand(1);
  if (b->opcode() != HloOpcode::kBroadcast) return std::nullopt;
  HloInstruction* row = PeelKeepdims(b->operand(0));
  if (!IsRowBroadcastOf(b, row)) return std::nullopt;
  HloInstruction* sum = row;
  if (p->opcode() == HloOpcode::kMultiply) {  // e * (1 / sum)
    if (row->opcode() != HloOpcode::kDivide || !IsUniformConstantEqualTo(*row->operand(0), 1.0)) {
      return std::nullopt;
    }
    sum = row->operand(1);
  }
  if (!IsLastDimReduce(sum, e, HloOpcode::kAdd, 0.0)) return std::nullopt;
  return std::make_pair(e, sum);
}

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

std::optional<Match> MatchAttention(HloInstruction* out) {
  if (out->opcode() != HloOpcode::kDot || Rank(out) < 3) return std::nullopt;
  const int64_t n = Rank(out) - 2;
  std::optional<DotRoles> out_roles = Roles(out, n);
  if (!out_roles.has_value()) return std::nullopt;
  // p's canonical order must be its own: [batch..., Sq, Skv] contracting Skv.
  const std::vector<int64_t> p_perm = Iota(n + 2);
  const bool v_first = out_roles->rhs_perm == p_perm && out_roles->lhs_perm != p_perm;
  if (!v_first && out_roles->lhs_perm != p_perm) return std::nullopt;
  HloInstruction* p = out->operand(v_first ? 1 : 0);
  std::vector<int64_t> v_perm = v_first ? out_roles->lhs_perm : out_roles->rhs_perm;
  std::swap(v_perm[n], v_perm[n + 1]);  // V: [batch..., Skv (contracting), Dv]
  std::optional<std::pair<HloInstruction*, HloInstruction*>> norm = PeelNormalization(p);
  if (!norm.has_value()) return std::nullopt;
  auto [e, sum] = *norm;
  if (e->opcode() != HloOpcode::kExp) return std::nullopt;
  HloInstruction* sub = e->operand(0);
  if (sub->opcode() != HloOpcode::kSubtract) return std::nullopt;
  HloInstruction* s = sub->operand(0);
  const HloInstruction* m = sub->operand(1);
  if (m->opcode() != HloOpcode::kBroadcast) return std::nullopt;
  // The row max: reduce-max(s, -inf), maybe clamped by maximum(., -inf)
  // (jax.nn.softmax's `initial`).
  const HloInstruction* row = PeelKeepdims(m->operand(0));
  if (!IsRowBroadcastOf(m, row)) return std::nullopt;
  const double neg_inf = -std::numeric_limits<double>::infinity();
  const HloInstruction* max = row;
  if (max->opcode() == HloOpcode::kMaximum && IsUniformConstantEqualTo(*max->operand(1), neg_inf)) {
    max = max->operand(0);
  }
  if (!IsLastDimReduce(max, s, HloOpcode::kMaximum, neg_inf)) return std::nullopt;
  // Every intermediate feeds only the pattern (else the fused call would
  // not save the unfused work).
  if (!OnlyUsers(p, {out}) || !OnlyUsers(e, {p, sum}) || !OnlyUsers(sub, {e}) ||
      !OnlyUsers(s, {max, sub})) {
    return std::nullopt;
  }
  std::optional<std::pair<HloInstruction*, MaskPattern>> masked = PeelMask(s);
  if (!masked.has_value()) return std::nullopt;
  auto [scaled, mask] = *masked;
  if (scaled != s && !OnlyUsers(scaled, {s})) return std::nullopt;
  auto [scores, scale] = PeelScale(scaled);
  if (scores != scaled && !OnlyUsers(scores, {scaled})) return std::nullopt;
  std::optional<DotRoles> score_roles = Roles(scores, n);
  if (!score_roles.has_value() || !std::isfinite(scale)) return std::nullopt;
  if (!IsF32(s) || !IsF32(e) || !IsF32(p)) return std::nullopt;
  Match match;
  match.output = out;
  match.q = scores->operand(0);
  match.k = scores->operand(1);
  match.v = out->operand(v_first ? 0 : 1);
  match.q_perm = score_roles->lhs_perm;
  match.k_perm = score_roles->rhs_perm;
  match.v_perm = v_perm;
  match.v_first = v_first;
  FindGroupedHeads(match);
  match.scale = scale;
  match.mask = mask;
  return match;
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

absl::Status Rewrite(const Match& m) {
  HloComputation* computation = m.output->parent();
  OpBuilder b(computation);
  HloInstruction* q = ToBshd(b, m.q, m.q_perm, "attention_q");
  HloInstruction* k = ToBshd(b, m.k, m.k_perm, "attention_k");
  HloInstruction* v = ToBshd(b, m.v, m.v_perm, "attention_v");
  const std::vector<int64_t>& qd = q->shape().dimensions();  // [B, Sq, H, D]
  const int64_t batch = qd[0], sq = qd[1], heads = qd[2], dqk = qd[3];
  const int64_t skv = k->shape().dimensions()[1];
  const int64_t dv = v->shape().dimensions()[3];
  // Operands TE's call takes but this use does not read: an empty bias,
  // the dropout seed, cu_seqlens and offsets.
  HloInstruction* empty = b.Op(HloOpcode::kConstant, Shape::Array(PrimitiveType::F32, {0}), {},
                               "attention_unused");
  empty->set_literal(Literal(Shape::Array(PrimitiveType::F32, {0})));
  HloInstruction* seed = b.Op(HloOpcode::kConstant, Shape::Array(PrimitiveType::U32, {2}), {},
                              "attention_seed");
  seed->set_literal(Literal(Shape::Array(PrimitiveType::U32, {2})));
  HloInstruction* cu = b.Op(HloOpcode::kConstant, Shape::Array(PrimitiveType::S32, {batch + 1}), {},
                            "attention_cu_seqlens");
  cu->set_literal(Literal(Shape::Array(PrimitiveType::S32, {batch + 1})));
  const Shape result = Shape::Tuple({
      Shape::Array(PrimitiveType::F32, {batch, sq, heads, dv}),     // output
      Shape::Array(PrimitiveType::F32, {batch, heads, sq, 1}),      // softmax_aux
      Shape::Array(PrimitiveType::U32, {2}),                        // rng_state
      Shape::Array(PrimitiveType::U8, {0}),                         // workspace
  });
  HloInstruction* call = b.Op(HloOpcode::kCustomCall, result,
                              {q, k, v, empty, seed, cu, cu, empty, empty}, "fused_attention");
  call->SetAttr(AttrId::kCustomCallTarget, std::string(gpu::ffi::kTeFusedAttnForwardTarget));
  call->SetAttr(AttrId::kApiVersion, std::string("API_VERSION_TYPED_FFI"));
  call->SetAttr(
      AttrId::kBackendConfig,
      absl::StrFormat(
          "{attn_heads = %d : i64, bias_type = 0 : i64, dropout_probability = 0.0 : f64, "
          "input_batch = %d : i64, is_training = false, kv_max_seqlen = %d : i64, "
          "mask_type = %d : i64, num_gqa_groups = %d : i64, q_max_seqlen = %d : i64, "
          "qk_head_dim = %d : i64, qkv_layout = %d : i64, scaling_factor = %.17e : f64, "
          "v_head_dim = %d : i64, window_size_left = -1 : i64, window_size_right = -1 : i64}",
          heads, batch, skv, m.mask == MaskPattern::kCausal ? kMaskCausal : kMaskNone,
          heads / m.repeat, sq,
          dqk, kLayoutBshd, m.scale, dv));
  HloInstruction* o = b.GetTupleElement(call, gpu::ffi::kFwdOutput, "attention_output");
  // Back to [batch..., Sq, Dv], then to the dot's order.
  const int64_t n = Rank(m.output) - 2;
  std::vector<int64_t> canonical = m.q->shape().dimensions();
  for (int64_t i = 0; i < n; ++i) canonical[i] = m.q->shape().dimensions()[m.q_perm[i]];
  canonical[n] = sq;
  canonical[n + 1] = dv;
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
  for (const auto& computation : module->computations()) {
    std::vector<HloInstruction*> dots;
    for (const auto& instr : computation->instructions()) {
      if (instr->opcode() == HloOpcode::kDot) dots.push_back(instr.get());
    }
    for (HloInstruction* dot : dots) {
      std::optional<Match> match = MatchAttention(dot);
      if (!match.has_value()) continue;
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
