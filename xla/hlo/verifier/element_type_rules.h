// Which element types each opcode accepts: one sparse table.
//
// Opcodes not in the table accept every type that their shape rule accepts
// (shape inference already insists on matching types where an op needs
// them). The table covers the ops whose semantics only exist for some types:
// bitwise logic on pred/integers, shifts and bit counts on integers,
// transcendental functions on floats (and complex), rounding on floats, ...
#ifndef XLA_HLO_VERIFIER_ELEMENT_TYPE_RULES_H_
#define XLA_HLO_VERIFIER_ELEMENT_TYPE_RULES_H_

#include "absl/status/status.h"
#include "xla/hlo/ir/hlo_instruction.h"

namespace xla {

// Checks the element types of the array operands of `instr` against the
// table. Fails with InvalidArgumentError naming the instruction, the operand,
// its type and the types the opcode accepts
// (`instruction 'x' (and): operand 0 has type f32; and needs pred or integer`).
// Pure; thread-safe on an unmutated module.
absl::Status CheckElementTypes(const HloInstruction& instr);

}  // namespace xla

#endif  // XLA_HLO_VERIFIER_ELEMENT_TYPE_RULES_H_
