// Test helper: emits a fusion's host kernel, compiles and loads it, runs it
// over its blocks split into uneven ranges called in reverse order (as a
// thread pool might), and returns the result next to the evaluator's.
//
// Test-only; not thread-safe.
#ifndef XLA_BACKENDS_GPU_CODEGEN_HOST_HOST_FUSION_TEST_UTIL_H_
#define XLA_BACKENDS_GPU_CODEGEN_HOST_HOST_FUSION_TEST_UTIL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "xla/backends/gpu/codegen/host/host_fusion_emitter.h"
#include "xla/backends/gpu/codegen/host/host_object_compiler.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/types/literal.h"

namespace xla::gpu {

struct FusionRun {
  HostKernelInfo info;
  Literal expected;  // the evaluator's (empty when FusionRunOptions::evaluate is false)
  Literal actual;    // the kernel's
  std::string ir;    // the unoptimized LLVM IR of the kernel
  // The floating-point exception flags (<cfenv> FE_*) the kernel's calls
  // raised on this thread; they are cleared just before the first call.
  int raised_fp_exceptions = 0;
};

struct FusionRunOptions {
  HostEmitOptions emit;
  HostCompileOptions compile;
  uint64_t seed = 1;
  // Arguments of the entry computation; empty: MakeRandomInputs(seed).
  std::vector<Literal> inputs;
  // False: skip the evaluator (for sizes it takes minutes on in a debug
  // build; the test then checks `actual` against its own oracle).
  bool evaluate = true;
};

// Runs the entry computation's root of `module`, which must be a fusion
// whose operands are entry parameters or constants. When emit.output_aliases_operand[0]
// is k >= 0, output 0 is written into operand k's buffer (in place).
// Errors: module shapes outside that contract, and anything the evaluator,
// the emitter, the compiler or the loader reports.
absl::StatusOr<FusionRun> RunFusionOnHost(const HloModule& module,
                                          const FusionRunOptions& options);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_HOST_HOST_FUSION_TEST_UTIL_H_
