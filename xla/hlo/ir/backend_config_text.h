// BackendConfigText: an instruction's backend_config attribute as the text
// its reader parses (a custom call's JSON, typed-FFI dictionary or einsum
// equation).
#ifndef XLA_HLO_IR_BACKEND_CONFIG_TEXT_H_
#define XLA_HLO_IR_BACKEND_CONFIG_TEXT_H_

#include <string>

#include "xla/hlo/ir/hlo_instruction.h"

namespace xla {

// The backend_config of `instr`: a quoted string unquoted and C-unescaped
// (as XLA prints JSON configs), anything else verbatim (a dictionary, or a
// quoted string whose escapes do not parse); empty when the attribute is
// absent or not text. Never fails; thread-safe (reads `instr` only).
std::string BackendConfigText(const HloInstruction& instr);

}  // namespace xla

#endif  // XLA_HLO_IR_BACKEND_CONFIG_TEXT_H_
