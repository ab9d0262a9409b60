// The whole target-independent middle end, as one call: from a parsed,
// verified module to a fused, scheduled module with a buffer assignment,
// ready for kernel and thunk emission.
//
// Phases, in order (each a pass pipeline with timings and optional dumps):
//   1. optimize:      OptimizeModule (inlining, simplification, folding,
//                     CSE/DCE, while-loop passes; optimization_pipeline.h)
//   2. canonicalize:  attention-rewriter (with fuse_attention),
//                     dot-canonicalizer, convolution-canonicalizer,
//                     reduction-canonicalizer, then algebraic-simplifier,
//                     cse and dce to clean up the reshapes they add
//   3. layout:        layout-assignment (row-major everywhere but the entry
//                     signature), then dce
//   4. fusion:        fusion, multi-output-fusion, dce
//   5. buffers:       copy insertion for while/conditional, the list
//                     scheduler (the module's instruction lists become the
//                     schedule and is_scheduled=true), buffer assignment,
//                     and the independent buffer-assignment checker
// Every pass keeps the module's meaning; with verify_after_each the
// verifier runs after every pass.
//
// Not thread-safe: one module at a time per call; distinct modules may be
// compiled on distinct threads.
#ifndef XLA_SERVICE_MIDDLE_END_H_
#define XLA_SERVICE_MIDDLE_END_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/service/buffer_assignment/buffer_assignment.h"
#include "xla/service/canonicalize/convolution_to_gemm.h"
#include "xla/service/fusion/fusion_stats.h"
#include "xla/service/fusion/multi_output_fusion.h"
#include "xla/service/hlo_pass_pipeline.h"
#include "xla/service/optimization_pipeline.h"
#include "xla/service/schedule/hlo_schedule.h"
#include "xla/service/schedule/list_scheduler.h"
#include "xla/service/schedule/rematerialization.h"

namespace xla {

struct MiddleEndOptions {
  // Phase 1. Its verify_after_each and dump_dir are overridden by the fields
  // below.
  OptimizeOptions optimize;
  // Phase 2: convolutions become im2col + GEMM (convolution_to_gemm.h)
  // where they can; false keeps every convolution a direct kernel.
  bool convolution_as_gemm = true;
  // Phase 2: fp8 dots cuBLASLt runs stay fp8 (TN form) instead of being
  // widened (fp8_dot_widener.h), and their per-tensor scales become the
  // GEMM's scale pointers (fp8_gemm_scale_folder.h). Set only for sm_90 with
  // --fp8_gemm=cublaslt; the artifact then needs the runtime feature
  // "gemm.fp8".
  bool fp8_gemm_cublaslt = false;
  ConvolutionToGemmOptions convolution_to_gemm;
  // Phase 2, first: convolutions cuDNN runs become cuDNN custom calls
  // (cudnn_convolution_rewriter.h). CUDA targets with
  // --emit_cudnn_convolutions only.
  bool cudnn_convolutions = false;
  // Phase 2, right after: with cudnn_convolutions, a forward convolution's
  // bias (+ ReLU) is fused into its cuDNN call (cudnn_epilogue_fuser.h).
  // Only for runtimes with "cudnn_convolutions.fused_epilogue".
  bool cudnn_fused_epilogues = false;
  // Phase 2 (first): attention spelled in plain HLO becomes one call of the
  // built-in fused-attention kernel (attention_rewriter.h), for
  // `attention_target`: "host" (f32, bf16, f16; the artifact then needs
  // the runtime feature "ffi_handlers.te_fused_attention_host") or an
  // NVPTX target from sm_80 (bf16/f16 only; the call becomes ordinary
  // kernel thunks, no runtime feature).
  bool fuse_attention = false;
  std::string attention_target = "host";
  // Phase 4; off gives one kernel per op (the fast tier of the JIT cache).
  bool fusion = true;
  MultiOutputFusionOptions fusion_limits;
  bool multi_output_fusion = true;
  SchedulerOptions scheduler;
  // Phase 5, after scheduling: when non-zero, the memory of one device
  // (--device_memory). Where the schedule's peak plus the entry parameters
  // and the constants exceeds it, cheap values are recomputed next to their late uses
  // (rematerialization.h) until it fits or nothing more helps; the device
  // memory check after buffer assignment reports what is left.
  int64_t device_memory_bytes = 0;
  BufferAssignmentOptions buffers;
  // Run CheckBufferAssignment on the result (cheap; on by default).
  bool check_buffer_assignment = true;
  bool verify_after_each = PipelineOptions().verify_after_each;
  // When non-empty, the module after every pass goes to
  // DIR/NN-<pipeline>/NN.<pipeline>.<pass>.hlo.
  std::string dump_dir;
  // When set, called before every pass of every phase (on the calling
  // thread), e.g. to report progress.
  PassObserver pass_observer;
};

struct MiddleEndResult {
  // Every pass run, in order, "<pipeline>/<pass>", plus the non-pass steps
  // ("buffers/schedule", "buffers/assign", "buffers/check").
  std::vector<PassTiming> timings;
  HloSchedule schedule;
  std::unique_ptr<BufferAssignment> assignment;
  FusionStats stats;  // kernels and thunks the module will need
  // What rematerialization did (all 0 when device_memory_bytes was 0).
  RematerializationResult rematerialization;
  // The timings as a table (same format as OptimizeResult::TimingsReport).
  std::string TimingsReport() const;
};

// Runs the middle end on `module` in place. Errors: a pass or verifier
// failure (naming the pass and the instruction), a schedule or buffer
// assignment that cannot be made (naming the instruction), a checker
// violation (a compiler bug: the message names both buffers), or an
// unwritable dump directory. On error the module is unspecified but
// destructible.
absl::StatusOr<MiddleEndResult> RunMiddleEnd(HloModule* module, const MiddleEndOptions& options);

}  // namespace xla

#endif  // XLA_SERVICE_MIDDLE_END_H_
