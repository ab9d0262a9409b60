#include "xla/backends/gpu/compiler/kernel_reuse.h"

#include <utility>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/ir/hlo_opcode.h"

namespace xla::gpu {
namespace {

// Attributes that say where an instruction came from, never what it
// computes: left out of the key.
bool IsProvenance(AttrId id) {
  return id == AttrId::kMetadata || id == AttrId::kOrigin || id == AttrId::kOriginalValue ||
         id == AttrId::kStatistics;
}

// Appends `text` with its length first, so that no two different sequences
// of fields concatenate to the same key.
void AppendField(std::string* key, absl::string_view text) {
  absl::StrAppend(key, text.size(), ":", text, ";");
}

void AppendAttributes(const HloInstruction& instr, std::string* key) {
  for (const auto& [id, value] : instr.attrs()) {
    if (IsProvenance(id)) continue;
    // Control predecessors name instructions; they are keyed by position
    // below.
    if (id == AttrId::kControlPredecessors) continue;
    absl::StrAppend(key, "@", static_cast<int>(id), "=");
    if (const auto* computation = std::get_if<HloComputation*>(&value)) {
      AppendField(key, *computation == nullptr ? "null" : ComputationStructureKey(**computation));
      continue;
    }
    if (const auto* list = std::get_if<std::vector<HloComputation*>>(&value)) {
      absl::StrAppend(key, "[", list->size(), "]");
      for (const HloComputation* c : *list) {
        AppendField(key, c == nullptr ? "null" : ComputationStructureKey(*c));
      }
      continue;
    }
    AppendField(key, AttrValueToString(id, value));
  }
}

}  // namespace

std::string ComputationStructureKey(const HloComputation& computation) {
  std::string key;
  const std::vector<HloInstruction*> order = computation.MakePostOrder();
  absl::flat_hash_map<const HloInstruction*, size_t> position;
  for (size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
  auto position_of = [&](const HloInstruction* instr) -> std::string {
    auto it = position.find(instr);
    return it == position.end() ? std::string("?") : absl::StrCat(it->second);
  };
  for (const HloInstruction* instr : order) {
    absl::StrAppend(&key, "{", HloOpcodeName(instr->opcode()), " ");
    AppendField(&key, instr->shape().ToString(/*print_layout=*/true));
    absl::StrAppend(&key, "(");
    for (const HloInstruction* operand : instr->operands()) {
      absl::StrAppend(&key, position_of(operand), ",");
    }
    absl::StrAppend(&key, ")");
    if (instr->opcode() == HloOpcode::kParameter) {
      absl::StrAppend(&key, "#", instr->parameter_number());
    }
    if (instr->has_literal()) {
      const Literal& literal = instr->literal();
      if (literal.elided()) {
        // Elided values are unknown: never the same as anything else.
        absl::StrAppend(&key, "elided@", reinterpret_cast<uintptr_t>(instr));
      } else {
        AppendField(&key, literal.shape().ToString(/*print_layout=*/true));
        absl::Span<const uint8_t> data = literal.data();
        AppendField(&key, absl::string_view(reinterpret_cast<const char*>(data.data()),
                                            data.size()));
      }
    }
    AppendAttributes(*instr, &key);
    if (!instr->control_predecessors().empty()) {
      absl::StrAppend(&key, "ctrl(");
      for (const HloInstruction* pred : instr->control_predecessors()) {
        absl::StrAppend(&key, position_of(pred), ",");
      }
      absl::StrAppend(&key, ")");
    }
    absl::StrAppend(&key, "}");
  }
  absl::StrAppend(&key, "root=", position_of(computation.root_instruction()));
  return key;
}

std::string KernelReuseKey(const HloInstruction& fusion, const KernelArgAliasing& aliasing) {
  std::string key;
  absl::StrAppend(&key, HloOpcodeName(fusion.opcode()), " ");
  AppendField(&key, fusion.shape().ToString(/*print_layout=*/true));
  absl::StrAppend(&key, "operands[", fusion.operand_count(), "]");
  for (const HloInstruction* operand : fusion.operands()) {
    AppendField(&key, operand->shape().ToString(/*print_layout=*/true));
  }
  AppendAttributes(fusion, &key);
  absl::StrAppend(&key, "aliases[");
  for (int64_t a : aliasing.output_aliases_operand) absl::StrAppend(&key, a, ",");
  absl::StrAppend(&key, "]noalias[");
  for (bool b : aliasing.noalias) absl::StrAppend(&key, b ? "1" : "0");
  absl::StrAppend(&key, "]");
  return key;
}

std::optional<ReusableKernel> KernelReuseCache::Find(const std::string& key) {
  auto it = kernels_.find(key);
  if (it == kernels_.end()) return std::nullopt;
  ++hits_;
  return it->second;
}

void KernelReuseCache::Add(std::string key, ReusableKernel kernel) {
  kernels_.emplace(std::move(key), std::move(kernel));
}

}  // namespace xla::gpu
