// Test helpers for evaluator tests: build literals from values and evaluate
// HLO text. Test-only; failures are reported through gtest.
#ifndef XLA_HLO_EVALUATOR_EVALUATOR_TEST_UTIL_H_
#define XLA_HLO_EVALUATOR_EVALUATOR_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/types/literal.h"

namespace xla::evaluator_test {

// A literal of `type` and `dims` holding `values` in row-major order
// (floats rounded to the type, integers wrapped, pred != 0).
Literal MakeLiteral(PrimitiveType type, std::vector<int64_t> dims, std::vector<double> values);
// Same, for exact 64-bit integers.
Literal MakeIntLiteral(PrimitiveType type, std::vector<int64_t> dims, std::vector<int64_t> values);
Literal Tuple(std::vector<Literal> elements);

// Parses `hlo` and evaluates its entry computation with `args`.
absl::StatusOr<Literal> EvalText(absl::string_view hlo, const std::vector<Literal>& args,
                                 EvaluatorOptions options = {});

// The literal's values as doubles (row-major), for EXPECT comparisons.
std::vector<double> Values(const Literal& l);
std::vector<int64_t> IntValues(const Literal& l);
// A complex literal's real and imaginary parts, interleaved (re0, im0,
// re1, ...).
std::vector<double> ComplexValues(const Literal& l);

}  // namespace xla::evaluator_test

#endif  // XLA_HLO_EVALUATOR_EVALUATOR_TEST_UTIL_H_
