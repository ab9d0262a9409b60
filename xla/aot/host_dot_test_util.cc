#include "xla/aot/host_dot_test_util.h"

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "xla/aot/compile.h"
#include "xla/aot/literal_execution.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/hlo/evaluator/evaluator_test_util.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/util/status_macros.h"

namespace xla::aot {

absl::StatusOr<HostDotModule> PrepareHostDotModule(const std::string& hlo, uint64_t seed) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseHloModule(hlo));
  HostDotModule prepared;
  ASSIGN_OR_RETURN(prepared.args, MakeRandomInputs(*module, seed));
  ASSIGN_OR_RETURN(prepared.expected, evaluator_test::EvalText(hlo, prepared.args));
  CompileOptions options;
  options.target = "host";
  options.host_cpu_variants = {};
  ASSIGN_OR_RETURN(CompiledArtifact compiled, Compile(hlo, options));
  ASSIGN_OR_RETURN(prepared.executable, Executable::LoadFromBytes(compiled.bytes));
  return prepared;
}

absl::StatusOr<Literal> RunHostDotModule(const HostDotModule& module) {
  ASSIGN_OR_RETURN(std::vector<Literal> out,
                   ExecuteOnLiterals(*module.executable, gpu::testing::HostExecutor(), module.args));
  if (out.size() != 1) {
    return absl::InternalError("host dot test module: expected one output, got " +
                               std::to_string(out.size()));
  }
  return std::move(out[0]);
}

}  // namespace xla::aot
