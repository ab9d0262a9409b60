// Test helper for host dot tests (host_bf16_dot_test, host_small_gemm_test):
// one HLO module with random inputs, the evaluator's result for them, and
// the module compiled for the host (no CPU variants) and loaded, so a test
// can run it under several GEMM paths.
//
// Thread-safety: plain functions; the returned objects are the caller's.
#ifndef XLA_AOT_HOST_DOT_TEST_UTIL_H_
#define XLA_AOT_HOST_DOT_TEST_UTIL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xla/aot/executable.h"
#include "xla/types/literal.h"

namespace xla::aot {

struct HostDotModule {
  std::vector<Literal> args;
  Literal expected;  // the evaluator's output for `args`
  std::unique_ptr<Executable> executable;
};

// Parses `hlo`, draws its inputs with MakeRandomInputs(seed), evaluates it
// and compiles and loads it for the host. Fails with the first step's
// error (parse, inputs, evaluator, compile, load).
absl::StatusOr<HostDotModule> PrepareHostDotModule(const std::string& hlo, uint64_t seed);

// Runs the module on the host executor and returns its single output; an
// error for a failed run or a tuple of another size.
absl::StatusOr<Literal> RunHostDotModule(const HostDotModule& module);

}  // namespace xla::aot

#endif  // XLA_AOT_HOST_DOT_TEST_UTIL_H_
