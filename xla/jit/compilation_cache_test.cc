// Every decision of the cache, driven deterministically by FakeCompiler
// (gate, delay, injected failures). The fake returns a real artifact of the
// same computation for every module, so executions can be checked too.
#include "xla/jit/compilation_cache.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/jit/fake_compiler.h"
#include "xla/jit/jit_test_util.h"

namespace xla::jit {
namespace {

using std::chrono::milliseconds;
using testing::MustParse;

constexpr milliseconds kLong{20000};

// The same computation under many names (one key each).
std::shared_ptr<const JitModule> Module(int i) {
  return MustParse(testing::SmallModuleText(absl::StrCat("m", i)));
}

std::vector<Shape> Shapes(const JitModule& m) { return m.program_shape().parameters; }

// Records every on_error call.
struct ErrorLog {
  std::mutex mu;
  std::vector<std::pair<CacheKey, absl::Status>> errors;
  size_t size() {
    std::lock_guard<std::mutex> lock(mu);
    return errors.size();
  }
};

class CompilationCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = MustParse(testing::SmallModuleText("base"));
    std::shared_ptr<const JitModule> base = base_;
    fake_ = std::make_shared<FakeCompiler>(
        [base](const JitModule&) { return testing::RealArtifact(*base); });
    errors_ = std::make_shared<ErrorLog>();
  }

  CompilationCacheOptions Options(CompileMode mode) {
    CompilationCacheOptions o;
    o.mode = mode;
    o.executor = testing::HostDevice();
    std::shared_ptr<ErrorLog> log = errors_;
    o.on_error = [log](const CacheKey& key, const absl::Status& s) {
      std::lock_guard<std::mutex> lock(log->mu);
      log->errors.emplace_back(key, s);
    };
    return o;
  }

  Lookup MustGet(CompilationCache& cache, const std::shared_ptr<const JitModule>& m,
                 std::optional<CompileMode> mode = std::nullopt) {
    absl::StatusOr<Lookup> l = cache.Get(m, Shapes(*m), mode);
    EXPECT_TRUE(l.ok()) << l.status();
    return l.ok() ? *l : Lookup{};
  }

  std::shared_ptr<const JitModule> base_;
  std::shared_ptr<FakeCompiler> fake_;
  std::shared_ptr<ErrorLog> errors_;
};

TEST_F(CompilationCacheTest, StrictCompilesOnFirstRequestThenHits) {
  CompilationCache cache(fake_, Options(CompileMode::kStrict));
  auto m = Module(0);
  Lookup first = MustGet(cache, m);
  EXPECT_NE(first.executable, nullptr);
  EXPECT_EQ(first.reason, FallbackReason::kNone);
  Lookup second = MustGet(cache, m);
  EXPECT_EQ(second.executable, first.executable);
  EXPECT_EQ(fake_->compiles(), 1);
  CacheStats s = cache.stats();
  EXPECT_EQ(s.requests, 2);
  EXPECT_EQ(s.hits, 2);
  EXPECT_EQ(s.compiles, 1);
  EXPECT_EQ(s.fallbacks, 0);
  std::optional<KeyStats> k = cache.key_stats(first.key);
  ASSERT_TRUE(k.has_value());
  EXPECT_EQ(k->module_name, "m0");
  EXPECT_EQ(k->state, EntryState::kReady);
  EXPECT_GT(k->compile_seconds, 0);
}

TEST_F(CompilationCacheTest, LazyFallsBackUntilTheThreshold) {
  CompilationCacheOptions o = Options(CompileMode::kLazy);
  EXPECT_EQ(o.lazy_threshold, 2);  // the documented default
  o.lazy_threshold = 3;
  CompilationCache cache(fake_, o);
  auto m = Module(0);
  EXPECT_EQ(MustGet(cache, m).reason, FallbackReason::kBelowThreshold);
  EXPECT_EQ(MustGet(cache, m).reason, FallbackReason::kBelowThreshold);
  EXPECT_EQ(fake_->compiles(), 0);
  Lookup third = MustGet(cache, m);
  EXPECT_NE(third.executable, nullptr);
  EXPECT_EQ(fake_->compiles(), 1);
  EXPECT_NE(MustGet(cache, m).executable, nullptr);
  EXPECT_EQ(fake_->compiles(), 1);
  // Counts are per key.
  EXPECT_EQ(MustGet(cache, Module(1)).reason, FallbackReason::kBelowThreshold);
  std::optional<KeyStats> k = cache.key_stats(third.key);
  EXPECT_EQ(k->requests, 4);
  EXPECT_EQ(k->fallbacks, 2);
  EXPECT_EQ(k->hits, 2);
}

TEST_F(CompilationCacheTest, AsyncSchedulesFallsBackAndLaterHits) {
  fake_->CloseGate();
  CompilationCache cache(fake_, Options(CompileMode::kAsync));
  auto m = Module(0);
  EXPECT_EQ(MustGet(cache, m).reason, FallbackReason::kScheduled);
  ASSERT_TRUE(fake_->WaitForActive(1, kLong));
  EXPECT_EQ(MustGet(cache, m).reason, FallbackReason::kCompiling);
  EXPECT_EQ(MustGet(cache, m).reason, FallbackReason::kCompiling);
  fake_->OpenGate();
  ASSERT_TRUE(cache.WaitUntilIdle(kLong));
  EXPECT_NE(MustGet(cache, m).executable, nullptr);
  EXPECT_EQ(fake_->compiles(), 1);
  EXPECT_EQ(cache.stats().fallbacks, 3);
}

TEST_F(CompilationCacheTest, AsyncInFlightCapFallsBackWithoutScheduling) {
  fake_->CloseGate();
  CompilationCacheOptions o = Options(CompileMode::kAsync);
  o.pool = {/*num_threads=*/1, /*max_in_flight=*/2};
  CompilationCache cache(fake_, o);
  EXPECT_EQ(MustGet(cache, Module(0)).reason, FallbackReason::kScheduled);
  EXPECT_EQ(MustGet(cache, Module(1)).reason, FallbackReason::kScheduled);  // queued
  EXPECT_EQ(MustGet(cache, Module(2)).reason, FallbackReason::kInFlightCap);
  EXPECT_EQ(cache.stats().in_flight_rejections, 1);
  fake_->OpenGate();
  ASSERT_TRUE(cache.WaitUntilIdle(kLong));
  EXPECT_EQ(fake_->compiles_of("m2"), 0);  // nothing was scheduled for it
  EXPECT_EQ(fake_->compiles(), 2);
  EXPECT_EQ(fake_->peak_active(), 1);  // one thread
  // With room again, the next request schedules it.
  EXPECT_EQ(MustGet(cache, Module(2)).reason, FallbackReason::kScheduled);
  ASSERT_TRUE(cache.WaitUntilIdle(kLong));
  EXPECT_NE(MustGet(cache, Module(2)).executable, nullptr);
}

TEST_F(CompilationCacheTest, PoolThreadsBoundConcurrentCompiles) {
  fake_->set_delay(milliseconds(30));
  CompilationCacheOptions o = Options(CompileMode::kAsync);
  o.pool = {/*num_threads=*/2, /*max_in_flight=*/8};
  CompilationCache cache(fake_, o);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(MustGet(cache, Module(i)).reason, FallbackReason::kScheduled);
  ASSERT_TRUE(cache.WaitUntilIdle(kLong));
  EXPECT_EQ(fake_->compiles(), 8);
  EXPECT_EQ(fake_->peak_active(), 2);
  EXPECT_EQ(cache.pool().peak_running(), 2);
}

TEST_F(CompilationCacheTest, PerCallModeOverride) {
  fake_->CloseGate();
  CompilationCache cache(fake_, Options(CompileMode::kAsync));
  auto m = Module(0);
  EXPECT_EQ(MustGet(cache, m).reason, FallbackReason::kScheduled);
  ASSERT_TRUE(fake_->WaitForActive(1, kLong));
  // A strict request waits for the running async compile instead of
  // starting another.
  std::thread opener([this] {
    std::this_thread::sleep_for(milliseconds(50));
    fake_->OpenGate();
  });
  EXPECT_NE(MustGet(cache, m, CompileMode::kStrict).executable, nullptr);
  opener.join();
  EXPECT_EQ(fake_->compiles(), 1);
  // Override to lazy on a fresh key.
  EXPECT_EQ(MustGet(cache, Module(1), CompileMode::kLazy).reason, FallbackReason::kBelowThreshold);
  EXPECT_NE(MustGet(cache, Module(1), CompileMode::kLazy).executable, nullptr);
}

TEST_F(CompilationCacheTest, ConcurrentRequestsForOneKeyCompileOnce) {
  fake_->CloseGate();
  CompilationCache cache(fake_, Options(CompileMode::kStrict));
  auto m = Module(0);
  std::vector<std::thread> threads;
  std::atomic<int> got{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&cache, &m, &got] {
      absl::StatusOr<Lookup> l = cache.Get(m, Shapes(*m));
      if (l.ok() && l->executable != nullptr) ++got;
    });
  }
  ASSERT_TRUE(fake_->WaitForActive(1, kLong));
  std::this_thread::sleep_for(milliseconds(50));  // let the others pile up
  EXPECT_EQ(fake_->active(), 1);
  fake_->OpenGate();
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(got.load(), 8);
  EXPECT_EQ(fake_->compiles(), 1);
  EXPECT_EQ(cache.stats().requests, 8);
}

TEST_F(CompilationCacheTest, StoredErrorIsReturnedAndNotRecompiled) {
  fake_->set_fail_if([](const JitModule& m) { return m.name() == "m1"; });
  CompilationCache cache(fake_, Options(CompileMode::kStrict));
  auto bad = Module(1);
  absl::StatusOr<Lookup> first = cache.Get(bad, Shapes(*bad));
  ASSERT_FALSE(first.ok());
  EXPECT_TRUE(absl::StrContains(first.status().message(), "injected failure for module m1"));
  for (int i = 0; i < 10; ++i) {
    absl::StatusOr<Lookup> again = cache.Get(bad, Shapes(*bad));
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.status(), first.status());
  }
  EXPECT_EQ(fake_->compiles_of("m1"), 1);
  ASSERT_EQ(errors_->size(), 1u);
  EXPECT_EQ(errors_->errors[0].first, cache.KeyFor(*bad, Shapes(*bad)));
  CacheStats s = cache.stats();
  EXPECT_EQ(s.compile_failures, 1);
  EXPECT_EQ(s.errors_returned, 11);
  std::optional<KeyStats> k = cache.key_stats(cache.KeyFor(*bad, Shapes(*bad)));
  EXPECT_EQ(k->state, EntryState::kFailed);
  EXPECT_EQ(k->last_error, first.status());
  // Other keys are unaffected.
  EXPECT_NE(MustGet(cache, Module(2)).executable, nullptr);
}

TEST_F(CompilationCacheTest, AsyncErrorTakesFallbackAndIsReported) {
  fake_->set_fail_if([](const JitModule& m) { return m.name() == "m3"; });
  CompilationCacheOptions o = Options(CompileMode::kAsync);
  o.error_policy = ErrorPolicy::kFallbackAndReport;
  CompilationCache cache(fake_, o);
  auto bad = Module(3);
  EXPECT_EQ(MustGet(cache, bad).reason, FallbackReason::kScheduled);
  ASSERT_TRUE(cache.WaitUntilIdle(kLong));
  ASSERT_EQ(errors_->size(), 1u);  // reported once, by the compiling thread
  for (int i = 0; i < 5; ++i) {
    Lookup l = MustGet(cache, bad);
    EXPECT_EQ(l.executable, nullptr);
    EXPECT_EQ(l.reason, FallbackReason::kCompileError);
    EXPECT_TRUE(absl::StrContains(l.error.message(), "injected")) << l.error;
  }
  EXPECT_EQ(errors_->size(), 1u);
  EXPECT_EQ(fake_->compiles_of("m3"), 1);
  CacheStats s = cache.stats();
  EXPECT_EQ(s.fallbacks_after_error, 5);
  EXPECT_EQ(s.compile_failures, 1);
}

TEST_F(CompilationCacheTest, FailingKeyRetriesWithBackoffUpToMaxAttempts) {
  fake_->set_fail_if([](const JitModule& m) { return m.name() == "m1"; });
  CompilationCacheOptions o = Options(CompileMode::kStrict);
  o.max_attempts = 3;
  o.retry_after_requests = 2;
  CompilationCache cache(fake_, o);
  auto bad = Module(1);
  std::vector<int> compiles_after;
  for (int i = 0; i < 30; ++i) {
    EXPECT_FALSE(cache.Get(bad, Shapes(*bad)).ok());
    compiles_after.push_back(fake_->compiles_of("m1"));
  }
  // Attempt 1 at request 1; attempt 2 after 2 more failing requests
  // (request 4); attempt 3 after 4 more (request 9); then never.
  EXPECT_EQ(compiles_after[0], 1);
  EXPECT_EQ(compiles_after[2], 1);
  EXPECT_EQ(compiles_after[3], 2);
  EXPECT_EQ(compiles_after[7], 2);
  EXPECT_EQ(compiles_after[8], 3);
  EXPECT_EQ(compiles_after[29], 3);
  EXPECT_EQ(errors_->size(), 3u);
}

TEST_F(CompilationCacheTest, ArtifactThatDoesNotLoadIsACompileError) {
  auto garbage = std::make_shared<FakeCompiler>(
      [](const JitModule&) -> absl::StatusOr<std::string> { return std::string("garbage"); });
  CompilationCache cache(garbage, Options(CompileMode::kStrict));
  auto m = Module(0);
  absl::StatusOr<Lookup> l = cache.Get(m, Shapes(*m));
  ASSERT_FALSE(l.ok());
  EXPECT_TRUE(absl::StrContains(l.status().message(), "does not load")) << l.status();
  EXPECT_EQ(errors_->size(), 1u);
}

TEST_F(CompilationCacheTest, DestructionCancelsQueuedAndWaitsForRunning) {
  fake_->CloseGate();
  CompilationCacheOptions o = Options(CompileMode::kAsync);
  o.pool = {/*num_threads=*/1, /*max_in_flight=*/4};
  auto cache = std::make_unique<CompilationCache>(fake_, o);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(MustGet(*cache, Module(i)).reason, FallbackReason::kScheduled);
  ASSERT_TRUE(fake_->WaitForActive(1, kLong));
  std::atomic<bool> destroyed{false};
  std::thread destroyer([&cache, &destroyed] {
    cache.reset();
    destroyed = true;
  });
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_FALSE(destroyed.load());  // waiting for the running compile
  fake_->OpenGate();
  destroyer.join();
  EXPECT_EQ(fake_->compiles(), 1);  // m1 and m2 were cancelled, not compiled
  EXPECT_EQ(errors_->size(), 0u);   // cancellation is not a compile error
}

TEST_F(CompilationCacheTest, ExecutablesOutliveTheCache) {
  auto cache = std::make_unique<CompilationCache>(fake_, Options(CompileMode::kStrict));
  auto m = Module(0);
  std::shared_ptr<aot::Executable> exe = MustGet(*cache, m).executable;
  cache.reset();
  ASSERT_NE(exe, nullptr);
  EXPECT_EQ(exe->program_shape().parameters.size(), 2u);
}

TEST_F(CompilationCacheTest, RunUsesFallbackThenTheExecutableAndBothMatchTheEvaluator) {
  fake_->CloseGate();
  CompilationCacheOptions o = Options(CompileMode::kAsync);
  auto calls = std::make_shared<std::atomic<int>>(0);
  o.fallback = std::make_shared<FunctionFallback>(
      [calls](const JitModule& module,
              absl::Span<const Literal> args) -> absl::StatusOr<std::vector<Literal>> {
        ++*calls;
        absl::StatusOr<Literal> r = HloEvaluator().Evaluate(module.module(), args);
        if (!r.ok()) return r.status();
        return FlattenLeaves(*std::move(r));
      });
  CompilationCache cache(fake_, o);
  auto m = Module(5);
  std::vector<Literal> args = testing::RandomArgs(*m, 11);
  absl::StatusOr<RunResult> slow = cache.Run(m, args);
  ASSERT_TRUE(slow.ok()) << slow.status();
  EXPECT_TRUE(slow->used_fallback);
  EXPECT_EQ(slow->reason, FallbackReason::kScheduled);
  EXPECT_TRUE(testing::MatchesEvaluator(*m, args, slow->outputs).ok());
  EXPECT_EQ(calls->load(), 1);
  fake_->OpenGate();
  ASSERT_TRUE(cache.WaitUntilIdle(kLong));
  absl::StatusOr<RunResult> fast = cache.Run(m, args);
  ASSERT_TRUE(fast.ok()) << fast.status();
  EXPECT_FALSE(fast->used_fallback);
  absl::Status match = testing::MatchesEvaluator(*m, args, fast->outputs);
  EXPECT_TRUE(match.ok()) << match;
  EXPECT_EQ(calls->load(), 1);
}

TEST_F(CompilationCacheTest, RunWithoutFallbackFailsClearly) {
  CompilationCache cache(fake_, Options(CompileMode::kLazy));
  auto m = Module(0);
  absl::StatusOr<RunResult> r = cache.Run(m, testing::RandomArgs(*m, 1));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "below_threshold")) << r.status();
}

TEST_F(CompilationCacheTest, WrongArgumentShapesAreRejected) {
  CompilationCache cache(fake_, Options(CompileMode::kStrict));
  auto m = Module(0);
  auto other = MustParse(testing::SmallModuleText("x", 5));
  absl::StatusOr<Lookup> l = cache.Get(m, Shapes(*other));
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(cache.stats().requests, 0);
  EXPECT_EQ(fake_->compiles(), 0);
}

}  // namespace
}  // namespace xla::jit
