#include "xla/service/fusion/attention_mask.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/transforms/hlo_util.h"

namespace xla {
namespace {

// A parameter-free mask part is evaluated at compile time up to this many
// elements (a 4096 x 4096 causal mask) and this many instructions.
constexpr int64_t kMaxMaskElements = int64_t{1} << 24;
constexpr int kMaxMaskInstructions = 64;

int64_t Rank(const HloInstruction* i) { return static_cast<int64_t>(i->shape().dimensions().size()); }

// The instruction's value when it is computed from constants and iotas
// only (no parameters, no called computations), evaluated in a scratch
// computation; nullopt otherwise or when too large.
std::optional<Literal> EvaluateParameterFree(const HloInstruction* root) {
  if (!root->shape().IsArray() || ElementCountOrZero(root->shape()) > kMaxMaskElements) {
    return std::nullopt;
  }
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

// An expression and, for each of its dimensions, the score dimension it
// runs along (-1: a size-1 dimension that runs along none).
struct Mapped {
  const HloInstruction* x;
  std::vector<int64_t> map;
};

// One step through a broadcast, a transpose, a copy or a reshape that only
// adds or removes size-1 dimensions; nullopt for any other instruction.
std::optional<Mapped> PeelShapeOp(const Mapped& m) {
  const HloInstruction* x = m.x;
  if (x->operand_count() != 1) return std::nullopt;
  const HloInstruction* op = x->operand(0);
  const std::vector<int64_t>& od = op->shape().dimensions();
  const std::vector<int64_t>& xd = x->shape().dimensions();
  std::vector<int64_t> map(od.size(), -1);
  switch (x->opcode()) {
    case HloOpcode::kCopy:
      return Mapped{op, m.map};
    case HloOpcode::kBroadcast:
      for (size_t k = 0; k < od.size(); ++k) {
        const int64_t to = x->dimensions()[k];
        if (od[k] == xd[to]) map[k] = m.map[to];
      }
      return Mapped{op, map};
    case HloOpcode::kTranspose:
      for (size_t i = 0; i < xd.size(); ++i) map[x->dimensions()[i]] = m.map[i];
      return Mapped{op, map};
    case HloOpcode::kReshape: {
      std::vector<int64_t> from, to;  // the non-1 dims of each side
      for (size_t k = 0; k < od.size(); ++k) {
        if (od[k] != 1) from.push_back(k);
      }
      for (size_t k = 0; k < xd.size(); ++k) {
        if (xd[k] != 1) to.push_back(k);
      }
      if (from.size() != to.size()) return std::nullopt;
      for (size_t k = 0; k < from.size(); ++k) {
        if (od[from[k]] != xd[to[k]]) return std::nullopt;
        map[from[k]] = m.map[to[k]];
      }
      return Mapped{op, map};
    }
    default:
      return std::nullopt;
  }
}

Mapped PeelShapeOps(Mapped m) {
  while (std::optional<Mapped> next = PeelShapeOp(m)) m = *std::move(next);
  return m;
}

// The scores' geometry: n batch dims, then Sq and Skv at qdim and kdim;
// without a query axis (one query: [batch..., Skv]) qdim is -1 and Sq 1.
struct Scores {
  int64_t n, sq, skv, qdim, kdim;
  bool IsQuery(int64_t d) const { return qdim >= 0 && d == qdim; }
};

// Classifies an evaluated mask part of `m`'s mapping: `visible(value)`
// says whether an element lets its key through (nullopt: a value no
// pattern allows). Only "all visible" and "top-left causal" are
// accepted; the value may not vary along batch dims in any other way.
template <typename Visible>
std::optional<bool> ClassifyCausal(const Literal& value, const std::vector<int64_t>& map,
                                   const Scores& g, Visible visible) {
  const std::vector<int64_t>& dims = value.shape().dimensions();
  const int64_t rank = static_cast<int64_t>(dims.size());
  int64_t qdim = -1, kdim = -1;
  for (int64_t d = 0; d < rank; ++d) {
    if (g.IsQuery(map[d])) qdim = d;
    if (map[d] == g.kdim) kdim = d;
  }
  std::vector<int64_t> idx(rank, 0);
  bool all_visible = true;
  // A causal mask needs both positions (or an axis of one position).
  bool causal = (qdim >= 0 || g.sq == 1) && (kdim >= 0 || g.skv == 1);
  const int64_t count = value.element_count();
  for (int64_t e = 0; e < count; ++e) {
    const std::optional<bool> v = visible(value.GetDouble(e));
    if (!v.has_value()) return std::nullopt;
    const int64_t i = qdim >= 0 ? idx[qdim] : 0;
    const int64_t j = kdim >= 0 ? idx[kdim] : 0;
    all_visible = all_visible && *v;
    causal = causal && (*v == (j <= i));
    if (!all_visible && !causal) return std::nullopt;
    for (int64_t d = rank - 1; d >= 0 && ++idx[d] == dims[d]; --d) idx[d] = 0;
  }
  return !all_visible;
}

Mapped Identity(const HloInstruction* x) {
  std::vector<int64_t> map(Rank(x));
  for (int64_t d = 0; d < Rank(x); ++d) map[d] = d;
  return Mapped{x, map};
}

// Walks a pred mask: each leaf is a conjunct of visibility (`positive`)
// or a disjunct of hiddenness (not `positive`).
class MaskAnalysis {
 public:
  explicit MaskAnalysis(const Scores& g) : g_(g) {}

  bool Visit(Mapped m, bool positive) {
    m = PeelShapeOps(m);
    const HloInstruction* x = m.x;
    if (x->shape().element_type() != PrimitiveType::PRED) return false;
    switch (x->opcode()) {
      case HloOpcode::kNot:
        return Visit(Mapped{x->operand(0), m.map}, !positive);
      case HloOpcode::kAnd:
      case HloOpcode::kOr:
        // visible = a & b, or hidden = a | b: both parts are conjuncts.
        if ((x->opcode() == HloOpcode::kAnd) != positive) return false;
        return Visit(Mapped{x->operand(0), m.map}, positive) &&
               Visit(Mapped{x->operand(1), m.map}, positive);
      default:
        break;
    }
    if (std::optional<Literal> value = EvaluateParameterFree(x)) {
      std::optional<bool> causal = ClassifyCausal(
          *value, m.map, g_, [&](double v) -> std::optional<bool> { return (v != 0) == positive; });
      if (!causal.has_value()) return false;
      result_.causal = result_.causal || *causal;
      return true;
    }
    return x->opcode() == HloOpcode::kCompare && VisitLength(x, m.map, positive);
  }

  const AttentionMask& result() const { return result_; }

 private:
  // compare(index, len) in either order: a visible prefix of one axis.
  bool VisitLength(const HloInstruction* x, const std::vector<int64_t>& map, bool positive) {
    const PrimitiveType t = x->operand(0)->shape().element_type();
    if (t != PrimitiveType::S32 && t != PrimitiveType::S64) return false;
    for (int side : {0, 1}) {
      const Mapped index = PeelShapeOps(Mapped{x->operand(side), map});
      const Mapped len = PeelShapeOps(Mapped{x->operand(1 - side), map});
      const std::optional<int64_t> axis = IndexAxis(index);
      if (!axis.has_value()) continue;
      // The length may run along batch dims only.
      for (int64_t d : len.map) {
        if (d >= g_.n) return false;
      }
      // As "index DIR len".
      std::string dir = x->GetString(AttrId::kDirection);
      if (side == 1) {
        static const absl::flat_hash_map<std::string, std::string> kFlip = {
            {"LT", "GT"}, {"GT", "LT"}, {"LE", "GE"}, {"GE", "LE"}, {"EQ", "EQ"}, {"NE", "NE"}};
        dir = kFlip.at(dir);
      }
      // Visible iff index < len (or <= len): a prefix.
      const bool exclusive = positive ? dir == "LT" : dir == "GE";
      const bool inclusive = positive ? dir == "LE" : dir == "GT";
      if (!exclusive && !inclusive) return false;
      std::optional<AttentionLength>& slot = g_.IsQuery(*axis) ? result_.q_len : result_.kv_len;
      if (slot.has_value()) return false;  // two lengths on one axis
      slot = AttentionLength{const_cast<HloInstruction*>(len.x), len.map, inclusive};
      return true;
    }
    return false;
  }

  // When `m` is parameter-free and equals the query or the key index
  // everywhere (an iota, or the constant it was folded into): that axis.
  std::optional<int64_t> IndexAxis(const Mapped& m) const {
    int64_t dim = -1;
    for (size_t d = 0; d < m.map.size(); ++d) {
      if (g_.IsQuery(m.map[d]) || m.map[d] == g_.kdim) {
        if (dim >= 0) return std::nullopt;
        dim = static_cast<int64_t>(d);
      }
    }
    if (dim < 0) return std::nullopt;
    std::optional<Literal> value = EvaluateParameterFree(m.x);
    if (!value.has_value()) return std::nullopt;
    const std::vector<int64_t>& dims = value->shape().dimensions();
    int64_t stride = 1;
    for (size_t d = dim + 1; d < dims.size(); ++d) stride *= dims[d];
    for (int64_t e = 0; e < value->element_count(); ++e) {
      if (value->GetInt(e) != (e / stride) % dims[dim]) return std::nullopt;
    }
    return m.map[dim];
  }

  Scores g_;
  AttentionMask result_;
};

Scores GeometryOf(const HloInstruction* mask, bool query_axis) {
  const int64_t r = Rank(mask);
  const std::vector<int64_t>& d = mask->shape().dimensions();
  if (!query_axis) return Scores{r - 1, 1, d[r - 1], -1, r - 1};
  return Scores{r - 2, d[r - 2], d[r - 1], r - 2, r - 1};
}

}  // namespace

std::optional<AttentionMask> AnalyzeAttentionMask(const HloInstruction* mask,
                                                  bool visible_when_true, bool query_axis) {
  if (Rank(mask) < (query_axis ? 2 : 1)) return std::nullopt;
  MaskAnalysis analysis(GeometryOf(mask, query_axis));
  if (!analysis.Visit(Identity(mask), visible_when_true)) return std::nullopt;
  return analysis.result();
}

std::optional<AttentionMask> AnalyzeAdditiveMask(const HloInstruction* a, double largest_fill) {
  if (Rank(a) < 2) return std::nullopt;
  const Mapped m = PeelShapeOps(Identity(a));
  std::optional<Literal> value = EvaluateParameterFree(m.x);
  if (!value.has_value()) return std::nullopt;
  std::optional<bool> causal =
      ClassifyCausal(*value, m.map, GeometryOf(a, true), [&](double v) -> std::optional<bool> {
        if (v == 0) return true;
        if (v <= largest_fill) return false;
        return std::nullopt;
      });
  if (!causal.has_value()) return std::nullopt;
  AttentionMask mask;
  mask.causal = *causal;
  return mask;
}

}  // namespace xla
