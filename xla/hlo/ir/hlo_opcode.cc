#include "xla/hlo/ir/hlo_opcode.h"

#include <array>

#include "absl/container/flat_hash_map.h"

namespace xla {
namespace {

struct OpcodeInfo {
  absl::string_view name;
  int arity;
  OpCategory category;
};

constexpr std::array<OpcodeInfo, kHloOpcodeCount> kOpcodes = {{
#define XLA_HLO_OPCODE_INFO_(e, name, arity, cat) {name, arity, OpCategory::cat},
    XLA_HLO_OPCODES(XLA_HLO_OPCODE_INFO_)
#undef XLA_HLO_OPCODE_INFO_
}};

}  // namespace

absl::string_view HloOpcodeName(HloOpcode op) { return kOpcodes[static_cast<int>(op)].name; }

std::optional<HloOpcode> HloOpcodeFromName(absl::string_view name) {
  static const auto* by_name = [] {
    auto* m = new absl::flat_hash_map<absl::string_view, HloOpcode>();
    for (int i = 0; i < kHloOpcodeCount; ++i) {
      m->emplace(kOpcodes[i].name, static_cast<HloOpcode>(i));
    }
    return m;
  }();
  auto it = by_name->find(name);
  if (it == by_name->end()) return std::nullopt;
  return it->second;
}

int HloOpcodeArity(HloOpcode op) { return kOpcodes[static_cast<int>(op)].arity; }

OpCategory HloOpcodeCategory(HloOpcode op) { return kOpcodes[static_cast<int>(op)].category; }

}  // namespace xla
