// The fusion phase as one call: InstructionFusion ("fusion") then
// MultiOutputFusion ("multi-output-fusion"), each timed, optionally
// verified after each pass. Run it after OptimizeModule
// (xla/service/optimization_pipeline.h). Not thread-safe: one module at a
// time.
#ifndef XLA_SERVICE_FUSION_FUSION_PIPELINE_H_
#define XLA_SERVICE_FUSION_FUSION_PIPELINE_H_

#include <string>

#include "absl/status/statusor.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/service/fusion/fusion_stats.h"
#include "xla/service/fusion/multi_output_fusion.h"

namespace xla {

struct FusionPipelineOptions {
  MultiOutputFusionOptions multi_output;  // its limits apply to both passes
  bool multi_output_fusion = true;
  bool verify_after_each = true;
};

struct FusionPipelineResult {
  bool changed = false;
  double fusion_seconds = 0;
  double multi_output_seconds = 0;
  FusionStats stats;  // CountKernels after the passes
};

// Runs the fusion passes on `module` in place. Errors: a pass failure, or a
// verifier failure prefixed with the pass name; the module is then
// unspecified but destructible.
absl::StatusOr<FusionPipelineResult> RunFusionPipeline(HloModule* module,
                                                       const FusionPipelineOptions& options);

}  // namespace xla

#endif  // XLA_SERVICE_FUSION_FUSION_PIPELINE_H_
