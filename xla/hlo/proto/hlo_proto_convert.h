// Lossless conversion between HloModule (xla/hlo/ir/) and HloModuleProto
// (xla/hlo/proto/hlo.proto), plus, through xla_data_convert.h, the shape and
// literal conversions (ShapeToProto / ShapeFromProto, LiteralToProto /
// LiteralFromProto, ...).
//
// Round trip: ModuleToProto(*ModuleFromProto(ModuleToProto(m))) gives the
// same bytes as ModuleToProto(m) (under deterministic serialization), and
// every instruction prints the same ToString() text. Instruction unique ids
// are not part of the proto: the proto uses its own ids (computations and
// instructions numbered 0, 1, 2, ... in module order when written) and the
// rebuilt module hands out fresh unique ids in the same order.
//
// Thread-safety: both functions only read their argument and may run
// concurrently on the same module or proto; the module must not be mutated
// meanwhile.
#ifndef XLA_HLO_PROTO_HLO_PROTO_CONVERT_H_
#define XLA_HLO_PROTO_HLO_PROTO_CONVERT_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/hlo/proto/hlo.pb.h"
#include "xla/types/xla_data_convert.h"
#include "xla/util/proto_util.h"

namespace xla {

// Writes `module`. Never fails on a well-formed IR. Programmer errors in the
// IR abort with XLA_CHECK: an operand, control predecessor or called
// computation that does not belong to `module`, or an attribute value whose
// type does not match its kind. Every constant must hold a literal (as
// CreateConstant and the parser guarantee; the IR offers no way to check).
HloModuleProto ModuleToProto(const HloModule& module);

// Rebuilds a module from `proto`; the caller owns the result. Validates
// everything and returns InvalidArgumentError naming the field path (e.g.
// "HloModuleProto.computations[1].instructions[4].operand_ids[0]") and the
// bad value for: empty or repeated names; negative or repeated ids; unknown
// opcodes or attribute names; repeated attributes; attribute values of the
// wrong kind or out of their allowed set; invalid shapes or literals (see
// xla_data_convert.h); operand, control-predecessor, root or entry ids that
// name nothing, or name an instruction of another computation; parameter
// numbers on non-parameters, negative, repeated, or not below the
// computation's instruction count; a literal missing on a constant or present
// elsewhere, or whose shape differs from the instruction's; cycles among the
// instructions of a computation or among computations through their called
// computations; an entry name that differs from the entry computation's; and
// malformed config entries or debug sections. Never crashes on any input.
absl::StatusOr<std::unique_ptr<HloModule>> ModuleFromProto(const HloModuleProto& proto);

}  // namespace xla

#endif  // XLA_HLO_PROTO_HLO_PROTO_CONVERT_H_
