#include "xla/hlo/transforms/pass_test_util.h"

#include <vector>

#include "absl/strings/match.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/parser/hlo_printer.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/hlo/verifier/hlo_verifier.h"

namespace xla::pass_test {
namespace {

constexpr uint64_t kSeeds[] = {1, 2, 3};

// Evaluates `module` on each seed's random inputs; empty on failure.
std::vector<Literal> EvaluateOnSeeds(const HloModule& module, const char* what,
                                     const CheckOptions& options) {
  std::vector<Literal> results;
  for (uint64_t seed : kSeeds) {
    absl::StatusOr<std::vector<Literal>> args = MakeRandomInputs(module, seed);
    if (!args.ok()) {
      ADD_FAILURE() << what << ": no random inputs: " << args.status();
      return {};
    }
    if (options.adjust_inputs) options.adjust_inputs(&*args);
    absl::StatusOr<Literal> r = HloEvaluator().Evaluate(module, *args);
    if (!r.ok()) {
      ADD_FAILURE() << what << ": evaluation failed: " << r.status();
      return {};
    }
    results.push_back(std::move(*r));
  }
  return results;
}

}  // namespace

PassResult RunPassAndCheck(HloPass& pass, absl::string_view hlo, const CheckOptions& options) {
  PassResult result;
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  if (!module.ok()) {
    ADD_FAILURE() << "parse: " << module.status();
    return result;
  }
  if (absl::Status v = VerifyModule(**module); !v.ok()) {
    ADD_FAILURE() << "input does not verify: " << v;
    return result;
  }
  std::vector<Literal> before = EvaluateOnSeeds(**module, "input", options);
  absl::StatusOr<bool> changed = pass.Run(module->get());
  if (!changed.ok()) {
    ADD_FAILURE() << "pass " << pass.name() << " failed: " << changed.status();
    return result;
  }
  result.changed = *changed;
  result.text = PrintModule(**module);
  if (absl::Status v = VerifyModule(**module); !v.ok()) {
    ADD_FAILURE() << "output does not verify: " << v << "\n" << result.text;
    return result;
  }
  absl::StatusOr<std::unique_ptr<HloModule>> reparsed = ParseHloModule(result.text);
  if (!reparsed.ok()) ADD_FAILURE() << "output does not parse back: " << reparsed.status();
  std::vector<Literal> after = EvaluateOnSeeds(**module, "output", options);
  for (size_t i = 0; i < before.size() && i < after.size(); ++i) {
    absl::Status same = options.compare                  ? options.compare(before[i], after[i])
                        : options.output_scale_tolerance ? CompareOutputLeaf(before[i], after[i])
                                                         : CompareLiterals(before[i], after[i]);
    if (!same.ok()) ADD_FAILURE() << "seed " << kSeeds[i] << ": " << same << "\n" << result.text;
  }
  result.module = std::move(*module);
  return result;
}

PassResult RunPassOnly(HloPass& pass, absl::string_view hlo) {
  PassResult result;
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  if (!module.ok()) {
    ADD_FAILURE() << "parse: " << module.status();
    return result;
  }
  absl::StatusOr<bool> changed = pass.Run(module->get());
  if (!changed.ok()) {
    ADD_FAILURE() << "pass " << pass.name() << " failed: " << changed.status();
    return result;
  }
  result.changed = *changed;
  result.text = PrintModule(**module);
  if (absl::Status v = VerifyModule(**module); !v.ok()) {
    ADD_FAILURE() << "output does not verify: " << v << "\n" << result.text;
  }
  result.module = std::move(*module);
  return result;
}

::testing::AssertionResult Contains(const std::string& text, absl::string_view needle) {
  if (absl::StrContains(text, needle)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected `" << needle << "` in:\n" << text;
}

::testing::AssertionResult Lacks(const std::string& text, absl::string_view needle) {
  if (!absl::StrContains(text, needle)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "did not expect `" << needle << "` in:\n" << text;
}

int64_t CountOpcode(const HloModule& module, HloOpcode opcode) {
  int64_t n = 0;
  for (const auto& c : module.computations()) {
    for (const auto& i : c->instructions()) n += i->opcode() == opcode;
  }
  return n;
}

}  // namespace xla::pass_test
