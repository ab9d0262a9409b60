// ShardingAnnotationRemover: drops the sharding annotations a front end
// leaves in a program (custom calls "Sharding", "SPMDFullToShardShape" and
// "SPMDShardToFullShape"). They are hints for XLA's SPMD partitioner, not
// computations: on one partition each is the identity of its operand, and
// every use of it is made to use the operand instead.
//
// A module compiled for more than one partition (header num_partitions, or
// the compile option that overrides it) that still carries one was never
// partitioned, and this compiler has no SPMD partitioner: the pass refuses
// it, naming the instruction and the partition count, instead of running
// every partition on the whole problem. A front end that partitions (jax.jit
// with shardings, after XLA's partitioner) leaves none.
//
// Not thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_SHARDING_ANNOTATION_REMOVER_H_
#define XLA_HLO_TRANSFORMS_SHARDING_ANNOTATION_REMOVER_H_

#include "absl/status/statusor.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

// Whether `target` is one of the sharding annotation custom-call targets.
bool IsShardingAnnotationTarget(absl::string_view target);

class ShardingAnnotationRemover : public HloPass {
 public:
  absl::string_view name() const override { return "sharding-annotation-remover"; }
  // FailedPrecondition "<instruction>: custom-call <target> ..." on a module
  // of more than one partition that has an annotation. An annotation that
  // is not a one-operand identity (its shape differs from its operand's: a
  // module whose header lost its partition count) is left in place, for the
  // back end to refuse as a custom call it cannot run.
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_SHARDING_ANNOTATION_REMOVER_H_
