#include "tests/e2e/host_vs_evaluator.h"

#include <memory>
#include <utility>

#include "gtest/gtest.h"
#include "xla/aot/compile.h"
#include "xla/aot/executable.h"
#include "xla/aot/literal_execution.h"
#include "xla/backends/gpu/compiler/gpu_compiler.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/literal_compare.h"

namespace xla::e2e {
namespace {

void Flatten(const Literal& literal, std::vector<const Literal*>* out) {
  if (!literal.shape().IsTuple()) {
    out->push_back(&literal);
    return;
  }
  for (const Literal& e : literal.tuple_elements()) Flatten(e, out);
}

}  // namespace

void ExpectHostMatchesEvaluator(const std::string& hlo, std::vector<Literal> args, uint64_t seed) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  ASSERT_TRUE(module.ok()) << module.status();
  if (args.empty()) {
    absl::StatusOr<std::vector<Literal>> random = MakeRandomInputs(**module, seed);
    ASSERT_TRUE(random.ok()) << random.status();
    args = std::move(*random);
  }
  absl::StatusOr<Literal> expected = HloEvaluator().Evaluate(**module, args);
  ASSERT_TRUE(expected.ok()) << expected.status();

  aot::CompileOptions options;
  options.opt_level = 1;
  options.host_cpu_variants.clear();
  options.production_date = "2026-12-02T00:00:00Z";
  absl::StatusOr<aot::CompiledArtifact> compiled = aot::Compile(hlo, options);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  absl::StatusOr<std::unique_ptr<aot::Executable>> exe =
      aot::Executable::LoadFromBytes(compiled->bytes);
  ASSERT_TRUE(exe.ok()) << exe.status();
  absl::StatusOr<std::vector<Literal>> actual =
      aot::ExecuteOnLiterals(**exe, gpu::testing::HostExecutor(), args);
  ASSERT_TRUE(actual.ok()) << actual.status();
  std::vector<const Literal*> leaves;
  Flatten(*expected, &leaves);
  ASSERT_EQ(leaves.size(), actual->size());
  for (size_t i = 0; i < leaves.size(); ++i) {
    absl::Status s = CompareOutputLeaf(*leaves[i], (*actual)[i]);
    EXPECT_TRUE(s.ok()) << "result leaf " << i << ": " << s;
  }
}

void ExpectCompilesWithCubins(const std::string& hlo, const std::string& target) {
  gpu::GpuCompilerOptions options;
  options.require_cubin = true;
  options.production_date = "2026-12-02T00:00:00Z";
  options.include_optimized_hlo = false;
  absl::StatusOr<gpu::GpuExecutableProto> artifact =
      gpu::CompileHloToGpuArtifactProto(hlo, target, options, nullptr);
  ASSERT_TRUE(artifact.ok()) << target << ": " << artifact.status();
}

}  // namespace xla::e2e
