// MapInliner: replaces `map(a1..an), to_apply=f` by f's body applied to whole
// arrays, so that the map becomes ordinary elementwise HLO that the fusion
// passes and kernel emitters already handle.
//
// Each instruction of f is rebuilt over the map's shape: parameter i becomes
// operand i, a scalar constant becomes broadcast(constant), and an
// elementwise op (the opcode table's elementwise categories, convert,
// select, clamp) becomes the same op with the map's dimensions and its own
// element type. A map whose computation holds anything else (a nested map,
// a reduce, a call, a non-scalar value) is left alone, as is a map with
// control edges. Not thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_MAP_INLINER_H_
#define XLA_HLO_TRANSFORMS_MAP_INLINER_H_

#include "absl/status/statusor.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class MapInliner : public HloPass {
 public:
  absl::string_view name() const override { return "map-inliner"; }
  // Fails only on malformed IR (a map whose operand count differs from its
  // computation's parameters), naming the map.
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_MAP_INLINER_H_
