// OptimizeModule keeps the meaning of every corpus module the evaluator can
// run: each is parsed twice, one copy optimized, and both evaluated on the
// same random inputs (fixed seed). Integers and pred must match exactly,
// floats within CompareLiterals' tolerance (1e-5 relative for f32), NaN in
// the same places. Modules are skipped, with reasons printed, as in
// xla/hlo/evaluator/corpus_eval_test.cc (do not verify, over the compute
// budget, no random inputs, unsupported by the evaluator). Any pass failure,
// verifier failure or mismatch fails the test.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/testing/corpus.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/hlo/transforms/while_loop_trip_count.h"
#include "xla/hlo/verifier/hlo_verifier.h"
#include "xla/service/optimization_pipeline.h"

namespace xla {
namespace {

// Modules compared today; raise it as the evaluator grows.
constexpr int kMinCompared = 100;
// corpus_eval_test's budget is 3e8; this test evaluates every module twice
// and counts loop iterations and sort comparators too (see ModuleCost), so
// it keeps a third of that to stay within a test timeout on a shared
// two-core machine.
constexpr double kComputeBudget = 1e8;

double InstructionCost(const HloInstruction& instr) {
  const Shape& s = instr.shape();
  double out = s.IsArray() ? static_cast<double>(s.ElementCount().value_or(0)) : 1.0;
  if (instr.opcode() == HloOpcode::kDot) {
    double contracted = 1;
    const Shape& lhs = instr.operand(0)->shape();
    for (int64_t d : instr.GetIntList(AttrId::kLhsContractingDims)) {
      if (d >= 0 && d < lhs.rank()) contracted *= static_cast<double>(lhs.dimensions(d));
    }
    return 2 * out * contracted;
  }
  if (instr.opcode() == HloOpcode::kConvolution) {
    const Shape& kernel = instr.operand(1)->shape();
    double kernel_elems = static_cast<double>(kernel.ElementCount().value_or(0));
    const auto* labels = instr.FindAttr(AttrId::kDimLabels);
    double out_features = 1;
    if (labels != nullptr) {
      out_features = static_cast<double>(s.dimensions(std::get<ConvDimLabels>(*labels).output_feature));
    }
    return 2 * out * kernel_elems / std::max(out_features, 1.0);
  }
  if (instr.opcode() == HloOpcode::kReduceWindow || instr.opcode() == HloOpcode::kSelectAndScatter) {
    const auto* w = instr.FindAttr(AttrId::kWindow);
    double window = 1;
    if (w != nullptr) {
      for (const WindowDim& d : std::get<Window>(*w).dims) window *= static_cast<double>(d.size);
    }
    return out * window;
  }
  // About log2(n) comparator calls per element, each running the comparator.
  if (instr.opcode() == HloOpcode::kSort && instr.to_apply() != nullptr) {
    const Shape& first = instr.operand(0)->shape();
    return static_cast<double>(first.ElementCount().value_or(0)) * 20 *
           static_cast<double>(instr.to_apply()->instruction_count());
  }
  return out;
}

// Unlike corpus_eval_test's flat sum, loops count their bodies once per
// iteration (ComputeWhileTripCount, or kUnknownTrips) and calls count their
// callees: nested loops over big arrays otherwise run for many minutes.
constexpr double kUnknownTrips = 1000;

double ComputationCost(const HloComputation& c, std::map<const HloComputation*, double>* memo) {
  if (auto it = memo->find(&c); it != memo->end()) return it->second;
  double cost = 0;
  for (const auto& i : c.instructions()) {
    cost += InstructionCost(*i);
    const HloOpcode op = i->opcode();
    if (op == HloOpcode::kWhile) {
      const double trips = static_cast<double>(ComputeWhileTripCount(*i).value_or(kUnknownTrips));
      for (const HloComputation* callee : i->called_computations()) {
        cost += trips * ComputationCost(*callee, memo);
      }
    } else if (op == HloOpcode::kCall || op == HloOpcode::kConditional || op == HloOpcode::kFusion) {
      for (const HloComputation* callee : i->called_computations()) cost += ComputationCost(*callee, memo);
    }
  }
  (*memo)[&c] = cost;
  return cost;
}

double ModuleCost(const HloModule& m) {
  std::map<const HloComputation*, double> memo;
  return ComputationCost(*m.entry_computation(), &memo);
}

int64_t InstructionCount(const HloModule& m) {
  int64_t n = 0;
  for (const auto& c : m.computations()) n += c->instruction_count();
  return n;
}

EvaluatorOptions Options() {
  EvaluatorOptions options;
  options.max_while_iterations = 100000;
  return options;
}

struct Totals {
  int compared = 0;
  int64_t before = 0;
  int64_t after = 0;
  std::map<std::string, std::vector<std::string>> skipped;  // reason -> files
};

// Why the original cannot serve as a reference, or "" when it evaluated.
std::string SkipReason(const absl::Status& status) {
  const std::string message(status.message());
  if (absl::IsUnimplemented(status)) return message.substr(0, message.find(" (instruction"));
  if (message.find("elided value") != std::string::npos) return "elided constants ({...})";
  return "evaluation error (see corpus_eval_test)";
}

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void CheckModule(const std::string& path, Totals* totals) {
  const std::string name = path.substr(path.rfind('/') + 1);
  const double t0 = Now();
  absl::StatusOr<std::unique_ptr<HloModule>> original = ParseHloModuleFile(path);
  ASSERT_TRUE(original.ok()) << original.status();
  if (!VerifyModule(**original).ok()) {
    totals->skipped["does not verify"].push_back(name);
    return;
  }
  if (ModuleCost(**original) > kComputeBudget) {
    totals->skipped["over the compute budget"].push_back(name);
    return;
  }
  absl::StatusOr<std::vector<Literal>> args = MakeRandomInputs(**original, 1);
  if (!args.ok()) {
    totals->skipped["no random inputs"].push_back(name);
    return;
  }
  absl::StatusOr<Literal> expected = HloEvaluator(Options()).Evaluate(**original, *args);
  if (!expected.ok()) {
    totals->skipped[SkipReason(expected.status())].push_back(name);
    return;
  }
  const double t1 = Now();
  absl::StatusOr<std::unique_ptr<HloModule>> copy = ParseHloModuleFile(path);
  ASSERT_TRUE(copy.ok()) << copy.status();
  OptimizeOptions options;
  options.verify_after_each = true;
  absl::StatusOr<OptimizeResult> optimized = OptimizeModule(copy->get(), options);
  ASSERT_TRUE(optimized.ok()) << name << ": " << optimized.status();
  const double t2 = Now();
  absl::StatusOr<Literal> actual = HloEvaluator(Options()).Evaluate(**copy, *args);
  ASSERT_TRUE(actual.ok()) << name << ": optimized module does not evaluate: " << actual.status();
  absl::Status same = CompareCorpusResults(name, *expected, *actual);
  EXPECT_TRUE(same.ok()) << name << ": " << same;
  ++totals->compared;
  const int64_t before = InstructionCount(**original), after = InstructionCount(**copy);
  totals->before += before;
  totals->after += after;
  std::printf("  %-90s %6lld -> %6lld instructions (eval %.2fs, optimize %.2fs, eval %.2fs)\n",
              name.c_str(), static_cast<long long>(before), static_cast<long long>(after), t1 - t0,
              t2 - t1, Now() - t2);
  std::fflush(stdout);
}

TEST(OptimizationCorpus, OptimizedModulesComputeTheSame) {
  absl::StatusOr<std::vector<std::string>> files = ListCorpusFiles();
  ASSERT_TRUE(files.ok()) << files.status();
  Totals totals;
  for (const std::string& path : *files) CheckModule(path, &totals);
  std::printf("optimization corpus: %d of %zu modules compared; instructions %lld -> %lld\n",
              totals.compared, files->size(), static_cast<long long>(totals.before),
              static_cast<long long>(totals.after));
  std::printf("skipped:\n");
  for (const auto& [reason, names] : totals.skipped) {
    std::printf("  %zu x %s\n", names.size(), reason.c_str());
  }
  EXPECT_GE(totals.compared, kMinCompared);
}

}  // namespace
}  // namespace xla
