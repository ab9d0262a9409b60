// The fusion passes on realistic JAX-printed models (testdata/): after
// OptimizeModule and the fusion pipeline, softmax and layer norm need at
// most 2 kernels, the MLP one fusion per elementwise chain, and every model
// computes what it computed before (evaluator, random inputs, 3 seeds).
#include <cstdio>
#include <string>

#include "gtest/gtest.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/hlo/verifier/hlo_verifier.h"
#include "xla/service/fusion/fusion_pipeline.h"
#include "xla/service/optimization_pipeline.h"

namespace xla {
namespace {

// Optimizes and fuses testdata/<name>, checks the outputs, returns the
// kernel counts.
FusionStats FuseAndCheck(const std::string& name) {
  const std::string path = "xla/service/fusion/testdata/" + name;
  absl::StatusOr<std::unique_ptr<HloModule>> original = ParseHloModuleFile(path);
  EXPECT_TRUE(original.ok()) << original.status();
  if (!original.ok()) return {};
  absl::StatusOr<std::unique_ptr<HloModule>> fused = ParseHloModuleFile(path);
  EXPECT_TRUE(fused.ok());
  OptimizeOptions optimize;
  optimize.verify_after_each = true;
  absl::StatusOr<OptimizeResult> o = OptimizeModule(fused->get(), optimize);
  EXPECT_TRUE(o.ok()) << o.status();
  absl::StatusOr<FusionPipelineResult> r = RunFusionPipeline(fused->get(), FusionPipelineOptions());
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return {};
  EXPECT_TRUE(VerifyModule(**fused).ok());
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    absl::StatusOr<std::vector<Literal>> args = MakeRandomInputs(**original, seed);
    EXPECT_TRUE(args.ok()) << args.status();
    if (!args.ok()) break;
    absl::StatusOr<Literal> expected = HloEvaluator().Evaluate(**original, *args);
    absl::StatusOr<Literal> actual = HloEvaluator().Evaluate(**fused, *args);
    EXPECT_TRUE(expected.ok()) << expected.status();
    EXPECT_TRUE(actual.ok()) << actual.status();
    if (expected.ok() && actual.ok()) {
      absl::Status same = CompareLiterals(*expected, *actual);
      EXPECT_TRUE(same.ok()) << name << " seed " << seed << ": " << same;
    }
  }
  std::printf("%-16s %s (fusion %.4fs, multi-output %.4fs)\n", name.c_str(), r->stats.ToString().c_str(),
              r->fusion_seconds, r->multi_output_seconds);
  return r->stats;
}

TEST(FusionModels, SoftmaxIsAtMostTwoKernels) {
  FusionStats s = FuseAndCheck("softmax.hlo");
  EXPECT_GE(s.kernels, 1);
  EXPECT_LE(s.kernels, 2) << s.ToString();
  EXPECT_EQ(s.own_thunks, 0) << s.ToString();
}

TEST(FusionModels, LayerNormIsAtMostTwoKernels) {
  FusionStats s = FuseAndCheck("layer_norm.hlo");
  EXPECT_GE(s.kernels, 1);
  EXPECT_LE(s.kernels, 2) << s.ToString();
  EXPECT_EQ(s.own_thunks, 0) << s.ToString();
}

TEST(FusionModels, MlpHasOneFusionPerElementwiseChain) {
  FusionStats s = FuseAndCheck("mlp_gelu.hlo");
  // bias + GELU after the first dot, bias after the second.
  EXPECT_EQ(s.fusions, 2) << s.ToString();
  EXPECT_EQ(s.own_thunks_by_opcode["dot"], 2) << s.ToString();
  EXPECT_EQ(s.kernels, 4) << s.ToString();
}

}  // namespace
}  // namespace xla
