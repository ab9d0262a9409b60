#include "xla/hlo/transforms/hlo_cse.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "xla/hlo/transforms/hlo_util.h"

namespace xla {
namespace {

bool IsCandidate(const HloInstruction& instr,
                 const absl::flat_hash_set<const HloInstruction*>& control_preds) {
  if (!instr.control_predecessors().empty() || control_preds.contains(&instr)) return false;
  if (instr.opcode() == HloOpcode::kParameter || IsRngOpcode(instr.opcode())) return false;
  if (instr.opcode() == HloOpcode::kConstant && instr.literal().elided()) return false;
  return !HasSideEffect(instr);
}

bool AttrsEquivalent(const HloInstruction& a, const HloInstruction& b) {
  auto skip = [](AttrId id) { return id == AttrId::kMetadata; };
  auto ia = a.attrs().begin(), ib = b.attrs().begin();
  while (true) {
    while (ia != a.attrs().end() && skip(ia->first)) ++ia;
    while (ib != b.attrs().end() && skip(ib->first)) ++ib;
    if (ia == a.attrs().end() || ib == b.attrs().end()) {
      return ia == a.attrs().end() && ib == b.attrs().end();
    }
    if (*ia != *ib) return false;
    ++ia;
    ++ib;
  }
}

size_t HashOf(const HloInstruction& instr) {
  const Shape& shape = instr.shape();
  size_t h = absl::HashOf(static_cast<int>(instr.opcode()), static_cast<int>(shape.element_type()),
                          shape.dimensions(), shape.tuple_shapes_size(), instr.operand_count());
  // Operands by identity (unique ids may be unassigned in parsed modules).
  for (const HloInstruction* op : instr.operands()) h = absl::HashOf(h, op);
  if (instr.has_literal()) {
    absl::Span<const uint8_t> data = instr.literal().data();
    h = absl::HashOf(h, absl::string_view(reinterpret_cast<const char*>(data.data()), data.size()));
  }
  return h;
}

bool CseComputation(HloComputation* computation) {
  const absl::flat_hash_set<const HloInstruction*> control_preds = ControlPredecessorSet(*computation);
  absl::flat_hash_map<size_t, std::vector<HloInstruction*>> seen;
  bool changed = false;
  for (HloInstruction* instr : computation->MakePostOrder()) {
    if (!IsCandidate(*instr, control_preds)) continue;
    std::vector<HloInstruction*>& bucket = seen[HashOf(*instr)];
    HloInstruction* match = nullptr;
    for (HloInstruction* earlier : bucket) {
      if (InstructionsEquivalent(*earlier, *instr)) {
        match = earlier;
        break;
      }
    }
    if (match == nullptr) {
      bucket.push_back(instr);
      continue;
    }
    if (ReplaceInstruction(instr, match).ok()) changed = true;
  }
  return changed;
}

}  // namespace

bool InstructionsEquivalent(const HloInstruction& a, const HloInstruction& b) {
  if (a.opcode() != b.opcode() || a.shape() != b.shape() || a.operands() != b.operands() ||
      a.parameter_number() != b.parameter_number() || a.has_literal() != b.has_literal()) {
    return false;
  }
  if (a.has_literal() && a.literal() != b.literal()) return false;
  return AttrsEquivalent(a, b);
}

absl::StatusOr<bool> HloCSE::Run(HloModule* module) {
  bool changed = false;
  for (const auto& computation : module->computations()) changed |= CseComputation(computation.get());
  return changed;
}

}  // namespace xla
