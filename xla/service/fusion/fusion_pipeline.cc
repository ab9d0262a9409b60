#include "xla/service/fusion/fusion_pipeline.h"

#include <chrono>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/verifier/hlo_verifier.h"
#include "xla/service/fusion/instruction_fusion.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

absl::Status RunOne(HloPass& pass, HloModule* module, bool verify, bool* changed, double* seconds) {
  const double t0 = Now();
  absl::StatusOr<bool> c = pass.Run(module);
  *seconds = Now() - t0;
  if (!c.ok()) return c.status();
  *changed |= *c;
  if (verify) {
    absl::Status st = VerifyModule(*module);
    if (!st.ok()) {
      return absl::Status(st.code(), absl::StrCat("after pass '", pass.name(), "': ", st.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<FusionPipelineResult> RunFusionPipeline(HloModule* module,
                                                       const FusionPipelineOptions& options) {
  FusionPipelineResult result;
  InstructionFusion fusion(options.multi_output.limits);
  RETURN_IF_ERROR(RunOne(fusion, module, options.verify_after_each, &result.changed, &result.fusion_seconds));
  if (options.multi_output_fusion) {
    MultiOutputFusion mof(options.multi_output);
    RETURN_IF_ERROR(
        RunOne(mof, module, options.verify_after_each, &result.changed, &result.multi_output_seconds));
  }
  result.stats = CountKernels(*module);
  return result;
}

}  // namespace xla
