// jit_bench: what the JIT cache costs and saves, on the host target.
//
//   bazel run -c opt //xla/jit:jit_bench
//
// Prints: optimized vs fast-tier compile time; first-request latency of
// each mode (and fallback) against the optimized compile time; the cost of
// a cache hit (Get alone, and Run against executing directly).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "xla/aot/literal_execution.h"
#include "xla/jit/compilation_cache.h"
#include "xla/jit/fallback.h"
#include "xla/jit/fast_tier_fallback.h"
#include "xla/jit/host_jit_compiler.h"
#include "xla/jit/jit_test_util.h"
#include "xla/util/logging.h"

namespace xla::jit {
namespace {

using Clock = std::chrono::steady_clock;

// Softmax over rows of f32[64,257] followed by a small elementwise tail:
// reductions, broadcasts and a fusible chain, so fusion and LLVM matter.
std::string ModuleText(const std::string& name) {
  return absl::StrReplaceAll(R"(
HloModule $NAME
max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[64,257]{1,0} parameter(0)
  w = f32[257]{0} parameter(1)
  ninf = f32[] constant(-inf)
  zero = f32[] constant(0)
  mx = f32[64]{0} reduce(x, ninf), dimensions={1}, to_apply=max_f32
  mxb = f32[64,257]{1,0} broadcast(mx), dimensions={0}
  sh = f32[64,257]{1,0} subtract(x, mxb)
  ex = f32[64,257]{1,0} exponential(sh)
  sm = f32[64]{0} reduce(ex, zero), dimensions={1}, to_apply=add_f32
  smb = f32[64,257]{1,0} broadcast(sm), dimensions={0}
  p = f32[64,257]{1,0} divide(ex, smb)
  wb = f32[64,257]{1,0} broadcast(w), dimensions={1}
  q = f32[64,257]{1,0} multiply(p, wb)
  t = f32[64,257]{1,0} tanh(q)
  r = f32[64,257]{1,0} add(t, x)
  ROOT o = f32[64,257]{1,0} multiply(r, r)
}
)",
                             {{"$NAME", name}});
}

double Seconds(const std::function<void()>& f) {
  Clock::time_point start = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int unique_id = 0;
std::shared_ptr<const JitModule> FreshModule() {
  return testing::MustParse(ModuleText(absl::StrCat("bench", unique_id++)));
}

double CompileSeconds(const HostJitOptions& options, int reps) {
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    auto m = FreshModule();
    HostJitCompiler compiler(options);
    times.push_back(Seconds([&compiler, &m] { XLA_CHECK(compiler.Compile(*m).ok()); }));
  }
  return Median(times);
}

// First request on an empty cache: the latency the caller sees.
double FirstRequest(CompileMode mode, std::shared_ptr<JitFallback> fallback, int reps) {
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    CompilationCacheOptions o;
    o.mode = mode;
    o.fallback = fallback;
    o.executor = testing::HostDevice();
    CompilationCache cache(std::make_shared<HostJitCompiler>(), o);
    auto m = FreshModule();
    std::vector<Literal> args = testing::RandomArgs(*m, 1);
    times.push_back(Seconds([&cache, &m, &args] { XLA_CHECK(cache.Run(m, args).ok()); }));
    cache.WaitUntilIdle(std::chrono::minutes(5));
  }
  return Median(times);
}

void Main() {
  const int reps = 3;
  HostJitOptions optimized;
  double opt = CompileSeconds(optimized, reps);
  double fast = CompileSeconds(FastTierOptions(optimized), reps);
  std::printf("module: softmax f32[64,257] + elementwise tail (16 instructions)\n\n");
  std::printf("compile time (median of %d)\n", reps);
  std::printf("  optimized tier (fusion, -O3)   %8.1f ms\n", opt * 1e3);
  std::printf("  fast tier (no fusion, -O0)     %8.1f ms   (%.2fx the optimized time)\n\n", fast * 1e3,
              fast / opt);

  auto evaluator = std::make_shared<EvaluatorFallback>();
  auto fast_tier = std::make_shared<FastTierFallback>(std::make_shared<HostJitCompiler>(FastTierOptions()),
                                                      testing::HostDevice());
  struct Row {
    const char* name;
    CompileMode mode;
    std::shared_ptr<JitFallback> fallback;
  };
  std::vector<Row> rows = {
      {"strict (compile + run)", CompileMode::kStrict, nullptr},
      {"lazy, evaluator fallback", CompileMode::kLazy, evaluator},
      {"lazy, fast-tier fallback", CompileMode::kLazy, fast_tier},
      {"async, evaluator fallback", CompileMode::kAsync, evaluator},
      {"async, fast-tier fallback", CompileMode::kAsync, fast_tier},
  };
  std::printf("first-request latency (median of %d), vs optimized compile %.1f ms\n", reps, opt * 1e3);
  for (const Row& row : rows) {
    double t = FirstRequest(row.mode, row.fallback, reps);
    std::printf("  %-28s %8.1f ms   (%.2fx)\n", row.name, t * 1e3, t / opt);
  }

  // Steady state.
  CompilationCacheOptions o;
  o.executor = testing::HostDevice();
  CompilationCache cache(std::make_shared<HostJitCompiler>(), o);
  auto m = FreshModule();
  std::vector<Literal> args = testing::RandomArgs(*m, 2);
  std::vector<Shape> shapes = m->program_shape().parameters;
  absl::StatusOr<Lookup> warm = cache.Get(m, shapes);
  XLA_CHECK(warm.ok() && warm->executable != nullptr);
  const int gets = 200000;
  double get = Seconds([&cache, &m, &shapes] {
                 for (int i = 0; i < gets; ++i) XLA_CHECK(cache.Get(m, shapes).ok());
               }) /
               gets;
  const int runs = 300;
  std::shared_ptr<aot::Executable> exe = warm->executable;
  double direct = Seconds([&exe, &args] {
                    for (int i = 0; i < runs; ++i) {
                      XLA_CHECK(aot::ExecuteOnLiterals(*exe, testing::HostDevice(), args).ok());
                    }
                  }) /
                  runs;
  double via_cache = Seconds([&cache, &m, &args] {
                       for (int i = 0; i < runs; ++i) XLA_CHECK(cache.Run(m, args).ok());
                     }) /
                     runs;
  std::printf("\ncache hit (steady state)\n");
  std::printf("  Get on a ready key             %8.0f ns\n", get * 1e9);
  std::printf("  ExecuteOnLiterals directly     %8.1f us\n", direct * 1e6);
  std::printf("  CompilationCache::Run (hit)    %8.1f us   (overhead %+.1f us)\n", via_cache * 1e6,
              (via_cache - direct) * 1e6);
}

}  // namespace
}  // namespace xla::jit

int main() {
  xla::jit::Main();
  return 0;
}
