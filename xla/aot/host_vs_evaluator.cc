#include "xla/aot/host_vs_evaluator.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/aot/literal_execution.h"
#include "xla/backends/gpu/compiler/gpu_compiler.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/util/status_macros.h"

namespace xla::aot {
namespace {

// Compares `want`'s leaves, depth-first, with actual[*next], ... .
absl::Status CompareLeaves(const Literal& want, const std::vector<Literal>& actual, size_t* next) {
  if (want.shape().IsTuple()) {
    for (const Literal& e : want.tuple_elements()) RETURN_IF_ERROR(CompareLeaves(e, actual, next));
    return absl::OkStatus();
  }
  const size_t i = (*next)++;
  if (i >= actual.size()) {
    return absl::InternalError(absl::StrCat("the host run gives ", actual.size(),
                                            " result leaves, the evaluator more"));
  }
  if (absl::Status s = CompareOutputLeaf(want, actual[i]); !s.ok()) {
    return absl::InternalError(absl::StrCat("result leaf ", i, ": ", s.message()));
  }
  return absl::OkStatus();
}

}  // namespace

CompileOptions HostTestCompileOptions() {
  CompileOptions options;
  options.target = "host";
  options.opt_level = 1;
  options.host_cpu_variants.clear();
  options.production_date = "2026-12-02T00:00:00Z";
  return options;
}

absl::StatusOr<HostProgram> PrepareHostProgram(const std::string& hlo, std::vector<Literal> args,
                                               uint64_t seed, const CompileOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseHloModule(hlo));
  HostProgram program;
  if (args.empty()) {
    ASSIGN_OR_RETURN(args, MakeRandomInputs(*module, seed));
  }
  program.args = std::move(args);
  ASSIGN_OR_RETURN(program.expected, HloEvaluator().Evaluate(*module, program.args));
  ASSIGN_OR_RETURN(CompiledArtifact compiled, Compile(hlo, options));
  ASSIGN_OR_RETURN(program.executable, Executable::LoadFromBytes(compiled.bytes));
  return program;
}

absl::StatusOr<std::vector<Literal>> RunHostProgram(const HostProgram& program) {
  return ExecuteOnLiterals(*program.executable, gpu::testing::HostExecutor(), program.args);
}

absl::StatusOr<Literal> RunHostProgramOneOutput(const HostProgram& program) {
  ASSIGN_OR_RETURN(std::vector<Literal> out, RunHostProgram(program));
  if (out.size() != 1) {
    return absl::InternalError(absl::StrCat("expected one output, the host run gives ", out.size()));
  }
  return std::move(out[0]);
}

absl::Status CompareWithEvaluator(const HostProgram& program, const std::vector<Literal>& actual) {
  size_t next = 0;
  RETURN_IF_ERROR(CompareLeaves(program.expected, actual, &next));
  if (next != actual.size()) {
    return absl::InternalError(absl::StrCat("the evaluator gives ", next,
                                            " result leaves, the host run ", actual.size()));
  }
  return absl::OkStatus();
}

void ExpectHostMatchesEvaluator(const std::string& hlo, std::vector<Literal> args, uint64_t seed) {
  absl::StatusOr<HostProgram> program = PrepareHostProgram(hlo, std::move(args), seed);
  ASSERT_TRUE(program.ok()) << program.status();
  absl::StatusOr<std::vector<Literal>> actual = RunHostProgram(*program);
  ASSERT_TRUE(actual.ok()) << actual.status();
  absl::Status same = CompareWithEvaluator(*program, *actual);
  EXPECT_TRUE(same.ok()) << same;
}

void ExpectCompilesWithCubins(const std::string& hlo, const std::string& target) {
  gpu::GpuCompilerOptions options;
  options.require_cubin = true;
  options.production_date = "2026-12-02T00:00:00Z";
  options.include_optimized_hlo = false;
  absl::StatusOr<gpu::GpuExecutableProto> artifact =
      gpu::CompileHloToGpuArtifactProto(hlo, target, options, nullptr);
  ASSERT_TRUE(artifact.ok()) << target << ": " << artifact.status();
}

}  // namespace xla::aot
