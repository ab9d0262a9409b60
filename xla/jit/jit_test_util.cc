#include "xla/jit/jit_test_util.h"

#include <map>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/jit/fallback.h"
#include "xla/jit/host_jit_compiler.h"
#include "xla/stream_executor/platform_registry.h"
#include "xla/util/logging.h"

namespace xla::jit::testing {

std::string SmallModuleText(absl::string_view name, int64_t n) {
  return absl::StrReplaceAll(R"(
HloModule $NAME
ENTRY main {
  x = f32[$N]{0} parameter(0)
  y = f32[$N]{0} parameter(1)
  m = f32[$N]{0} multiply(x, y), metadata={op_name="jit(f)/mul" source_file="f.py" source_line=3}
  a = f32[$N]{0} add(m, x)
  ROOT t = f32[$N]{0} tanh(a)
}
)",
                             {{"$NAME", name}, {"$N", absl::StrCat(n)}});
}

std::string ReduceModuleText(absl::string_view name, int64_t rows) {
  return absl::StrReplaceAll(R"(
HloModule $NAME
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[$R,13]{1,0} parameter(0)
  z = f32[] constant(0.5)
  ROOT r = f32[$R]{0} reduce(x, z), dimensions={1}, to_apply=sum
}
)",
                             {{"$NAME", name}, {"$R", absl::StrCat(rows)}});
}

std::shared_ptr<const JitModule> MustParse(absl::string_view hlo_text) {
  absl::StatusOr<std::shared_ptr<const JitModule>> module = JitModule::FromText(hlo_text);
  XLA_CHECK(module.ok()) << module.status() << "\n" << hlo_text;
  return *module;
}

absl::StatusOr<std::string> RealArtifact(const JitModule& module) {
  static std::mutex* mu = new std::mutex;
  static auto* memo = new std::map<std::string, std::string>;
  {
    std::lock_guard<std::mutex> lock(*mu);
    auto it = memo->find(module.canonical_text());
    if (it != memo->end()) return it->second;
  }
  HostJitCompiler compiler(FastTierOptions());
  absl::StatusOr<std::string> bytes = compiler.Compile(module);
  if (!bytes.ok()) return bytes;
  std::lock_guard<std::mutex> lock(*mu);
  return memo->emplace(module.canonical_text(), *std::move(bytes)).first->second;
}

std::vector<Literal> RandomArgs(const JitModule& module, uint64_t seed) {
  absl::StatusOr<std::vector<Literal>> args = MakeRandomInputs(module.module(), seed);
  XLA_CHECK(args.ok()) << args.status();
  return *std::move(args);
}

absl::Status MatchesEvaluator(const JitModule& module, absl::Span<const Literal> args,
                              const std::vector<Literal>& actual) {
  absl::StatusOr<Literal> expected = HloEvaluator().Evaluate(module.module(), args);
  if (!expected.ok()) return expected.status();
  std::vector<Literal> leaves = FlattenLeaves(*std::move(expected));
  if (leaves.size() != actual.size()) {
    return absl::InternalError(absl::StrCat("expected ", leaves.size(), " leaves, got ", actual.size()));
  }
  for (size_t i = 0; i < leaves.size(); ++i) {
    absl::Status s = CompareLiterals(leaves[i], actual[i]);
    if (!s.ok()) return absl::InternalError(absl::StrCat("leaf ", i, ": ", s.ToString()));
  }
  return absl::OkStatus();
}

stream_executor::StreamExecutor* HostDevice() {
  auto platform = stream_executor::PlatformRegistry::GetPlatform("host");
  XLA_CHECK(platform.ok()) << platform.status();
  auto device = (*platform)->GetDevice(0);
  XLA_CHECK(device.ok()) << device.status();
  return *device;
}

}  // namespace xla::jit::testing
