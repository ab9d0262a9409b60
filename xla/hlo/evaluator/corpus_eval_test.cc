// Every corpus module the evaluator supports runs on random inputs without
// error. Modules are skipped, each with its reason printed, when they do not
// verify, hold elided constants ({...}), use an op the evaluator does not
// support (an Unimplemented error), take opaque parameters, or exceed
// the test's compute or time budget. Host transfers are served (recvs get
// random data, sends are dropped). Any other evaluation error fails the
// test.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/testing/corpus.h"
#include "xla/hlo/verifier/hlo_verifier.h"
#include "xla/types/random_literal.h"

namespace xla {
namespace {

// Modules that evaluate today; raise it as the evaluator grows.
constexpr int kMinEvaluated = 95;
// Rough operation count above which a module is skipped (the evaluator is a
// slow oracle; see docs/perf.md for its speed).
constexpr double kComputeBudget = 3e8;
// Wall-clock budget per module; slower modules (long while loops, big sorts)
// are listed as skipped, not failed.
constexpr double kSecondsPerModule = 10;

double InstructionCost(const HloInstruction& instr) {
  const Shape& s = instr.shape();
  double out = s.IsArray() ? static_cast<double>(s.ElementCount().value_or(0)) : 1.0;
  if (instr.opcode() == HloOpcode::kDot) {
    double contracted = 1;
    const Shape& lhs = instr.operand(0)->shape();
    for (int64_t d : instr.GetIntList(AttrId::kLhsContractingDims)) {
      if (d >= 0 && d < lhs.rank()) contracted *= static_cast<double>(lhs.dimensions(d));
    }
    return 2 * out * contracted;
  }
  if (instr.opcode() == HloOpcode::kConvolution) {
    const Shape& kernel = instr.operand(1)->shape();
    double kernel_elems = static_cast<double>(kernel.ElementCount().value_or(0));
    const Shape& result = instr.shape();
    const auto* labels = instr.FindAttr(AttrId::kDimLabels);
    double out_features = 1;
    if (labels != nullptr) {
      out_features = static_cast<double>(result.dimensions(std::get<ConvDimLabels>(*labels).output_feature));
    }
    return 2 * out * kernel_elems / std::max(out_features, 1.0);
  }
  if (instr.opcode() == HloOpcode::kReduceWindow || instr.opcode() == HloOpcode::kSelectAndScatter) {
    const auto* w = instr.FindAttr(AttrId::kWindow);
    double window = 1;
    if (w != nullptr) {
      for (const WindowDim& d : std::get<Window>(*w).dims) window *= static_cast<double>(d.size);
    }
    return out * window;
  }
  return out;
}

double ModuleCost(const HloModule& m) {
  double cost = 0;
  for (const auto& c : m.computations()) {
    for (const auto& i : c->instructions()) cost += InstructionCost(*i);
  }
  return cost;
}

TEST(CorpusEval, SupportedModulesEvaluate) {
  absl::StatusOr<std::vector<std::string>> files = ListCorpusFiles();
  ASSERT_TRUE(files.ok()) << files.status();
  int evaluated = 0;
  std::map<std::string, std::vector<std::string>> skipped;  // reason -> files
  for (const std::string& path : *files) {
    const std::string name = path.substr(path.rfind('/') + 1);
    absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModuleFile(path);
    ASSERT_TRUE(m.ok()) << m.status();
    if (!VerifyModule(**m).ok()) {
      skipped["does not verify (see corpus_verify_test)"].push_back(name);
      continue;
    }
    if (double cost = ModuleCost(**m); cost > kComputeBudget) {
      skipped[absl::StrCat("over the test's compute budget of ", kComputeBudget, " ops")].push_back(
          absl::StrCat(name, " (", cost, ")"));
      continue;
    }
    absl::StatusOr<std::vector<Literal>> args = MakeRandomInputs(**m, 1);
    if (!args.ok()) {
      skipped[absl::StrCat("no random inputs: ", args.status().message())].push_back(name);
      continue;
    }
    HostTransferHook host;
    host.send = [](int64_t, absl::string_view, const Literal&) { return absl::OkStatus(); };
    host.recv = [](int64_t channel, absl::string_view, const Shape& shape) {
      return MakeRandomLiteral(shape, 100 + static_cast<uint64_t>(channel));
    };
    EvaluatorOptions options;
    options.host_transfers = &host;
    options.max_while_iterations = 100000;
    options.time_limit_seconds = kSecondsPerModule;
    absl::StatusOr<Literal> r = HloEvaluator(options).Evaluate(**m, *args);
    if (r.ok()) {
      ++evaluated;
      continue;
    }
    const std::string message(r.status().message());
    if (absl::IsUnimplemented(r.status())) {
      // Group by the unsupported opcode or custom-call target.
      skipped[message.substr(0, message.find(" (instruction"))].push_back(name);
    } else if (absl::IsInvalidArgument(r.status()) &&
               message.find("rng-bit-generator") != std::string::npos) {
      // The verifier accepts any state shape; the evaluator needs XLA's.
      skipped["rng-bit-generator state shape the algorithm does not take"].push_back(
          absl::StrCat(name, ": ", message));
    } else if (absl::IsDeadlineExceeded(r.status())) {
      skipped[absl::StrCat("slower than the test's ", kSecondsPerModule, " s per module")].push_back(name);
    } else if (message.find("elided value") != std::string::npos) {
      skipped["elided constants ({...})"].push_back(name);
    } else {
      ADD_FAILURE() << name << ": " << message;
    }
  }
  std::printf("corpus: %d of %zu modules evaluate; skipped:\n", evaluated, files->size());
  for (const auto& [reason, names] : skipped) {
    std::printf("  %zu x %s\n", names.size(), reason.c_str());
    for (const std::string& n : names) std::printf("      %s\n", n.c_str());
  }
  EXPECT_GE(evaluated, kMinEvaluated);
}

}  // namespace
}  // namespace xla
