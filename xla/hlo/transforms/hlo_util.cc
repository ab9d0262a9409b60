#include "xla/hlo/transforms/hlo_util.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"

namespace xla {
namespace {

// Opcodes with effects beyond their result.
constexpr HloOpcode kSideEffectingOpcodes[] = {
    HloOpcode::kAddDependency,
    HloOpcode::kAfterAll,
    HloOpcode::kAllGather,
    HloOpcode::kAllGatherDone,
    HloOpcode::kAllGatherStart,
    HloOpcode::kAllReduce,
    HloOpcode::kAllReduceDone,
    HloOpcode::kAllReduceStart,
    HloOpcode::kAllToAll,
    HloOpcode::kAsyncDone,
    HloOpcode::kAsyncStart,
    HloOpcode::kAsyncUpdate,
    HloOpcode::kCollectiveBroadcast,
    HloOpcode::kCollectivePermute,
    HloOpcode::kCollectivePermuteDone,
    HloOpcode::kCollectivePermuteStart,
    HloOpcode::kCopyDone,
    HloOpcode::kCopyStart,
    HloOpcode::kInfeed,
    HloOpcode::kOutfeed,
    HloOpcode::kRaggedAllToAll,
    HloOpcode::kRecv,
    HloOpcode::kRecvDone,
    HloOpcode::kReduceScatter,
    HloOpcode::kRng,
    HloOpcode::kRngGetAndUpdateState,
    HloOpcode::kSend,
    HloOpcode::kSendDone,
};

constexpr HloOpcode kRngOpcodes[] = {
    HloOpcode::kRng,
    HloOpcode::kRngBitGenerator,
    HloOpcode::kRngGetAndUpdateState,
};

template <size_t N>
bool Contains(const HloOpcode (&table)[N], HloOpcode op) {
  return std::find(std::begin(table), std::end(table), op) != std::end(table);
}

bool HasSideEffectImpl(const HloInstruction& instr, int depth) {
  if (IsSideEffectingOpcode(instr.opcode())) return true;
  if (instr.opcode() == HloOpcode::kCustomCall &&
      instr.GetBool(AttrId::kCustomCallHasSideEffect)) {
    return true;
  }
  // Call graphs are acyclic (the verifier checks); the depth cap only guards
  // against unverified input.
  if (depth > 64) return true;
  for (const HloComputation* callee : instr.called_computations()) {
    if (callee == nullptr) continue;
    for (const auto& inner : callee->instructions()) {
      if (HasSideEffectImpl(*inner, depth + 1)) return true;
    }
  }
  return false;
}

}  // namespace

bool IsSideEffectingOpcode(HloOpcode opcode) { return Contains(kSideEffectingOpcodes, opcode); }

bool IsRngOpcode(HloOpcode opcode) { return Contains(kRngOpcodes, opcode); }

bool HasSideEffect(const HloInstruction& instr) { return HasSideEffectImpl(instr, 0); }

bool HasControlEdges(const HloInstruction& instr) {
  if (!instr.control_predecessors().empty()) return true;
  const HloComputation* parent = instr.parent();
  if (parent == nullptr) return false;
  for (const auto& other : parent->instructions()) {
    const auto& preds = other->control_predecessors();
    if (std::find(preds.begin(), preds.end(), &instr) != preds.end()) return true;
  }
  return false;
}

absl::flat_hash_set<const HloInstruction*> ControlPredecessorSet(const HloComputation& computation) {
  absl::flat_hash_set<const HloInstruction*> preds;
  for (const auto& i : computation.instructions()) {
    for (const HloInstruction* p : i->control_predecessors()) preds.insert(p);
  }
  return preds;
}

NameUniquer::NameUniquer(const HloComputation& computation) {
  for (const auto& i : computation.instructions()) used_.insert(i->name());
}

std::string NameUniquer::Unique(const std::string& base) {
  if (used_.insert(base).second) return base;
  for (int64_t n = 1;; ++n) {
    std::string candidate = absl::StrCat(base, ".", n);
    if (used_.insert(candidate).second) return candidate;
  }
}

absl::Status ReplaceInstruction(HloInstruction* old, HloInstruction* replacement) {
  absl::Status replaced = old->ReplaceAllUsesWith(replacement);
  if (!replaced.ok()) return replaced;
  if (old != replacement && old->parent() != nullptr) old->parent()->RemoveInstruction(old);
  return absl::OkStatus();
}

const Literal* UniformConstant(const HloInstruction& instr) {
  if (instr.opcode() == HloOpcode::kBroadcast) return UniformConstant(*instr.operand(0));
  if (instr.opcode() != HloOpcode::kConstant || !instr.has_literal()) return nullptr;
  const Literal& lit = instr.literal();
  if (lit.elided() || !lit.shape().IsArray() || lit.element_count() == 0) return nullptr;
  if (IsComplex(lit.shape().element_type())) return nullptr;
  const uint64_t first = lit.GetBits(0);
  for (int64_t i = 1; i < lit.element_count(); ++i) {
    if (lit.GetBits(i) != first) return nullptr;
  }
  return &lit;
}

bool IsUniformConstantEqualTo(const HloInstruction& instr, double value) {
  const Literal* lit = UniformConstant(instr);
  if (lit == nullptr) return false;
  const PrimitiveType type = lit->shape().element_type();
  if (IsInteger(type)) return static_cast<double>(lit->GetInt(0)) == value;
  if (!IsFloat(type)) return false;
  const double v = lit->GetDouble(0);
  return v == value && std::signbit(v) == std::signbit(value);
}

std::unique_ptr<HloInstruction> MakeScalarConstant(PrimitiveType type, double value,
                                                   std::string name) {
  Literal lit(Shape::Scalar(type));
  lit.SetDouble(0, value);
  auto instr = HloInstruction::CreateConstant(std::move(lit), std::move(name));
  instr->mutable_shape()->SetDefaultLayout();
  return instr;
}

HloInstruction* AddBroadcastOfScalar(HloComputation* computation, NameUniquer* names,
                                     HloInstruction* scalar, const Shape& shape) {
  if (shape.rank() == 0) return scalar;
  auto broadcast =
      HloInstruction::Create(HloOpcode::kBroadcast, shape, {scalar}, names->Unique("broadcast"));
  broadcast->SetAttr(AttrId::kDimensions, std::vector<int64_t>{});
  return computation->AddInstruction(std::move(broadcast));
}

int64_t ElementCountOrZero(const Shape& shape) {
  if (!shape.IsArray()) return 0;
  return shape.ElementCount().value_or(0);
}

}  // namespace xla
