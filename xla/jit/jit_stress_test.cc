// Stress: many threads, many keys, all three modes mixed per call, injected
// failures, a restart on the persistent cache, and a cache destroyed while
// compilations run. Nothing may deadlock, every failure must be reported
// exactly once, and every result must match the evaluator. Meant to run
// under --config=tsan as well (it finishes in a few seconds either way).
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/jit/compilation_cache.h"
#include "xla/jit/fake_compiler.h"
#include "xla/jit/jit_test_util.h"

namespace xla::jit {
namespace {

using std::chrono::milliseconds;
namespace fs = std::filesystem;

constexpr int kFamilies = 3;
constexpr int kVariants = 12;
constexpr int kThreads = 8;
constexpr int kRequestsPerThread = 40;

std::string FamilyText(int family, const std::string& name) {
  switch (family) {
    case 0:
      return testing::SmallModuleText(name, 37);
    case 1:
      return testing::ReduceModuleText(name, 5);
    default:
      return testing::SmallModuleText(name, 9);
  }
}

bool Fails(const std::string& name) { return name.back() == 'X'; }

// All keys: family f, variant v, module "f<f>_v<v>" ("...X" for the ones
// whose compilation is made to fail).
struct Corpus {
  std::vector<std::shared_ptr<const JitModule>> modules;
  std::vector<int> family;
  std::vector<std::shared_ptr<const JitModule>> bases;  // one per family

  Corpus() {
    for (int f = 0; f < kFamilies; ++f) {
      bases.push_back(testing::MustParse(FamilyText(f, absl::StrCat("base", f))));
      for (int v = 0; v < kVariants; ++v) {
        std::string name = absl::StrCat("f", f, "_v", v, v % 4 == 3 ? "X" : "");
        modules.push_back(testing::MustParse(FamilyText(f, name)));
        family.push_back(f);
      }
    }
  }

  // A fake compiler that returns the real artifact of the module's family.
  std::shared_ptr<FakeCompiler> Compiler() const {
    std::vector<std::shared_ptr<const JitModule>> b = bases;
    auto fake = std::make_shared<FakeCompiler>([b](const JitModule& m) {
      int f = m.name()[1] - '0';
      return testing::RealArtifact(*b[f]);
    });
    fake->set_fail_if([](const JitModule& m) { return Fails(m.name()); });
    return fake;
  }
};

struct ErrorLog {
  std::mutex mu;
  std::map<std::string, int> by_key;  // key -> reports
};

std::string StressDir() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string dir = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/jit_stress");
  fs::remove_all(dir);
  return dir;
}

std::shared_ptr<PersistentCache> OpenDisk(const std::string& dir) {
  auto p = PersistentCache::Open({dir, int64_t{1} << 30, nullptr, dir + "_key/jit_cache"});
  EXPECT_TRUE(p.ok()) << p.status();
  return std::shared_ptr<PersistentCache>(std::move(*p));
}

// Each thread: a private LCG picks keys, modes rotate per request.
struct Worker {
  const Corpus* corpus;
  CompilationCache* cache;
  int id;
  std::atomic<int>* run_errors;
  std::atomic<int>* mismatches;

  void operator()() const {
    uint64_t state = 0x9e3779b97f4a7c15ULL * (id + 1);
    const CompileMode modes[] = {CompileMode::kAsync, CompileMode::kLazy, CompileMode::kStrict};
    for (int i = 0; i < kRequestsPerThread; ++i) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      size_t k = (state >> 33) % corpus->modules.size();
      const std::shared_ptr<const JitModule>& m = corpus->modules[k];
      std::vector<Literal> args = testing::RandomArgs(*m, state >> 40);
      absl::StatusOr<RunResult> r = cache->Run(m, args, modes[(i + id) % 3]);
      if (!r.ok()) {
        ++*run_errors;
        ADD_FAILURE() << m->name() << ": " << r.status();
        continue;
      }
      absl::Status match = testing::MatchesEvaluator(*m, args, r->outputs);
      if (!match.ok()) {
        ++*mismatches;
        ADD_FAILURE() << m->name() << (r->used_fallback ? " (fallback)" : " (compiled)") << ": " << match;
      }
    }
  }
};

TEST(JitStress, ManyThreadsManyKeysFailuresAndRestart) {
  Corpus corpus;
  for (const auto& b : corpus.bases) ASSERT_TRUE(testing::RealArtifact(*b).ok());
  std::string dir = StressDir();
  auto log = std::make_shared<ErrorLog>();
  auto fake = corpus.Compiler();
  fake->set_delay(milliseconds(2));

  CompilationCacheOptions o;
  o.mode = CompileMode::kAsync;
  o.pool = {/*num_threads=*/3, /*max_in_flight=*/4};
  o.error_policy = ErrorPolicy::kFallbackAndReport;
  o.fallback = std::make_shared<EvaluatorFallback>();
  o.persistent = OpenDisk(dir);
  o.executor = testing::HostDevice();
  o.on_error = [log](const CacheKey& key, const absl::Status&) {
    std::lock_guard<std::mutex> lock(log->mu);
    ++log->by_key[key.ToString()];
  };
  std::atomic<int> run_errors{0}, mismatches{0};
  std::vector<KeyStats> phase1;
  {
    CompilationCache cache(fake, o);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back(Worker{&corpus, &cache, t, &run_errors, &mismatches});
    }
    for (std::thread& t : threads) t.join();
    ASSERT_TRUE(cache.WaitUntilIdle(milliseconds(30000))) << "compilations never finished";
    phase1 = cache.all_key_stats();
    CacheStats s = cache.stats();
    EXPECT_EQ(s.requests, kThreads * kRequestsPerThread);
    EXPECT_EQ(s.hits + s.fallbacks, s.requests);
    EXPECT_EQ(s.compile_failures, static_cast<int64_t>(log->by_key.size()));
    EXPECT_GT(s.hits, 0);
    EXPECT_GT(s.compile_failures, 0);
  }
  EXPECT_EQ(run_errors.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
  // One compilation per key at most, and every failure reported once.
  int failing_compiled = 0;
  for (const auto& m : corpus.modules) {
    EXPECT_LE(fake->compiles_of(m.get()->name()), 1) << m->name();
    if (Fails(m->name()) && fake->compiles_of(m->name()) == 1) ++failing_compiled;
  }
  EXPECT_EQ(static_cast<int>(log->by_key.size()), failing_compiled);
  for (const auto& [key, n] : log->by_key) EXPECT_EQ(n, 1) << key;

  // Restart: a new process (new cache, a compiler that fails everything)
  // serves every key that was compiled from the directory.
  auto fail_all = corpus.Compiler();
  fail_all->set_fail_if([](const JitModule&) { return true; });
  CompilationCacheOptions o2;
  o2.persistent = OpenDisk(dir);
  o2.executor = testing::HostDevice();
  CompilationCache restarted(fail_all, o2);
  int reloaded = 0;
  for (size_t k = 0; k < corpus.modules.size(); ++k) {
    const auto& m = corpus.modules[k];
    CacheKey key = restarted.KeyFor(*m, m->program_shape().parameters);
    auto it = std::find_if(phase1.begin(), phase1.end(), [&key](const KeyStats& s) { return s.key == key; });
    if (it == phase1.end() || it->state != EntryState::kReady) continue;
    std::vector<Literal> args = testing::RandomArgs(*m, 1000 + k);
    absl::StatusOr<RunResult> r = restarted.Run(m, args);
    ASSERT_TRUE(r.ok()) << m->name() << ": " << r.status();
    EXPECT_FALSE(r->used_fallback);
    absl::Status match = testing::MatchesEvaluator(*m, args, r->outputs);
    EXPECT_TRUE(match.ok()) << m->name() << ": " << match;
    ++reloaded;
  }
  EXPECT_GT(reloaded, 0);
  EXPECT_EQ(fail_all->compiles(), 0);
  EXPECT_EQ(restarted.stats().disk_loads, reloaded);
}

TEST(JitStress, DestroyWhileCompiling) {
  Corpus corpus;
  for (int round = 0; round < 3; ++round) {
    auto fake = corpus.Compiler();
    fake->set_delay(milliseconds(10));
    CompilationCacheOptions o;
    o.mode = CompileMode::kAsync;
    o.pool = {/*num_threads=*/2, /*max_in_flight=*/6};
    o.error_policy = ErrorPolicy::kFallbackAndReport;
    auto reports = std::make_shared<std::atomic<int>>(0);
    o.on_error = [reports](const CacheKey&, const absl::Status&) { ++*reports; };
    auto cache = std::make_unique<CompilationCache>(fake, o);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      CompilationCache* c = cache.get();
      const Corpus* cp = &corpus;
      threads.emplace_back([c, cp, t] {
        for (size_t k = t; k < cp->modules.size(); k += 4) {
          const auto& m = cp->modules[k];
          absl::StatusOr<Lookup> l = c->Get(m, m->program_shape().parameters);
          EXPECT_TRUE(l.ok()) << l.status();
        }
      });
    }
    for (std::thread& t : threads) t.join();
    cache.reset();  // compilations are running and queued right now
    EXPECT_LE(fake->compiles(), static_cast<int>(corpus.modules.size()));
    EXPECT_EQ(fake->active(), 0);  // nothing still runs after destruction
    EXPECT_LE(reports->load(), fake->compiles());
  }
}

}  // namespace
}  // namespace xla::jit
