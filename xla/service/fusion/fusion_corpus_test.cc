// The fusion pipeline on every corpus module: each module that verifies is
// optimized (OptimizeModule), printed and re-parsed into a copy, and the
// copy is fused (fusion + multi-output-fusion, verifier after each pass).
// Every module must fuse and verify. Where the evaluator runs the optimized
// module within a time budget (random inputs, fixed seed), the fused copy
// must compute exactly the same values (fusion does not change arithmetic:
// CompareLiterals with tolerance 0, NaN in the same places). Prints kernel
// counts and pass times per module, and fails when fewer than kMinCompared
// modules were compared.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/parser/hlo_printer.h"
#include "xla/hlo/testing/corpus.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/hlo/verifier/hlo_verifier.h"
#include "xla/service/fusion/fusion_pipeline.h"
#include "xla/service/optimization_pipeline.h"

namespace xla {
namespace {

// Modules compared today; raise it as the evaluator grows.
constexpr int kMinCompared = 92;
// Evaluation budget for the optimized module (seconds); the fused copy gets
// kFusedBudgetFactor times as long.
constexpr double kEvalBudgetSeconds = 2.0;
constexpr double kFusedBudgetFactor = 10;

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A rough evaluation cost: elements produced, with dot and convolution
// counted per multiply-add. Modules above kMaxCost (or with more than
// kMaxInputBytes of parameters) are fused and verified but not evaluated.
constexpr double kMaxCost = 3e7;
constexpr int64_t kMaxInputBytes = int64_t{16} << 20;

double Elements(const Shape& s) {
  if (s.IsTuple()) {
    double n = 0;
    for (const Shape& e : s.tuple_shapes()) n += Elements(e);
    return n;
  }
  return s.IsArray() ? static_cast<double>(s.ElementCount().value_or(0)) : 1.0;
}

double ModuleCost(const HloModule& m) {
  double cost = 0;
  for (const auto& c : m.computations()) {
    for (const auto& i : c->instructions()) {
      double out = Elements(i->shape());
      if (i->opcode() == HloOpcode::kDot || i->opcode() == HloOpcode::kConvolution) {
        out *= Elements(i->operand(1)->shape());
      }
      cost += out;
    }
  }
  return cost;
}

int64_t InputBytes(const HloModule& m) {
  int64_t bytes = 0;
  for (const HloInstruction* p : m.entry_computation()->parameter_instructions()) {
    if (p != nullptr && p->shape().IsArray()) bytes += p->shape().ByteSize().value_or(0);
  }
  return bytes;
}

EvaluatorOptions Options(double seconds) {
  EvaluatorOptions options;
  options.max_while_iterations = 100000;
  options.time_limit_seconds = seconds;
  return options;
}

std::string SkipReason(const absl::Status& status) {
  if (absl::IsDeadlineExceeded(status)) return "over the evaluation time budget";
  const std::string message(status.message());
  if (absl::IsUnimplemented(status)) return message.substr(0, message.find(" (instruction"));
  if (message.find("elided value") != std::string::npos) return "elided constants ({...})";
  return "evaluation error (see corpus_eval_test)";
}

struct Totals {
  int fused = 0;
  int compared = 0;
  int64_t kernels = 0;
  int64_t fusions = 0;
  double fusion_seconds = 0;
  std::map<std::string, std::vector<std::string>> skipped;
};

void CheckModule(const std::string& path, Totals* totals) {
  const std::string name = path.substr(path.rfind('/') + 1);
  absl::StatusOr<std::unique_ptr<HloModule>> optimized = ParseHloModuleFile(path);
  ASSERT_TRUE(optimized.ok()) << optimized.status();
  if (!VerifyModule(**optimized).ok()) {
    totals->skipped["does not verify"].push_back(name);
    return;
  }
  OptimizeOptions optimize;
  optimize.verify_after_each = false;
  absl::StatusOr<OptimizeResult> o = OptimizeModule(optimized->get(), optimize);
  ASSERT_TRUE(o.ok()) << name << ": " << o.status();
  absl::StatusOr<std::unique_ptr<HloModule>> fused = ParseHloModule(PrintModule(**optimized));
  ASSERT_TRUE(fused.ok()) << name << ": " << fused.status();
  FusionPipelineOptions options;
  options.verify_after_each = false;  // once below, to save time
  absl::StatusOr<FusionPipelineResult> r = RunFusionPipeline(fused->get(), options);
  ASSERT_TRUE(r.ok()) << name << ": " << r.status();
  absl::Status verified = VerifyModule(**fused);
  ASSERT_TRUE(verified.ok()) << name << ": fused module does not verify: " << verified;
  ++totals->fused;
  totals->kernels += r->stats.kernels;
  totals->fusions += r->stats.fusions;
  totals->fusion_seconds += r->fusion_seconds + r->multi_output_seconds;
  std::printf("  %-84s %s; fusion %.3fs + mof %.3fs\n", name.c_str(), r->stats.ToString().c_str(),
              r->fusion_seconds, r->multi_output_seconds);
  std::fflush(stdout);
  if (ModuleCost(**optimized) > kMaxCost || InputBytes(**optimized) > kMaxInputBytes) {
    totals->skipped["over the evaluation cost budget"].push_back(name);
    return;
  }
  absl::StatusOr<std::vector<Literal>> args = MakeRandomInputs(**optimized, 1);
  if (!args.ok()) {
    totals->skipped["no random inputs"].push_back(name);
  } else {
    const double t0 = Now();
    absl::StatusOr<Literal> expected = HloEvaluator(Options(kEvalBudgetSeconds)).Evaluate(**optimized, *args);
    if (!expected.ok()) {
      totals->skipped[SkipReason(expected.status())].push_back(name);
    } else {
      const double budget = kFusedBudgetFactor * std::max(kEvalBudgetSeconds, Now() - t0);
      absl::StatusOr<Literal> actual = HloEvaluator(Options(budget)).Evaluate(**fused, *args);
      ASSERT_TRUE(actual.ok()) << name << ": fused module does not evaluate: " << actual.status();
      absl::Status same = CompareLiterals(*expected, *actual, /*tolerance_scale=*/0);
      EXPECT_TRUE(same.ok()) << name << ": " << same;
      ++totals->compared;
    }
  }
}

TEST(FusionCorpus, FusedModulesVerifyAndComputeTheSame) {
  absl::StatusOr<std::vector<std::string>> files = ListCorpusFiles();
  ASSERT_TRUE(files.ok()) << files.status();
  // For local investigation only: $FUSION_CORPUS_FILTER restricts the run
  // to file names containing it (the minimum count then fails).
  const char* filter = std::getenv("FUSION_CORPUS_FILTER");
  Totals totals;
  for (const std::string& path : *files) {
    if (filter != nullptr && path.find(filter) == std::string::npos) continue;
    CheckModule(path, &totals);
  }
  std::printf("fusion corpus: %d of %zu modules fused, %d compared; %lld kernels, %lld fusions; "
              "fusion passes %.2fs in total\n",
              totals.fused, files->size(), totals.compared, static_cast<long long>(totals.kernels),
              static_cast<long long>(totals.fusions), totals.fusion_seconds);
  std::printf("not compared:\n");
  for (const auto& [reason, names] : totals.skipped) std::printf("  %zu x %s\n", names.size(), reason.c_str());
  EXPECT_GE(totals.compared, kMinCompared);
}

}  // namespace
}  // namespace xla
