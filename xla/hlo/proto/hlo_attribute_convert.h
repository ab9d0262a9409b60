// Conversion of one instruction attribute (AttrId + AttrValue, see
// xla/hlo/ir/hlo_attribute.h) to and from HloAttributeProto. Used by
// hlo_proto_convert.cc; computations are referenced by their proto ids.
//
// Pure functions; thread-safe as long as the maps are not mutated.
#ifndef XLA_HLO_PROTO_HLO_ATTRIBUTE_CONVERT_H_
#define XLA_HLO_PROTO_HLO_ATTRIBUTE_CONVERT_H_

#include <cstdint>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/hlo/ir/hlo_attribute.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/proto/hlo.pb.h"

namespace xla {

// Maps each computation of the module being written to its proto id.
using ComputationIdMap = absl::flat_hash_map<const HloComputation*, int64_t>;
// Maps each proto computation id of the module being read to the rebuilt
// computation.
using ComputationByIdMap = absl::flat_hash_map<int64_t, HloComputation*>;

// The proto form of attribute `id` with `value`. The value's alternative must
// be the one that the attribute's kind uses, and every computation it names
// must be in `ids`; both are programmer errors (XLA_CHECK) otherwise.
HloAttributeProto AttributeToProto(AttrId id, const AttrValue& value, const ComputationIdMap& ids);

// The attribute a proto describes. Fails with InvalidArgumentError (naming
// `field`, the attribute and the bad value) for: an unknown attribute name; a
// value case that does not match the attribute's kind (or no value); an
// identifier not in the attribute's allowed list; malformed dim_labels; an
// invalid shape; a computation id that names no computation; an iota replica
// group whose dimensions are negative, do not multiply out, or whose
// transpose is not a permutation, or explicit groups mixed with iota fields.
absl::StatusOr<std::pair<AttrId, AttrValue>> AttributeFromProto(
    const HloAttributeProto& proto, const ComputationByIdMap& computations,
    absl::string_view field);

}  // namespace xla

#endif  // XLA_HLO_PROTO_HLO_ATTRIBUTE_CONVERT_H_
