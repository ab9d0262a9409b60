// Parser and printer throughput on real modules from the shared corpus.
//
//   bazel run -c opt //xla/hlo/parser:hlo_parser_benchmark
//
// Reports bytes per second of HLO text for parse, print, and parse+verify.
// Results and the machine they came from go in docs/perf.md.
#include <fstream>
#include <sstream>
#include <string>

#include "benchmark/benchmark.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/parser/hlo_printer.h"
#include "xla/hlo/testing/corpus.h"
#include "xla/hlo/verifier/hlo_verifier.h"
#include "xla/util/logging.h"

namespace xla {
namespace {

std::string ReadCorpusFile(const std::string& relative) {
  absl::StatusOr<std::string> dir = FindHloCorpusDir();
  XLA_CHECK(dir.ok()) << dir.status().message();
  std::ifstream in(*dir + "/" + relative);
  XLA_CHECK(in.good()) << "cannot read " << relative;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const char* const kModules[] = {
    "models/tools__benchmarks__hlo__hlo_llama31_405b_bf16_16x8.hlo",
    "models/backends__cpu__benchmarks__hlo__resnet50_keras_jax_f32.hlo",
    "models/tools__benchmarks__hlo__hlo_gemma4_2b_bf16.hlo",
};

void BM_Parse(benchmark::State& state) {
  const std::string text = ReadCorpusFile(kModules[state.range(0)]);
  for (auto _ : state) {
    auto module = ParseHloModule(text, "bench");
    XLA_CHECK(module.ok()) << module.status().message();
    benchmark::DoNotOptimize(module);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * text.size());
  state.SetLabel(kModules[state.range(0)]);
}
BENCHMARK(BM_Parse)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);

void BM_ParseAndVerify(benchmark::State& state) {
  const std::string text = ReadCorpusFile(kModules[state.range(0)]);
  for (auto _ : state) {
    auto module = ParseHloModule(text, "bench");
    XLA_CHECK(module.ok());
    benchmark::DoNotOptimize(VerifyModule(**module));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * text.size());
}
BENCHMARK(BM_ParseAndVerify)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);

void BM_Print(benchmark::State& state) {
  const std::string text = ReadCorpusFile(kModules[state.range(0)]);
  auto module = ParseHloModule(text, "bench");
  XLA_CHECK(module.ok());
  for (auto _ : state) benchmark::DoNotOptimize(PrintModule(**module));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * text.size());
}
BENCHMARK(BM_Print)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace xla

BENCHMARK_MAIN();
