#include "xla/service/middle_end.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "xla/hlo/transforms/algebraic_simplifier.h"
#include "xla/hlo/transforms/entry_parameter_flattener.h"
#include "xla/hlo/transforms/hlo_cse.h"
#include "xla/hlo/transforms/hlo_dce.h"
#include "xla/hlo/verifier/hlo_verifier.h"
#include "xla/service/buffer_assignment/buffer_assignment_checker.h"
#include "xla/service/buffer_assignment/copy_insertion.h"
#include "xla/service/canonicalize/convolution_canonicalizer.h"
#include "xla/service/canonicalize/convolution_to_gemm.h"
#include "xla/service/canonicalize/cudnn_convolution_rewriter.h"
#include "xla/service/canonicalize/cudnn_epilogue_fuser.h"
#include "xla/service/canonicalize/dot_canonicalizer.h"
#include "xla/service/canonicalize/fp8_dot_widener.h"
#include "xla/service/canonicalize/fp8_gemm_scale_folder.h"
#include "xla/service/canonicalize/non_gemm_dot_expander.h"
#include "xla/service/canonicalize/reduction_canonicalizer.h"
#include "xla/service/fusion/attention_rewriter.h"
#include "xla/service/fusion/instruction_fusion.h"
#include "xla/service/fusion/reshapes_to_bitcasts.h"
#include "xla/service/layout/layout_assignment.h"
#include "xla/service/schedule/memory_model.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

// Builds and runs the phase pipelines, collecting timings into `result`.
class Phases {
 public:
  Phases(HloModule* module, const MiddleEndOptions& options, MiddleEndResult* result)
      : module_(module), options_(options), result_(result) {}

  // A pipeline named `name` with the shared verify/dump settings.
  std::unique_ptr<HloPassPipeline> NewPipeline(const std::string& name) {
    PipelineOptions p;
    p.verify_after_each = options_.verify_after_each;
    if (!options_.dump_dir.empty()) {
      p.dump_dir = absl::StrFormat("%s/%02d-%s", options_.dump_dir, 50 + runs_, name);
    }
    ++runs_;
    return std::make_unique<HloPassPipeline>(name, std::move(p));
  }

  absl::Status Run(HloPassPipeline& pipeline) {
    absl::StatusOr<bool> changed = pipeline.Run(module_);
    for (const PassTiming& t : pipeline.timings()) {
      result_->timings.push_back({absl::StrCat(pipeline.name(), "/", t.pass), t.seconds, t.changed});
    }
    return changed.status();
  }

  // Times a non-pass step as "buffers/<name>".
  template <typename F>
  auto Timed(const std::string& name, F&& step) {
    const auto start = std::chrono::steady_clock::now();
    auto out = step();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result_->timings.push_back({absl::StrCat("buffers/", name), seconds, false});
    return out;
  }

 private:
  HloModule* module_;
  const MiddleEndOptions& options_;
  MiddleEndResult* result_;
  int runs_ = 0;
};

// Bytes the schedule's peak does not count but the device holds for the
// whole run: the entry parameters (the caller's buffers) and the constants
// of every scheduled computation (one allocation each).
int64_t BytesOutsideTheSchedule(const HloModule& module, const HloSchedule& schedule) {
  int64_t bytes = 0;
  for (const HloInstruction* p : module.entry_computation()->parameter_instructions()) {
    if (p != nullptr && p->shape().IsArray()) bytes += ArrayBytes(p->shape());
  }
  for (const HloComputation* c : schedule.computations()) {
    for (const HloInstruction* i : schedule.sequence(c)) {
      if (i->opcode() == HloOpcode::kConstant && i->shape().IsArray()) bytes += ArrayBytes(i->shape());
    }
  }
  return bytes;
}

}  // namespace

absl::StatusOr<MiddleEndResult> RunMiddleEnd(HloModule* module, const MiddleEndOptions& options) {
  MiddleEndResult result;
  std::optional<ScopedPassObserver> watch;
  if (options.pass_observer) watch.emplace(options.pass_observer);
  // The artifact takes arrays only: a tuple entry parameter becomes one
  // parameter per leaf. This changes the signature, so it is not among the
  // optimization passes (which keep results for the same arguments).
  ASSIGN_OR_RETURN(const bool flattened, EntryParameterFlattener().Run(module));
  if (flattened && options.verify_after_each) RETURN_IF_ERROR(VerifyModule(*module));
  OptimizeOptions optimize = options.optimize;
  optimize.verify_after_each = options.verify_after_each;
  optimize.dump_dir = options.dump_dir;
  ASSIGN_OR_RETURN(OptimizeResult optimized, OptimizeModule(module, optimize));
  result.timings = std::move(optimized.timings);
  Phases phases(module, options, &result);

  std::unique_ptr<HloPassPipeline> canonicalize = phases.NewPipeline("canonicalize");
  // Before the GEMM form, while the dots are still JAX's einsum dots.
  if (options.fuse_attention) {
    AttentionRewriterOptions attention;
    attention.target = options.attention_target;
    canonicalize->AddPass<AttentionRewriter>(attention);
  }
  // Before the GEMM form and decisions. With fp8 cuBLASLt GEMMs, operand
  // scales of dequantized fp8 values move after an fp8 dot first.
  if (options.fp8_gemm_cublaslt) {
    canonicalize->AddPass<Fp8GemmScaleFolder>(Fp8GemmScaleFolder::Stage::kHoistOperandScales);
  }
  canonicalize->AddPass<Fp8DotWidener>(options.fp8_gemm_cublaslt);
  // Dots the GEMM path cannot take (integer, pred, ...) become multiply +
  // reduce, which fusion emits as one reduction kernel.
  canonicalize->AddPass<NonGemmDotExpander>(options.fp8_gemm_cublaslt);
  canonicalize->AddPass<DotCanonicalizer>(options.fp8_gemm_cublaslt);
  // Per-tensor scales after a TN fp8 dot become the GEMM's scale pointers.
  if (options.fp8_gemm_cublaslt) {
    canonicalize->AddPass<Fp8GemmScaleFolder>(Fp8GemmScaleFolder::Stage::kFoldIntoGemm);
  }
  if (options.cudnn_convolutions) canonicalize->AddPass<CudnnConvolutionRewriter>();
  if (options.cudnn_convolutions && options.cudnn_fused_epilogues) {
    canonicalize->AddPass<CudnnEpilogueFuser>();
  }
  canonicalize->AddPass<ConvolutionCanonicalizer>();
  if (options.convolution_as_gemm) {
    canonicalize->AddPass<ConvolutionToGemm>(options.convolution_to_gemm);
  }
  canonicalize->AddPass<ReductionCanonicalizer>();
  AlgebraicSimplifierOptions simplifier;
  simplifier.allow_inexact = options.optimize.allow_inexact;
  canonicalize->AddPass<AlgebraicSimplifier>(simplifier);
  canonicalize->AddPass<HloCSE>();
  canonicalize->AddPass<HloDCE>();
  RETURN_IF_ERROR(phases.Run(*canonicalize));

  std::unique_ptr<HloPassPipeline> layout = phases.NewPipeline("layout");
  layout->AddPass<LayoutAssignment>();
  layout->AddPass<HloDCE>();
  RETURN_IF_ERROR(phases.Run(*layout));

  if (options.fusion) {
    std::unique_ptr<HloPassPipeline> fusion = phases.NewPipeline("fusion");
    fusion->AddPass<InstructionFusion>(options.fusion_limits.limits);
    if (options.multi_output_fusion) fusion->AddPass<MultiOutputFusion>(options.fusion_limits);
    fusion->AddPass<HloDCE>();
    RETURN_IF_ERROR(phases.Run(*fusion));
  }
  std::unique_ptr<HloPassPipeline> bitcasts = phases.NewPipeline("bitcasts");
  bitcasts->AddPass<ReshapesToBitcasts>();
  bitcasts->AddPass<HloDCE>();
  RETURN_IF_ERROR(phases.Run(*bitcasts));

  RETURN_IF_ERROR(phases.Timed("copy-insertion", [&] {
    return AddCopiesForWhileAndConditional(module).status();
  }));
  if (options.verify_after_each) {
    if (absl::Status v = VerifyModule(*module); !v.ok()) {
      return absl::InternalError(absl::StrCat("verifier failed after copy insertion: ", v.message()));
    }
  }
  ASSIGN_OR_RETURN(result.schedule,
                   phases.Timed("schedule", [&] { return ScheduleModule(*module, options.scheduler); }));
  if (options.device_memory_bytes > 0) {
    RematerializationOptions remat;
    remat.peak_limit_bytes =
        std::max<int64_t>(1, options.device_memory_bytes -
                                 BytesOutsideTheSchedule(*module, result.schedule));
    ASSIGN_OR_RETURN(result.rematerialization, phases.Timed("rematerialize", [&] {
                       return Rematerialize(module, &result.schedule, remat);
                     }));
  }
  RETURN_IF_ERROR(ApplySchedule(module, result.schedule));
  ASSIGN_OR_RETURN(BufferAssignment assignment, phases.Timed("assign", [&] {
                     return AssignBuffers(*module, result.schedule, options.buffers);
                   }));
  result.assignment = std::make_unique<BufferAssignment>(std::move(assignment));
  if (options.check_buffer_assignment) {
    RETURN_IF_ERROR(phases.Timed("check", [&] {
      return CheckBufferAssignment(*module, result.schedule, *result.assignment,
                                   options.buffers.alignment);
    }));
  }
  result.stats = CountKernels(*module);
  return result;
}

std::string MiddleEndResult::TimingsReport() const {
  OptimizeResult as_optimize;
  as_optimize.timings = timings;
  return as_optimize.TimingsReport();
}

}  // namespace xla
