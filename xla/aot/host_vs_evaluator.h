// Test helpers for end-to-end checks of one HLO program: compiled for the
// host target, run on the host executor and compared with the reference
// evaluator; or compiled for an sm_XX target with ptxas accepting every
// kernel. The Prepare/Run/Compare functions return statuses (for tests that
// run one program several ways, e.g. under two GEMM paths); the Expect
// functions report through gtest (ADD_FAILURE / fatal assertions in the
// helper) and return nothing.
//
// Test-only. Thread-compatible: each call compiles its own artifact; the
// host executor is the shared test device.
#ifndef XLA_AOT_HOST_VS_EVALUATOR_H_
#define XLA_AOT_HOST_VS_EVALUATOR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "xla/aot/compile.h"
#include "xla/aot/executable.h"
#include "xla/types/literal.h"

namespace xla::aot {

// One program ready for a host-vs-evaluator check.
struct HostProgram {
  std::vector<Literal> args;
  Literal expected;  // the evaluator's result for `args` (a tuple stays one)
  std::unique_ptr<Executable> executable;  // compiled for the host, loaded
};

// What the checks compile with: target host, opt level 1, the portable CPU
// build only, a fixed production date.
CompileOptions HostTestCompileOptions();

// Parses `hlo`, draws its inputs with MakeRandomInputs(seed) when `args` is
// empty, evaluates it and compiles and loads it for the host with
// `options`. Fails with the first step's error (parse, inputs, evaluator,
// compile, load).
absl::StatusOr<HostProgram> PrepareHostProgram(const std::string& hlo, std::vector<Literal> args = {},
                                               uint64_t seed = 7,
                                               const CompileOptions& options = HostTestCompileOptions());

// Runs the program on the host executor on its args: the result leaves,
// depth-first. Fails with the run's error.
absl::StatusOr<std::vector<Literal>> RunHostProgram(const HostProgram& program);

// RunHostProgram for a program with one output: that output; an error for
// a failed run or another number of outputs.
absl::StatusOr<Literal> RunHostProgramOneOutput(const HostProgram& program);

// Compares `actual` (result leaves) with the evaluator's leaves, each by
// CompareOutputLeaf (as `xla_aot run --reference`); the error names the
// first leaf that differs, or a different leaf count.
absl::Status CompareWithEvaluator(const HostProgram& program, const std::vector<Literal>& actual);

// Prepare, run and compare: every failure is a gtest failure.
void ExpectHostMatchesEvaluator(const std::string& hlo, std::vector<Literal> args = {},
                                uint64_t seed = 7);

// Compiles `hlo` for `target` ("sm_80", "sm_90", ...) and requires a
// cubin for every kernel (ptxas accepted each one).
void ExpectCompilesWithCubins(const std::string& hlo, const std::string& target);

}  // namespace xla::aot

#endif  // XLA_AOT_HOST_VS_EVALUATOR_H_
