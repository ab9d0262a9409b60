// The HLO verifier: structural, type and shape checks over a module.
//
// Checks, for every computation: a root that belongs to it; unique
// instruction names; parameter numbers dense from 0 with no duplicates;
// operands and control
// predecessors from the same computation; no cycles; operand counts that
// match the opcode table. For every instruction: element types allowed for
// its opcode (element_type_rules.h), and a declared shape compatible with
// InferShape's result (layouts and dynamic-dimension flags ignored; for
// "declared element type" ops only the dimensions are inferred). Shape
// inference also checks attribute indices and the signatures of called
// computations (reducers take 2N scalars, while conditions return pred[],
// branch parameters match the operands, ...). For the module: an entry
// computation, unique computation names, called computations that belong to
// the module, are not the entry and form no call cycle, and an
// entry_computation_layout that matches the entry signature.
//
// Instruction names are only required to be unique within a computation:
// HLO text scopes names per computation (`p0` in a fusion and in the entry)
// and the parser keeps them as written.
//
// Every error is collected; the returned InvalidArgumentError lists them one
// per line. An instruction the parser read is named with the `file:line:col`
// where it was written (HloInstruction::source_location and
// HloModule::source_file), and VerifyModule starts every other line with the
// file, e.g.
//   model.hlo:12:3: instruction 'add.3' (add): inferred shape f32[4] but declared f32[5]
//   model.hlo: computation 'body': parameter numbers must be 0..1, ...
// The verifier only reads the IR. It is safe to run concurrently on a module
// that nobody mutates.
#ifndef XLA_HLO_VERIFIER_HLO_VERIFIER_H_
#define XLA_HLO_VERIFIER_HLO_VERIFIER_H_

#include "absl/status/status.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/hlo/ir/hlo_module.h"

namespace xla {

// Verifies the whole module: module-level checks, then every computation.
// OK when the module is well formed; otherwise InvalidArgumentError with all
// errors found (at most 100), one per line.
absl::Status VerifyModule(const HloModule& module);

// Verifies one computation: structure, then every instruction. Does not look
// at the module (entry, name uniqueness across computations, call graph).
absl::Status VerifyComputation(const HloComputation& computation);

// Verifies one instruction of a structurally sound computation: operand
// count, element types, and the declared shape against InferShape. Fails
// with the first problem.
absl::Status VerifyInstruction(const HloInstruction& instruction);

}  // namespace xla

#endif  // XLA_HLO_VERIFIER_HLO_VERIFIER_H_
