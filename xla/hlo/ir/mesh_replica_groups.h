// Replica groups in XLA's mesh-axes form, `mesh['x'=4,'y'=2] {'x'}`: the
// devices 0..N-1 laid out row-major over the named mesh axes, and one
// group per coordinate of the axes *not* listed in braces; a group holds
// the devices along the listed axes, ordered row-major over them in the
// listed order (the first listed is the outermost). So
// `mesh['x'=4,'y'=2] {'x'}` is {{0,2,4,6},{1,3,5,7}} and
// `mesh['x'=2,'y'=2] {'y','x'}` is {{0,2,1,3}}.
//
// Only whole axes over the default device order: sub-axes (`'x':(1)2`),
// explicit device lists and anything else are not expanded.
//
// Pure; thread-safe.
#ifndef XLA_HLO_IR_MESH_REPLICA_GROUPS_H_
#define XLA_HLO_IR_MESH_REPLICA_GROUPS_H_

#include <cstdint>
#include <vector>

#include "absl/strings/string_view.h"

namespace xla {

// The groups of `text` (the attribute's value as printed, starting with
// `mesh[`), or none when `text` is not the form above, names an axis twice,
// lists an axis the mesh lacks, has an axis size below 1, or spans more
// than 2^20 devices.
std::vector<std::vector<int64_t>> ExpandMeshReplicaGroups(absl::string_view text);

}  // namespace xla

#endif  // XLA_HLO_IR_MESH_REPLICA_GROUPS_H_
