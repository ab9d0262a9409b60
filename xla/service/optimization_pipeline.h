// The target-independent optimization pipeline: the "middle end" that runs
// before fusion, scheduling and code generation.
//
// Order:
//   1. inline:    call-inliner, batch-norm-expander, dce
//   2. simplify:  tuple-simplifier, algebraic-simplifier, constant-folding,
//                 cse, dce; repeated until nothing changes, at most
//                 max_simplify_iterations times
//   3. loops:     while-loop-invariant-code-motion, tuple-simplifier, dce
//                 (then simplify again, to a fixed point, when it changed)
//   4. annotate:  while-loop-trip-count-annotator
// Every pass keeps the module's meaning; the verifier runs after each pass
// when verify_after_each is set. Not thread-safe: one module at a time.
#ifndef XLA_SERVICE_OPTIMIZATION_PIPELINE_H_
#define XLA_SERVICE_OPTIMIZATION_PIPELINE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/service/hlo_pass_pipeline.h"

namespace xla {

struct OptimizeOptions {
  // Constant folding materializes results of at most this many elements.
  int64_t max_fold_elements = int64_t{1} << 16;
  // Allow rewrites that may change results by rounding (x / c -> x * 1/c).
  bool allow_inexact = false;
  // Bound on the simplify fixed-point loop (each phase).
  int max_simplify_iterations = 4;
  // Run the while-loop phase (invariant code motion, trip counts).
  bool loop_optimizations = true;
  // `topk` ops with k at most this are left for the target's own top-k
  // kernel (the host sets it); the others become sorts (TopKDecomposer).
  int64_t keep_topk_up_to_k = -1;
  // Custom-call targets left as calls although the middle end knows them
  // (Transformer Engine's scaled softmax, TeSoftmaxExpander; XLA:CPU's
  // `__onednn$layernorm`, OneDnnLayerNormExpander): those that
  // `--allow_custom_calls` names, for a handler the runtime registers.
  std::vector<std::string> keep_custom_calls;
  // Verify after every pass (defaults as PipelineOptions does).
  bool verify_after_each = PipelineOptions().verify_after_each;
  // When non-empty: dump the module after every pass, into one directory
  // per pipeline run: DIR/NN-<pipeline>/NN.<pipeline>.<pass>.hlo.
  std::string dump_dir;
};

struct OptimizeResult {
  bool changed = false;
  // Every pass run, in order, named "<pipeline>/<pass>"; pipelines of the
  // fixed-point loops are numbered (simplify.1, simplify.2, ...).
  std::vector<PassTiming> timings;
  // Simplify pipeline runs in total (all fixed-point loops).
  int simplify_iterations = 0;
  // The timings as a table: one line per pass, then per-pass totals, then
  // the overall total.
  std::string TimingsReport() const;
};

// The simplification passes (phase 2 above) as one pipeline named `name`.
std::unique_ptr<HloPassPipeline> MakeSimplificationPipeline(const std::string& name,
                                                            const OptimizeOptions& options,
                                                            PipelineOptions pipeline_options);

// Runs the whole pipeline on `module` in place. Errors: a pass failure or,
// with verify_after_each, a verifier failure naming the pass and the
// instruction; an unwritable dump directory. On error the module is in an
// unspecified but destructible state.
absl::StatusOr<OptimizeResult> OptimizeModule(HloModule* module, const OptimizeOptions& options);

}  // namespace xla

#endif  // XLA_SERVICE_OPTIMIZATION_PIPELINE_H_
