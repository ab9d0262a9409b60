// DevicePlacementAnnotationRemover: drops XLA's memory-placement annotation
// `custom-call(x), custom_call_target="annotate_device_placement"` (with a
// frontend attribute `_xla_buffer_placement="pinned_host"` or "device"),
// which JAX's memory kinds (`jax.device_put(x, memory_kind=...)`) leave in a
// program. It computes nothing: its result is its operand, wherever that
// lives. XLA's host-offloading passes read it as a request to keep the value
// in host memory; this compiler offloads only through MoveToHost /
// MoveToDevice (xla/backends/gpu/compiler/offload_emitter.h), so here every
// use of the annotation is made to use its operand and the value stays in
// device memory. Results are unchanged; only the placement hint is lost.
//
// An annotation that is not a one-operand identity (operand and result
// shapes differ) is malformed: the pass fails naming it.
//
// Not thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_DEVICE_PLACEMENT_ANNOTATION_REMOVER_H_
#define XLA_HLO_TRANSFORMS_DEVICE_PLACEMENT_ANNOTATION_REMOVER_H_

#include "absl/status/statusor.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

// The custom-call target XLA gives the memory-placement annotation.
inline constexpr char kAnnotateDevicePlacementTarget[] = "annotate_device_placement";

class DevicePlacementAnnotationRemover : public HloPass {
 public:
  absl::string_view name() const override { return "device-placement-annotation-remover"; }
  // Returns whether an annotation was removed. InvalidArgument
  // "<instruction>: annotate_device_placement ..." on an annotation with
  // other than one operand of the result's shape.
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_DEVICE_PLACEMENT_ANNOTATION_REMOVER_H_
