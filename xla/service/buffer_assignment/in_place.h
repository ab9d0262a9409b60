// Which operands an instruction may overwrite with its result.
//
// Purely structural: says whether the *kernel* for `user` stays correct when
// its output and operand `operand_index` are the same bytes. Whether the
// operand's value is still needed afterwards is liveness, decided by buffer
// assignment. Thread-safe.
#ifndef XLA_SERVICE_BUFFER_ASSIGNMENT_IN_PLACE_H_
#define XLA_SERVICE_BUFFER_ASSIGNMENT_IN_PLACE_H_

#include <cstdint>

#include "xla/hlo/ir/hlo_instruction.h"

namespace xla {

// True when `user` (whose result is one array) may write its result into
// the buffer of operand `operand_index`:
//   * dynamic-update-slice, operand 0 (the updated array);
//   * elementwise ops (the opcode table's elementwise categories, plus
//     select, clamp and convert) on an operand of the result's dimensions, layout and
//     byte size;
//   * loop fusions (kind=kLoop) whose fused parameter `operand_index` has
//     the result's dimensions, layout and byte size and reaches the fused
//     root only through elementwise ops of those dimensions, so element i
//     of the result is computed from element i of the operand only;
//   * loop fusions whose fused root is a dynamic-update-slice of fused
//     parameter `operand_index` (its operand 0) that nothing else in the
//     fusion reads: the kernel writes only the update window (the
//     emitters' dus_in_place kind, fusion_kernel_analysis.h).
// False for everything else, including out-of-range indices and tuple
// results.
bool CanShareOperandBuffer(const HloInstruction& user, int64_t operand_index);

// True when leaf `output_leaf` of a multi-output loop fusion `user` (a
// kLoop fusion whose shape is a flat tuple of arrays, all of the same
// dimensions, with a tuple fused root) may be written into the buffer of
// operand `operand_index`: the operand has that leaf's dimensions, layout
// and byte size, and every path from its fused parameter to the fused root
// goes through elementwise ops of those dimensions. The loop emitters
// compute every output element at an index before storing any of them
// (FusionEmitterCore::WriteLeaves), so the kernel reads element i of the
// operand before it overwrites it, whichever output overwrites it. This is
// how an optimizer step (parameter, first and second moment updated in one
// fusion) writes over donated parameters. For an array-shaped `user` with
// `output_leaf` 0 this is CanShareOperandBuffer(user, operand_index); false
// for everything else.
bool CanShareOperandBufferAt(const HloInstruction& user, int64_t operand_index,
                             int64_t output_leaf);

}  // namespace xla

#endif  // XLA_SERVICE_BUFFER_ASSIGNMENT_IN_PLACE_H_
