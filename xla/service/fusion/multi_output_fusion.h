// MultiOutputFusion ("multi-output-fusion"): merges fusions that read the
// same large operand, or a loop fusion into the reduction that consumes it,
// into one fusion whose root is a tuple.
//
// Per computation rewritten by the fusion passes (ComputationsToFuse), in
// sweeps over one post order each (at most max_sweeps):
//   * Siblings: two users A, B of an operand of at least
//     min_shared_operand_bytes bytes, each a kLoop/kInput fusion or an
//     unfused fusible op (fusion_cost_model.h classes cheap, expensive,
//     reduction), merge when their iteration spaces match: loop fusions
//     (ClassifyFusion kLoop) with the same output dimensions; reductions
//     (row, row-normalization, whole, column) with the same reduce input
//     dimensions and reduced dimensions. At most max_siblings_per_operand
//     users of one operand are paired.
//   * Producer-consumer: a kLoop fusion P with one array output of at least
//     min_shared_operand_bytes, read by a reduction fusion C whose reduce
//     input has P's dimensions (and that reads P only through elementwise
//     ops), and used by others too: P is fused into C and becomes an extra
//     output of C, so the intermediate is written once and not read back.
// Never: when the merged fusion would exceed FusionLimits, when merging
// would create a cycle (checked by a search bounded by max_search_nodes,
// which refuses when the budget runs out), for instructions with control
// edges or side effects.
// Rewiring: the merged fusion's root is a tuple of A's outputs then B's (for
// producer-consumer: C's outputs then P's); users of the old instructions
// read get-tuple-element of it (existing get-tuple-element users of a
// multi-output fusion are renumbered in place).
//
// Errors: Internal when a rewrite step fails. Not thread-safe.
#ifndef XLA_SERVICE_FUSION_MULTI_OUTPUT_FUSION_H_
#define XLA_SERVICE_FUSION_MULTI_OUTPUT_FUSION_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/hlo/transforms/hlo_pass.h"
#include "xla/service/fusion/fusion_cost_model.h"

namespace xla {

struct MultiOutputFusionOptions {
  FusionLimits limits;
  // Shared operands (siblings) and producer outputs (producer-consumer)
  // smaller than this are not worth a merge.
  int64_t min_shared_operand_bytes = 1024;
  int64_t max_siblings_per_operand = 32;
  int64_t max_search_nodes = 512;
  int max_sweeps = 8;
  bool producer_consumer = true;
};

class MultiOutputFusion : public HloPass {
 public:
  explicit MultiOutputFusion(MultiOutputFusionOptions options = MultiOutputFusionOptions())
      : options_(options) {}

  absl::string_view name() const override { return "multi-output-fusion"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  MultiOutputFusionOptions options_;
};

}  // namespace xla

#endif  // XLA_SERVICE_FUSION_MULTI_OUTPUT_FUSION_H_
