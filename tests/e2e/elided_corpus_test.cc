// The corpus models whose HLO elides large constants (`constant({...})`)
// compile with CompileOptions::elided_constants = kRandom for the host and
// for sm_90 (every kernel through ptxas when it is installed), and the
// smaller ones run on the host to the evaluator's results on the same module
// filled the same way (ElidedConstantFiller, the oracle `xla_aot run
// --reference` uses). One test per model, so Bazel's shards split them.
// The evaluator takes minutes on diffrax, the 0428 fragment and dlrm
// train_step with the fastbuild binary, so those only compile here. No
// optimized HLO text is stored: it would print every invented value
// (77 MB of text for graphsage_tf's two 56945x50 tables).
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/aot/compile.h"
#include "xla/aot/executable.h"
#include "xla/aot/literal_execution.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/testing/corpus.h"
#include "xla/hlo/transforms/elided_constant_filler.h"
#include "xla/hlo/transforms/literal_compare.h"

namespace xla {
namespace {

struct ElidedModel {
  const char* file;  // under models/
  bool run_on_host;  // also run and compare with the evaluator
};

constexpr ElidedModel kModels[] = {
    {"backends__cpu__benchmarks__hlo__dlrm_keras_jax_f32_test_step.hlo", true},
    {"backends__cpu__benchmarks__hlo__jax.issue.33666.linx.slow_0100.module_0013.hlo", true},
    {"backends__cpu__benchmarks__hlo__diffrax.b380012920.hlo", false},
    {"backends__cpu__benchmarks__hlo__jax.issue.33666.linx.slow_0428.module_0006.hlo", false},
    {"backends__cpu__benchmarks__hlo__dlrm_keras_jax_f32_train_step.hlo", false},
    {"backends__cpu__benchmarks__hlo__graphsage_tf.hlo", true},
};

constexpr uint64_t kSeed = 7;

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

aot::CompileOptions Options(const std::string& target, const std::string& path) {
  aot::CompileOptions options;
  options.target = target;
  options.source_name = path;
  options.host_cpu_variants = {};
  options.include_optimized_hlo = false;
  options.elided_constants = ElidedConstantsMode::kRandom;
  options.elided_constants_seed = kSeed;
  return options;
}

// The result's array leaves, depth-first (the order ExecuteOnLiterals gives).
void AppendLeaves(const Literal& value, std::vector<const Literal*>* leaves) {
  if (!value.shape().IsTuple()) {
    leaves->push_back(&value);
    return;
  }
  for (const Literal& e : value.tuple_elements()) AppendLeaves(e, leaves);
}

class ElidedCorpus : public ::testing::TestWithParam<ElidedModel> {};

TEST_P(ElidedCorpus, CompilesForHostAndSm90AndMatchesTheEvaluator) {
  absl::StatusOr<std::string> dir = FindHloCorpusDir();
  ASSERT_TRUE(dir.ok()) << dir.status();
  const std::string path = absl::StrCat(*dir, "/models/", GetParam().file);
  const std::string text = ReadText(path);
  ASSERT_FALSE(text.empty()) << path;

  // Without the option the module is refused, naming an elided constant.
  absl::Status refused = aot::Compile(text, aot::CompileOptions()).status();
  EXPECT_NE(refused.message().find("has an elided value"), std::string::npos) << refused;

  absl::StatusOr<aot::CompiledArtifact> gpu = aot::Compile(text, Options("sm_90", path));
  ASSERT_TRUE(gpu.ok()) << path << ": sm_90: " << gpu.status();
  EXPECT_FALSE(gpu->statistics.invented_constants.empty());
  absl::StatusOr<aot::CompiledArtifact> host = aot::Compile(text, Options("host", path));
  ASSERT_TRUE(host.ok()) << path << ": host: " << host.status();
  absl::StatusOr<std::unique_ptr<aot::Executable>> exe = aot::Executable::LoadFromBytes(host->bytes);
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ((*exe)->program().payload_tables().invented_constants().count(),
            static_cast<int64_t>(host->statistics.invented_constants.size()));
  if (!GetParam().run_on_host) return;

  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text, path);
  ASSERT_TRUE(module.ok()) << module.status();
  ElidedConstantsOptions fill;
  fill.mode = ElidedConstantsMode::kRandom;
  fill.seed = kSeed;
  ASSERT_TRUE(FillElidedConstants(module->get(), fill).ok());
  absl::StatusOr<std::vector<Literal>> args = MakeRandomInputs(**module, 42);
  ASSERT_TRUE(args.ok()) << args.status();
  absl::StatusOr<Literal> expected = HloEvaluator().Evaluate(**module, *args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  absl::StatusOr<std::vector<Literal>> actual =
      aot::ExecuteOnLiterals(**exe, gpu::testing::HostExecutor(), *args);
  ASSERT_TRUE(actual.ok()) << actual.status();
  std::vector<const Literal*> leaves;
  AppendLeaves(*expected, &leaves);
  ASSERT_EQ(leaves.size(), actual->size());
  for (size_t i = 0; i < leaves.size(); ++i) {
    absl::Status same = CompareOutputLeaf(*leaves[i], (*actual)[i]);
    EXPECT_TRUE(same.ok()) << path << ": output " << i << ": " << same;
  }
}

INSTANTIATE_TEST_SUITE_P(Models, ElidedCorpus, ::testing::ValuesIn(kModels));

}  // namespace
}  // namespace xla
