// Every corpus module that the evaluator can run and the host target can
// compile gives the evaluator's results when compiled, loaded and executed
// on the host platform (same random inputs, fixed seed; CompareOutputLeaf,
// the compiled-program check of `xla_aot run --reference`: errors are
// relative to each output's scale, since GEMMs and convolutions lowered to
// GEMMs accumulate in the output type while the evaluator uses f64).
// Modules are skipped, with reasons counted and printed, when they do not
// verify, have no random inputs, exceed the evaluator's time limit, or use
// something the host target reports as Unimplemented (when compiling, or
// when the runtime is given the arguments). Any
// other compile error, load or execution error, or mismatch fails the test,
// as does comparing fewer than kMinCompared modules.
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/aot/executable.h"
#include "xla/aot/literal_execution.h"
#include "xla/backends/gpu/compiler/host_compiler.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/testing/corpus.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/hlo/verifier/hlo_verifier.h"

namespace xla::gpu {
namespace {

// Raise as the host target grows.
constexpr int kMinCompared = 60;
// Wall-clock budget for the whole test; modules after it are skipped.
constexpr double kBudgetSeconds = 300;
// Modules with more parameter elements than this are skipped (random input
// generation and evaluation of model-sized modules take minutes).
constexpr int64_t kMaxParameterElements = int64_t{1} << 18;
constexpr int64_t kMaxInstructions = 400;

int64_t ParameterElements(const HloModule& module) {
  int64_t n = 0;
  for (const HloInstruction* p : module.entry_computation()->parameter_instructions()) {
    std::vector<const Shape*> stack = {&p->shape()};
    while (!stack.empty()) {
      const Shape* s = stack.back();
      stack.pop_back();
      if (s->IsTuple()) {
        for (const Shape& e : s->tuple_shapes()) stack.push_back(&e);
      } else if (s->IsArray()) {
        n += s->ElementCount().value_or(int64_t{1} << 40);
      }
    }
  }
  return n;
}

int64_t InstructionCount(const HloModule& module) {
  int64_t n = 0;
  for (const auto& c : module.computations()) n += c->instruction_count();
  return n;
}

void Flatten(const Literal& literal, std::vector<const Literal*>* out) {
  if (!literal.shape().IsTuple()) {
    out->push_back(&literal);
    return;
  }
  for (const Literal& e : literal.tuple_elements()) Flatten(e, out);
}

// The first line of a message, cut to `n` characters (for the histogram).
std::string Reason(absl::string_view message, size_t n = 110) {
  std::string s(message.substr(0, message.find('\n')));
  return s.size() > n ? s.substr(0, n) : s;
}

TEST(HostCompilerCorpus, CompiledModulesMatchTheEvaluator) {
  absl::StatusOr<std::vector<std::string>> files = ListCorpusFiles();
  ASSERT_TRUE(files.ok()) << files.status();
  HostCompilerOptions options;
  options.production_date = "2026-01-01T00:00:00Z";
  options.object.opt_level = 1;
  options.include_optimized_hlo = false;
  EvaluatorOptions eval_options;
  eval_options.time_limit_seconds = 1;
  const auto start = std::chrono::steady_clock::now();
  std::map<std::string, int> skipped;
  std::vector<std::string> failures;
  int compared = 0;
  for (const std::string& path : *files) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed > kBudgetSeconds) {
      ++skipped["over the test's time budget"];
      continue;
    }
    auto module = ParseHloModuleFile(path);
    if (!module.ok() || !VerifyModule(**module).ok()) {
      ++skipped["does not parse or verify"];
      continue;
    }
    if (ParameterElements(**module) > kMaxParameterElements ||
        InstructionCount(**module) > kMaxInstructions) {
      ++skipped["too large for this test"];
      continue;
    }
    auto args = MakeRandomInputs(**module, 42);
    if (!args.ok()) {
      ++skipped["no random inputs"];
      continue;
    }
    auto expected = HloEvaluator(eval_options).Evaluate(**module, *args);
    if (!expected.ok()) {
      ++skipped["evaluator: " + Reason(expected.status().message(), 60)];
      continue;
    }
    std::string text;
    {
      std::FILE* f = std::fopen(path.c_str(), "rb");
      ASSERT_NE(f, nullptr) << path;
      char buf[65536];
      size_t n;
      while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) text.append(buf, n);
      std::fclose(f);
    }
    absl::StatusOr<std::string> bytes = CompileHloToHostArtifact(text, options);
    if (!bytes.ok()) {
      if (bytes.status().code() == absl::StatusCode::kUnimplemented) {
        ++skipped["unimplemented: " + Reason(bytes.status().message())];
      } else {
        failures.push_back(absl::StrCat(path, ": compile: ", Reason(bytes.status().message(), 400)));
      }
      continue;
    }
    auto exe = aot::Executable::LoadFromBytes(*bytes);
    if (!exe.ok()) {
      failures.push_back(absl::StrCat(path, ": load: ", Reason(exe.status().message(), 400)));
      continue;
    }
    auto actual = aot::ExecuteOnLiterals(**exe, testing::HostExecutor(), *args);
    if (!actual.ok()) {
      // The runtime refuses, by name, arguments it cannot lay out (a tiled
      // layout such as TPU's `T(2,128)` in the entry signature, which
      // physical_layout.h does not produce).
      if (actual.status().code() == absl::StatusCode::kUnimplemented) {
        ++skipped["unimplemented at run: " + Reason(actual.status().message())];
      } else {
        failures.push_back(absl::StrCat(path, ": execute: ", Reason(actual.status().message(), 400)));
      }
      continue;
    }
    std::vector<const Literal*> leaves;
    Flatten(*expected, &leaves);
    if (leaves.size() != actual->size()) {
      failures.push_back(absl::StrCat(path, ": ", actual->size(), " results, expected ", leaves.size()));
      continue;
    }
    bool ok = true;
    for (size_t i = 0; i < leaves.size() && ok; ++i) {
      absl::Status s = CompareOutputLeaf(*leaves[i], (*actual)[i]);
      if (!s.ok()) {
        failures.push_back(absl::StrCat(path, ": leaf ", i, ": ", Reason(s.message(), 400)));
        ok = false;
      }
    }
    compared += ok;
  }
  std::printf("compared %d of %zu modules; %zu failures\n", compared, files->size(), failures.size());
  for (const auto& [reason, count] : skipped) std::printf("  skipped %4d  %s\n", count, reason.c_str());
  for (const std::string& f : failures) std::printf("  FAILURE %s\n", f.c_str());
  EXPECT_TRUE(failures.empty()) << failures.size() << " modules failed (listed above)";
  EXPECT_GE(compared, kMinCompared);
}

}  // namespace
}  // namespace xla::gpu
