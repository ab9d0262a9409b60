// Test helpers for pass tests: run a pass on inline HLO text, check the
// result verifies and computes what the input computed (the evaluator on
// random inputs), and hand back the printed module for text checks.
// Test-only; failures are reported through gtest (ADD_FAILURE).
#ifndef XLA_HLO_TRANSFORMS_PASS_TEST_UTIL_H_
#define XLA_HLO_TRANSFORMS_PASS_TEST_UTIL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/hlo/transforms/hlo_pass.h"
#include "xla/types/literal.h"

namespace xla::pass_test {

struct PassResult {
  bool changed = false;
  std::string text;                 // PrintModule of the result
  std::unique_ptr<HloModule> module;  // the rewritten module (null on failure)
};

// How RunPassAndCheck compares.
struct CheckOptions {
  // Called on each seed's random inputs before both evaluations, for
  // operands that must hold particular values (group sizes, power-of-two
  // scales). Null: the random inputs as they are.
  std::function<void(std::vector<Literal>* inputs)> adjust_inputs;
  // Compare as a compiled program's output against a reference
  // (CompareOutputLeaf: errors relative to the output's scale), for
  // rewrites whose steps round separately where the original rounds once.
  // False: CompareLiterals.
  bool output_scale_tolerance = false;
  // When set, replaces both comparisons: OK when the output `after` the
  // pass is close enough to the one `before` it, by the test's own bound
  // (rewrites with a stated numeric contract).
  std::function<absl::Status(const Literal& before, const Literal& after)> compare;
};

// Parses `hlo`, runs `pass` once, verifies the result and compares the
// evaluator's outputs before and after on random inputs from seeds 1..3
// (as `options` says). Any failure is an ADD_FAILURE naming the step.
PassResult RunPassAndCheck(HloPass& pass, absl::string_view hlo, const CheckOptions& options = {});

// Parses `hlo`, runs `pass` once and verifies the result, without the
// numeric comparison (for modules the evaluator cannot run: side-effecting
// custom calls, tokens, ...).
PassResult RunPassOnly(HloPass& pass, absl::string_view hlo);

// True when `text` contains `needle`; for EXPECT_TRUE with a readable
// failure message (the whole text is printed on failure).
::testing::AssertionResult Contains(const std::string& text, absl::string_view needle);
// True when `text` does not contain `needle`.
::testing::AssertionResult Lacks(const std::string& text, absl::string_view needle);

// Number of instructions (all computations) whose opcode is `opcode`.
int64_t CountOpcode(const HloModule& module, HloOpcode opcode);

}  // namespace xla::pass_test

#endif  // XLA_HLO_TRANSFORMS_PASS_TEST_UTIL_H_
