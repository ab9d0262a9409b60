// Test helpers for xla/jit (testonly): real artifacts for small modules,
// parsing that fails the test, and comparison with the reference evaluator.
#ifndef XLA_JIT_JIT_TEST_UTIL_H_
#define XLA_JIT_JIT_TEST_UTIL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "xla/jit/jit_module.h"
#include "xla/stream_executor/stream_executor.h"
#include "xla/types/literal.h"

namespace xla::jit::testing {

// A module of one f32[n] elementwise op chain, named `name`:
// (x, y) -> tanh(x * y + x), with n odd.
std::string SmallModuleText(absl::string_view name, int64_t n = 37);
// A second, different small module: (x) -> reduce-sum over dimension 1 of
// f32[rows, 13].
std::string ReduceModuleText(absl::string_view name, int64_t rows = 5);

// Parses and verifies; aborts the test binary on failure (a test bug).
std::shared_ptr<const JitModule> MustParse(absl::string_view hlo_text);

// The real host compiler's artifact for `module` (fast tier, so tests stay
// quick), memoized by canonical text. Thread-safe.
absl::StatusOr<std::string> RealArtifact(const JitModule& module);

// Random arguments for `module` (seed), via MakeRandomInputs.
std::vector<Literal> RandomArgs(const JitModule& module, uint64_t seed);

// OK when `actual` (leaves, depth-first) equals the evaluator's result on
// `args` within CompareLiterals' tolerance; otherwise the first mismatch.
absl::Status MatchesEvaluator(const JitModule& module, absl::Span<const Literal> args,
                              const std::vector<Literal>& actual);

// The host device.
stream_executor::StreamExecutor* HostDevice();

}  // namespace xla::jit::testing

#endif  // XLA_JIT_JIT_TEST_UTIL_H_
