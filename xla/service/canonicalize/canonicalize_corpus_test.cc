// The canonicalization passes and layout assignment on every corpus module
// the evaluator can run (within a compute budget): OptimizeModule, then
// dot-, convolution- and reduction-canonicalizer and layout-assignment. The
// result must verify, satisfy the layout rule (CheckLayoutsAssigned), have
// every dot / convolution / reduce in canonical form (GetGemmConfig,
// IsCanonicalConvolution, ClassifyReduction), be a fixed point of the four
// passes, and compute what the original computed (CompareLiterals on random
// inputs, fixed seed). Skips are printed with their reasons, as in
// xla/service/optimization_corpus_test.cc.
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/testing/corpus.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/hlo/transforms/while_loop_trip_count.h"
#include "xla/hlo/verifier/hlo_verifier.h"
#include "xla/service/canonicalize/convolution_canonicalizer.h"
#include "xla/service/canonicalize/dot_canonicalizer.h"
#include "xla/service/canonicalize/gemm_config.h"
#include "xla/service/canonicalize/reduction_canonicalizer.h"
#include "xla/service/canonicalize/reduction_kind.h"
#include "xla/service/layout/layout_assignment.h"
#include "xla/service/optimization_pipeline.h"

namespace xla {
namespace {

// Modules compared today (95); raise it as the evaluator and the corpus grow.
constexpr int kMinCompared = 90;
// Element operations per evaluation (see optimization_corpus_test.cc).
constexpr double kComputeBudget = 1e8;
constexpr double kUnknownTrips = 1000;

double InstructionCost(const HloInstruction& instr) {
  const Shape& s = instr.shape();
  const double out = s.IsArray() ? static_cast<double>(s.ElementCount().value_or(0)) : 1.0;
  if (instr.opcode() == HloOpcode::kDot || instr.opcode() == HloOpcode::kConvolution) {
    // Every output element reads at most all of the second operand.
    const Shape& rhs = instr.operand(1)->shape();
    return 2 * out * static_cast<double>(rhs.IsArray() ? rhs.ElementCount().value_or(0) : 1);
  }
  if (instr.opcode() == HloOpcode::kSort && instr.to_apply() != nullptr) {
    const Shape& keys = instr.operand(0)->shape();
    return static_cast<double>(keys.ElementCount().value_or(0)) * 20 *
           static_cast<double>(instr.to_apply()->instruction_count());
  }
  if (instr.opcode() == HloOpcode::kReduceWindow || instr.opcode() == HloOpcode::kSelectAndScatter) {
    return out * 64;
  }
  return out;
}

double ComputationCost(const HloComputation& c, std::map<const HloComputation*, double>* memo) {
  if (auto it = memo->find(&c); it != memo->end()) return it->second;
  double cost = 0;
  for (const auto& i : c.instructions()) {
    cost += InstructionCost(*i);
    double repeat = 1;
    if (i->opcode() == HloOpcode::kWhile) {
      repeat = static_cast<double>(ComputeWhileTripCount(*i).value_or(kUnknownTrips));
    }
    for (const HloComputation* callee : i->called_computations()) {
      if (callee != nullptr) cost += repeat * ComputationCost(*callee, memo);
    }
  }
  (*memo)[&c] = cost;
  return cost;
}

EvaluatorOptions Options() {
  EvaluatorOptions options;
  options.max_while_iterations = 100000;
  return options;
}

struct Counts {
  int64_t total = 0;
  int64_t rewritten = 0;  // not canonical before the passes
  int64_t left = 0;       // not canonical after (dynamic shapes, control edges)
};

struct Totals {
  int compared = 0;
  Counts dots, convs, reduces;
  std::map<std::string, int64_t> reduce_forms;
  int64_t unhandled_layouts = 0;
  std::map<std::string, std::vector<std::string>> skipped;
};

bool CanonicalDot(const HloInstruction& i, bool row_major) { return GetGemmConfig(i, row_major).ok(); }

// Counts `op` instructions and those failing `canonical`; lists failures.
int64_t CountNonCanonical(const HloModule& m, HloOpcode op,
                          const std::function<bool(const HloInstruction&)>& canonical,
                          int64_t* total, std::vector<std::string>* bad) {
  int64_t n = 0;
  for (const auto& c : m.computations()) {
    for (const auto& i : c->instructions()) {
      if (i->opcode() != op) continue;
      ++*total;
      if (canonical(*i)) continue;
      ++n;
      if (bad != nullptr) bad->push_back(i->ToString());
    }
  }
  return n;
}

std::string SkipReason(const absl::Status& status) {
  const std::string message(status.message());
  if (absl::IsUnimplemented(status)) return message.substr(0, message.find(" (instruction"));
  if (message.find("elided value") != std::string::npos) return "elided constants ({...})";
  return "evaluation error (see corpus_eval_test)";
}

// Runs the four passes; returns whether any changed the module.
absl::StatusOr<bool> RunPasses(HloModule* m, LayoutAssignment* layout) {
  DotCanonicalizer dots;
  ConvolutionCanonicalizer convs;
  ReductionCanonicalizer reduces;
  bool changed = false;
  for (HloPass* pass : std::vector<HloPass*>{&dots, &convs, &reduces, layout}) {
    absl::StatusOr<bool> c = pass->Run(m);
    if (!c.ok()) return c.status();
    changed |= *c;
  }
  return changed;
}

void CheckModule(const std::string& path, Totals* totals) {
  const std::string name = path.substr(path.rfind('/') + 1);
  absl::StatusOr<std::unique_ptr<HloModule>> original = ParseHloModuleFile(path);
  ASSERT_TRUE(original.ok()) << original.status();
  if (!VerifyModule(**original).ok()) {
    totals->skipped["does not verify"].push_back(name);
    return;
  }
  std::map<const HloComputation*, double> memo;
  if (ComputationCost(*(*original)->entry_computation(), &memo) > kComputeBudget) {
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
  absl::StatusOr<std::unique_ptr<HloModule>> copy = ParseHloModuleFile(path);
  ASSERT_TRUE(copy.ok()) << copy.status();
  HloModule* m = copy->get();
  OptimizeOptions options;
  options.verify_after_each = false;
  absl::StatusOr<OptimizeResult> optimized = OptimizeModule(m, options);
  ASSERT_TRUE(optimized.ok()) << name << ": " << optimized.status();

  Counts dots, convs, reduces;
  dots.rewritten = CountNonCanonical(*m, HloOpcode::kDot,
                                     [](const HloInstruction& i) { return CanonicalDot(i, false); },
                                     &dots.total, nullptr);
  convs.rewritten = CountNonCanonical(*m, HloOpcode::kConvolution, IsCanonicalConvolution,
                                      &convs.total, nullptr);
  reduces.rewritten = CountNonCanonical(
      *m, HloOpcode::kReduce,
      [](const HloInstruction& i) { return ClassifyReduction(i).form != ReductionForm::kOther; },
      &reduces.total, nullptr);

  LayoutAssignment layout;
  absl::StatusOr<bool> changed = RunPasses(m, &layout);
  ASSERT_TRUE(changed.ok()) << name << ": " << changed.status();
  totals->unhandled_layouts += static_cast<int64_t>(layout.unhandled().size());
  absl::Status verified = VerifyModule(*m);
  ASSERT_TRUE(verified.ok()) << name << ": " << verified;
  absl::Status layouts = CheckLayoutsAssigned(*m);
  EXPECT_TRUE(layouts.ok()) << name << ": " << layouts;

  std::vector<std::string> bad;
  int64_t ignored = 0;
  dots.left = CountNonCanonical(*m, HloOpcode::kDot,
                                [](const HloInstruction& i) { return CanonicalDot(i, true); }, &ignored,
                                &bad);
  convs.left = CountNonCanonical(*m, HloOpcode::kConvolution, IsCanonicalConvolution, &ignored, &bad);
  reduces.left = CountNonCanonical(
      *m, HloOpcode::kReduce,
      [](const HloInstruction& i) { return ClassifyReduction(i).form != ReductionForm::kOther; },
      &ignored, &bad);
  for (const std::string& b : bad) ADD_FAILURE() << name << ": not canonical: " << b;
  for (const auto& c : m->computations()) {
    for (const auto& i : c->instructions()) {
      if (i->opcode() == HloOpcode::kReduce) {
        ++totals->reduce_forms[std::string(ReductionFormName(ClassifyReduction(*i).form))];
      }
    }
  }

  LayoutAssignment layout_again;
  absl::StatusOr<bool> again = RunPasses(m, &layout_again);
  ASSERT_TRUE(again.ok()) << name << ": " << again.status();
  EXPECT_FALSE(*again) << name << ": the passes are not idempotent";

  absl::StatusOr<Literal> actual = HloEvaluator(Options()).Evaluate(*m, *args);
  ASSERT_TRUE(actual.ok()) << name << ": canonical module does not evaluate: " << actual.status();
  absl::Status same = CompareCorpusResults(name, *expected, *actual);
  EXPECT_TRUE(same.ok()) << name << ": " << same;
  ++totals->compared;
  std::printf("  %-90s dots %lld/%lld convs %lld/%lld reduces %lld/%lld rewritten\n", name.c_str(),
              static_cast<long long>(dots.rewritten), static_cast<long long>(dots.total),
              static_cast<long long>(convs.rewritten), static_cast<long long>(convs.total),
              static_cast<long long>(reduces.rewritten), static_cast<long long>(reduces.total));
  std::fflush(stdout);
  for (auto [sum, add] : {std::pair{&totals->dots, &dots}, std::pair{&totals->convs, &convs},
                          std::pair{&totals->reduces, &reduces}}) {
    sum->total += add->total;
    sum->rewritten += add->rewritten;
    sum->left += add->left;
  }
}

void PrintCounts(const char* what, const Counts& c) {
  std::printf("  %-8s %6lld total, %6lld rewritten, %lld left non-canonical\n", what,
              static_cast<long long>(c.total), static_cast<long long>(c.rewritten),
              static_cast<long long>(c.left));
}

TEST(CanonicalizeCorpus, CanonicalModulesComputeTheSame) {
  absl::StatusOr<std::vector<std::string>> files = ListCorpusFiles();
  ASSERT_TRUE(files.ok()) << files.status();
  Totals totals;
  const auto start = std::chrono::steady_clock::now();
  for (const std::string& path : *files) CheckModule(path, &totals);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("canonicalize corpus: %d of %zu modules compared in %.1fs\n", totals.compared,
              files->size(), seconds);
  PrintCounts("dots", totals.dots);
  PrintCounts("convs", totals.convs);
  PrintCounts("reduces", totals.reduces);
  for (const auto& [form, n] : totals.reduce_forms) {
    std::printf("  reduce form %-7s %lld\n", form.c_str(), static_cast<long long>(n));
  }
  std::printf("  layouts left alone (suffix or malformed): %lld\n",
              static_cast<long long>(totals.unhandled_layouts));
  std::printf("skipped:\n");
  for (const auto& [reason, names] : totals.skipped) {
    std::printf("  %zu x %s\n", names.size(), reason.c_str());
  }
  EXPECT_GE(totals.compared, kMinCompared);
  EXPECT_GT(totals.dots.rewritten, 0);
  EXPECT_GT(totals.reduces.rewritten, 0);
}

}  // namespace
}  // namespace xla
