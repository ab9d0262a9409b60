// The cache with the real host compiler: every mode, the fast-tier and
// evaluator fallbacks, compile errors, a restart on the persistent cache,
// and small corpus modules; every result compared with the evaluator.
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/testing/corpus.h"
#include "xla/jit/compilation_cache.h"
#include "xla/jit/fast_tier_fallback.h"
#include "xla/jit/host_jit_compiler.h"
#include "xla/jit/jit_test_util.h"

namespace xla::jit {
namespace {

using std::chrono::milliseconds;
using testing::MustParse;
namespace fs = std::filesystem;

constexpr milliseconds kLong{60000};

std::shared_ptr<JitCompiler> Optimized() {
  HostJitOptions o;
  o.opt_level = 2;
  return std::make_shared<HostJitCompiler>(o);
}

std::string FreshDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string dir = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/", name);
  fs::remove_all(dir);
  return dir;
}

void ExpectRunMatches(CompilationCache& cache, const std::shared_ptr<const JitModule>& m, uint64_t seed,
                      bool expect_fallback, std::optional<CompileMode> mode = std::nullopt) {
  std::vector<Literal> args = testing::RandomArgs(*m, seed);
  absl::StatusOr<RunResult> r = cache.Run(m, args, mode);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->used_fallback, expect_fallback) << FallbackReasonName(r->reason);
  absl::Status match = testing::MatchesEvaluator(*m, args, r->outputs);
  EXPECT_TRUE(match.ok()) << m->name() << ": " << match;
}

TEST(RealCompiler, StrictCompilesOnceAndMatchesTheEvaluator) {
  CompilationCacheOptions o;
  o.executor = testing::HostDevice();
  CompilationCache cache(Optimized(), o);
  for (auto m : {MustParse(testing::SmallModuleText("ew", 129)), MustParse(testing::ReduceModuleText("red", 7))}) {
    ExpectRunMatches(cache, m, 1, false);
    ExpectRunMatches(cache, m, 2, false);
  }
  CacheStats s = cache.stats();
  EXPECT_EQ(s.compiles, 2);
  EXPECT_EQ(s.hits, 4);
  EXPECT_GT(s.compile_seconds, 0);
}

TEST(RealCompiler, AsyncWithFastTierFallback) {
  auto fast = std::make_shared<FastTierFallback>(std::make_shared<HostJitCompiler>(FastTierOptions()));
  CompilationCacheOptions o;
  o.mode = CompileMode::kAsync;
  o.fallback = fast;
  CompilationCache cache(Optimized(), o);
  auto m = MustParse(testing::SmallModuleText("async", 33));
  ExpectRunMatches(cache, m, 3, /*expect_fallback=*/true);  // fast tier
  ASSERT_TRUE(cache.WaitUntilIdle(kLong));
  ExpectRunMatches(cache, m, 4, /*expect_fallback=*/false);
  EXPECT_EQ(fast->cache().stats().compiles, 1);
  EXPECT_EQ(cache.stats().compiles, 1);
}

TEST(RealCompiler, LazyWithEvaluatorFallback) {
  CompilationCacheOptions o;
  o.mode = CompileMode::kLazy;
  o.fallback = std::make_shared<EvaluatorFallback>();
  CompilationCache cache(Optimized(), o);
  auto m = MustParse(testing::ReduceModuleText("lazy", 9));
  ExpectRunMatches(cache, m, 5, /*expect_fallback=*/true);
  ExpectRunMatches(cache, m, 6, /*expect_fallback=*/false);  // threshold 2
  EXPECT_EQ(cache.stats().compiles, 1);
}

TEST(RealCompiler, CompileErrorIsStoredAndReported) {
  // A CPU LLVM does not know: the object compiler fails.
  HostJitOptions bad;
  bad.cpu = "no-such-cpu";
  auto m = MustParse(testing::SmallModuleText("badcpu", 9));
  std::mutex mu;
  std::vector<absl::Status> reported;
  CompilationCacheOptions o;
  o.error_policy = ErrorPolicy::kFallbackAndReport;
  o.fallback = std::make_shared<EvaluatorFallback>();
  o.on_error = [&mu, &reported](const CacheKey&, const absl::Status& s) {
    std::lock_guard<std::mutex> lock(mu);
    reported.push_back(s);
  };
  CompilationCache cache(std::make_shared<HostJitCompiler>(bad), o);
  ExpectRunMatches(cache, m, 7, /*expect_fallback=*/true);
  ExpectRunMatches(cache, m, 8, /*expect_fallback=*/true);
  ASSERT_EQ(reported.size(), 1u);
  EXPECT_TRUE(absl::StrContains(reported[0].message(), "JIT compilation of module badcpu")) << reported[0];
  EXPECT_EQ(cache.stats().compiles, 1);
  EXPECT_EQ(cache.stats().fallbacks_after_error, 2);
}

TEST(RealCompiler, RestartLoadsFromThePersistentCacheAndRecoversFromCorruption) {
  std::string dir = FreshDir("restart");
  std::mutex mu;
  std::vector<std::string> warnings;
  PersistentCacheOptions po;
  po.directory = dir;
  po.key_name = dir + "_key/jit_cache";  // outside the directory
  po.on_warning = [&mu, &warnings](absl::string_view w) {
    std::lock_guard<std::mutex> lock(mu);
    warnings.emplace_back(w);
  };
  auto m = MustParse(testing::SmallModuleText("persisted", 65));
  auto open = [&po]() {
    absl::StatusOr<std::unique_ptr<PersistentCache>> p = PersistentCache::Open(po);
    EXPECT_TRUE(p.ok()) << p.status();
    return std::shared_ptr<PersistentCache>(std::move(*p));
  };
  std::string path;
  {
    CompilationCacheOptions o;
    o.persistent = open();
    CompilationCache cache(Optimized(), o);
    ExpectRunMatches(cache, m, 9, false);
    EXPECT_EQ(cache.stats().disk_writes, 1);
    path = o.persistent->PathFor(cache.KeyFor(*m, m->program_shape().parameters));
    ASSERT_TRUE(fs::exists(path));
  }
  {  // "restart": a new cache on the same directory loads, compiles nothing
    CompilationCacheOptions o;
    o.persistent = open();
    o.mode = CompileMode::kAsync;  // even async serves the first request
    CompilationCache cache(Optimized(), o);
    ExpectRunMatches(cache, m, 10, false);
    EXPECT_EQ(cache.stats().disk_loads, 1);
    EXPECT_EQ(cache.stats().compiles, 0);
  }
  {  // corrupt the entry: removed with a warning, recompiled, rewritten
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(fs::file_size(path) / 2));
    f.put('\x7f');
    f.put('\x00');
    f.put('\x13');
  }
  {
    CompilationCacheOptions o;
    o.persistent = open();
    CompilationCache cache(Optimized(), o);
    ExpectRunMatches(cache, m, 11, false);
    EXPECT_EQ(cache.stats().disk_loads, 0);
    EXPECT_EQ(cache.stats().compiles, 1);
    EXPECT_EQ(o.persistent->warnings(), 1);
  }
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_TRUE(absl::StrContains(warnings[0], path)) << warnings[0];
  {  // and the rewritten entry loads again
    CompilationCacheOptions o;
    o.persistent = open();
    CompilationCache cache(Optimized(), o);
    ExpectRunMatches(cache, m, 12, false);
    EXPECT_EQ(cache.stats().disk_loads, 1);
  }
}

// Every array in the module has at most 4096 elements (keeps the evaluator
// and the test fast).
bool AllShapesSmall(const JitModule& m) {
  for (const auto& computation : m.module().computations()) {
    for (const auto& instruction : computation->instructions()) {
      const Shape& shape = instruction->shape();
      if (shape.IsTuple()) continue;
      std::optional<int64_t> n = shape.ElementCount();
      if (!n.has_value() || *n > 4096) return false;
    }
  }
  return true;
}

// Small corpus modules through a strict cache, compared with the evaluator.
TEST(RealCompiler, SmallCorpusModules) {
  absl::StatusOr<std::vector<std::string>> files = ListCorpusFiles({"xla"});
  ASSERT_TRUE(files.ok()) << files.status();
  CompilationCacheOptions o;
  CompilationCache cache(Optimized(), o);
  int checked = 0;
  for (const std::string& path : *files) {
    if (checked >= 4) break;
    if (fs::file_size(path) > 1500) continue;
    std::ifstream in(path);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    absl::StatusOr<std::shared_ptr<const JitModule>> m = JitModule::FromText(text);
    if (!m.ok() || !AllShapesSmall(**m)) continue;
    absl::StatusOr<std::vector<Literal>> args = MakeRandomInputs((*m)->module(), 21);
    if (!args.ok()) continue;
    EvaluatorOptions eo;
    eo.time_limit_seconds = 2;
    if (!HloEvaluator(eo).Evaluate((*m)->module(), *args).ok()) continue;
    absl::StatusOr<RunResult> first = cache.Run(*m, *args);
    if (!first.ok()) continue;  // the host target cannot compile it
    absl::Status match = testing::MatchesEvaluator(**m, *args, first->outputs);
    EXPECT_TRUE(match.ok()) << path << ": " << match;
    absl::StatusOr<RunResult> second = cache.Run(*m, *args);
    ASSERT_TRUE(second.ok()) << path << ": " << second.status();
    EXPECT_EQ(second->outputs.size(), first->outputs.size());
    ++checked;
  }
  EXPECT_GE(checked, 2) << "too few small corpus modules compiled and ran";
  EXPECT_EQ(cache.stats().hits, 2 * checked);
}

}  // namespace
}  // namespace xla::jit
