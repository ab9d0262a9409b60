#include "xla/service/optimization_pipeline.h"

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "xla/hlo/transforms/algebraic_simplifier.h"
#include "xla/hlo/transforms/async_copy_converter.h"
#include "xla/hlo/transforms/async_wrapper_inliner.h"
#include "xla/hlo/transforms/batch_norm_expander.h"
#include "xla/hlo/transforms/builder_math_call_expander.h"
#include "xla/hlo/transforms/call_inliner.h"
#include "xla/hlo/transforms/cholesky_expander.h"
#include "xla/hlo/transforms/complex_expander.h"
#include "xla/hlo/transforms/constant_folding.h"
#include "xla/hlo/transforms/cumulative_scan_rewriter.h"
#include "xla/hlo/transforms/device_placement_annotation_remover.h"
#include "xla/hlo/transforms/dynamic_reshape_rewriter.h"
#include "xla/hlo/transforms/einsum_expander.h"
#include "xla/hlo/transforms/gemm_custom_call_rewriter.h"
#include "xla/hlo/transforms/te_softmax_expander.h"
#include "xla/hlo/transforms/hlo_cse.h"
#include "xla/hlo/transforms/hlo_dce.h"
#include "xla/hlo/transforms/map_inliner.h"
#include "xla/hlo/transforms/onednn_layer_norm_expander.h"
#include "xla/hlo/transforms/ragged_dot_expander.h"
#include "xla/hlo/transforms/scaled_dot_expander.h"
#include "xla/hlo/transforms/rng_bit_generator_expander.h"
#include "xla/hlo/transforms/rng_seed_expander.h"
#include "xla/hlo/transforms/scatter_batching_normalizer.h"
#include "xla/hlo/transforms/sharding_annotation_remover.h"
#include "xla/hlo/transforms/topk_decomposer.h"
#include "xla/hlo/transforms/scan_expander.h"
#include "xla/hlo/transforms/triangular_solve_expander.h"
#include "xla/hlo/transforms/tuple_simplifier.h"
#include "xla/hlo/transforms/while_loop_invariant_code_motion.h"
#include "xla/hlo/transforms/while_loop_trip_count.h"

namespace xla {
namespace {

// Runs pipelines in order, collecting timings and numbering dump dirs.
class Driver {
 public:
  Driver(HloModule* module, const OptimizeOptions& options, OptimizeResult* result)
      : module_(module), options_(options), result_(result) {}

  PipelineOptions NextPipelineOptions(const std::string& name) {
    PipelineOptions p;
    p.verify_after_each = options_.verify_after_each;
    if (!options_.dump_dir.empty()) {
      p.dump_dir = absl::StrFormat("%s/%02d-%s", options_.dump_dir, runs_, name);
    }
    ++runs_;
    return p;
  }

  absl::StatusOr<bool> Run(HloPassPipeline& pipeline) {
    absl::StatusOr<bool> changed = pipeline.Run(module_);
    for (const PassTiming& t : pipeline.timings()) {
      result_->timings.push_back({absl::StrCat(pipeline.name(), "/", t.pass), t.seconds, t.changed});
    }
    if (changed.ok()) result_->changed |= *changed;
    return changed;
  }

  // Runs the simplification pipeline until it changes nothing.
  absl::Status Simplify(const std::string& phase) {
    for (int i = 1; i <= options_.max_simplify_iterations; ++i) {
      const std::string name = absl::StrCat(phase, ".", i);
      std::unique_ptr<HloPassPipeline> p =
          MakeSimplificationPipeline(name, options_, NextPipelineOptions(name));
      absl::StatusOr<bool> changed = Run(*p);
      if (!changed.ok()) return changed.status();
      ++result_->simplify_iterations;
      if (!*changed) break;
    }
    return absl::OkStatus();
  }

 private:
  HloModule* module_;
  const OptimizeOptions& options_;
  OptimizeResult* result_;
  int runs_ = 0;
};

}  // namespace

std::unique_ptr<HloPassPipeline> MakeSimplificationPipeline(const std::string& name,
                                                            const OptimizeOptions& options,
                                                            PipelineOptions pipeline_options) {
  auto p = std::make_unique<HloPassPipeline>(name, std::move(pipeline_options));
  p->AddPass<TupleSimplifier>();
  AlgebraicSimplifierOptions simplifier;
  simplifier.allow_inexact = options.allow_inexact;
  p->AddPass<AlgebraicSimplifier>(simplifier);
  ConstantFoldingOptions folding;
  folding.max_result_elements = options.max_fold_elements;
  p->AddPass<ConstantFolding>(folding);
  p->AddPass<HloCSE>();
  p->AddPass<HloDCE>();
  return p;
}

absl::StatusOr<OptimizeResult> OptimizeModule(HloModule* module, const OptimizeOptions& options) {
  OptimizeResult result;
  Driver driver(module, options, &result);
  HloPassPipeline inline_pipeline("inline", driver.NextPipelineOptions("inline"));
  // Generic async wrappers become calls; calls and incoming fusions are
  // inlined (this compiler fuses afresh);
  // sharding annotations go (identities on one partition, refused on
  // more), and so do memory-placement annotations (identities);
  // dynamic-reshapes whose bounds fix their sizes become reshapes;
  // cholesky becomes a loop over columns and triangular-solve one over
  // rows, scan one over its dimension; ragged-dot becomes masked dots and scaled-dot the dot of the
  // dequantized operands; XLA:GPU's cuBLAS GEMM custom
  // calls become dots and their epilogues, Transformer Engine's scaled
  // softmax calls and XLA:CPU's oneDNN layer norms reductions and
  // elementwise ops, and
  // xla_builder.matrix.Einsum dots, diagonals and sums; scatter batching dimensions
  // become explicit indices;
  // xla_builder.math.Acos becomes atan2 and sqrt; maps, topk (but those
  // with k <= keep_topk_up_to_k),
  // async copies, rng-bit-generator, XLA's GetRngSeed (a read of the RNG
  // state) and batch norms become ops every target runs; cumulative reduce-windows (cumsum, cummax, ...) become blocked
  // prefix scans.
  inline_pipeline.AddPass<AsyncWrapperInliner>();
  inline_pipeline.AddPass<CallInliner>(/*inline_fusions=*/true);
  inline_pipeline.AddPass<ShardingAnnotationRemover>();
  inline_pipeline.AddPass<DevicePlacementAnnotationRemover>();
  inline_pipeline.AddPass<DynamicReshapeRewriter>();
  inline_pipeline.AddPass<CholeskyExpander>();
  inline_pipeline.AddPass<TriangularSolveExpander>();
  inline_pipeline.AddPass<ScanExpander>();
  inline_pipeline.AddPass<RaggedDotExpander>();
  inline_pipeline.AddPass<ScaledDotExpander>();
  inline_pipeline.AddPass<GemmCustomCallRewriter>();
  inline_pipeline.AddPass<TeSoftmaxExpander>(options.keep_custom_calls);
  inline_pipeline.AddPass<OneDnnLayerNormExpander>(options.keep_custom_calls);
  inline_pipeline.AddPass<EinsumExpander>();
  inline_pipeline.AddPass<ScatterBatchingNormalizer>();
  inline_pipeline.AddPass<BuilderMathCallExpander>();
  inline_pipeline.AddPass<MapInliner>();
  inline_pipeline.AddPass<TopKDecomposer>(options.keep_topk_up_to_k);
  inline_pipeline.AddPass<CumulativeScanRewriter>();
  inline_pipeline.AddPass<AsyncCopyConverter>();
  inline_pipeline.AddPass<RngBitGeneratorExpander>(/*leave_unsupported=*/true);
  inline_pipeline.AddPass<RngSeedExpander>();
  inline_pipeline.AddPass<BatchNormExpander>();
  // Last of the expanders: complex values (including the complex ops the
  // cholesky and acos expanders made) become real (re, im) arrays.
  inline_pipeline.AddPass<ComplexExpander>();
  inline_pipeline.AddPass<HloDCE>();
  if (absl::StatusOr<bool> s = driver.Run(inline_pipeline); !s.ok()) return s.status();
  if (absl::Status s = driver.Simplify("simplify"); !s.ok()) return s;
  if (options.loop_optimizations) {
    HloPassPipeline loops("loops", driver.NextPipelineOptions("loops"));
    loops.AddPass<WhileLoopInvariantCodeMotion>();
    loops.AddPass<TupleSimplifier>();
    loops.AddPass<HloDCE>();
    absl::StatusOr<bool> changed = driver.Run(loops);
    if (!changed.ok()) return changed.status();
    if (*changed) {
      if (absl::Status s = driver.Simplify("simplify-after-loops"); !s.ok()) return s;
    }
    HloPassPipeline annotate("annotate", driver.NextPipelineOptions("annotate"));
    annotate.AddPass<WhileLoopTripCountAnnotator>();
    if (absl::StatusOr<bool> s = driver.Run(annotate); !s.ok()) return s.status();
  }
  return result;
}

std::string OptimizeResult::TimingsReport() const {
  std::string out = absl::StrFormat("%-60s %12s  %s\n", "pass", "seconds", "changed");
  double total = 0;
  std::map<std::string, std::pair<double, int>> per_pass;  // sorted: deterministic
  for (const PassTiming& t : timings) {
    absl::StrAppendFormat(&out, "%-60s %12.6f  %s\n", t.pass, t.seconds, t.changed ? "yes" : "no");
    total += t.seconds;
    auto& [seconds, runs] = per_pass[t.pass.substr(t.pass.rfind('/') + 1)];
    seconds += t.seconds;
    ++runs;
  }
  absl::StrAppendFormat(&out, "\n%-60s %12s  %s\n", "pass (all runs)", "seconds", "runs");
  for (const auto& [pass, totals] : per_pass) {
    absl::StrAppendFormat(&out, "%-60s %12.6f  %d\n", pass, totals.first, totals.second);
  }
  absl::StrAppendFormat(&out, "%-60s %12.6f\n", "total", total);
  return out;
}

}  // namespace xla
