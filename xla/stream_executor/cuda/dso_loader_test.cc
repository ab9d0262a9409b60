// The shared dlopen loader on libraries every Linux machine has (libm), and
// on paths that do not exist: the paths tried, the two error wordings,
// required versus optional symbols, and the load-once table with its
// testing override under concurrent first calls.
#include "xla/stream_executor/cuda/dso_loader.h"

#include <stdlib.h>

#include <atomic>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace stream_executor::cuda {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kEnv[] = "XLA_DSO_LOADER_TEST_LIBRARY";

TEST(LibraryPathsTest, EnvironmentVariableReplacesTheCandidatesOnlyWhenSet) {
  unsetenv(kEnv);
  EXPECT_THAT(LibraryPaths({"liba.so.2", "liba.so.1"}, kEnv),
              ElementsAre("liba.so.2", "liba.so.1"));
  EXPECT_THAT(LibraryPaths({"liba.so.2"}, nullptr), ElementsAre("liba.so.2"));
  setenv(kEnv, "", 1);
  EXPECT_THAT(LibraryPaths({"liba.so.2"}, kEnv), ElementsAre("liba.so.2"));
  setenv(kEnv, "/opt/liba.so", 1);
  EXPECT_THAT(LibraryPaths({"liba.so.2", "liba.so.1"}, kEnv),
              ElementsAre("/opt/liba.so"));
  unsetenv(kEnv);
}

TEST(OpenLibraryTest, MissingLibraryNamesEveryPathTriedAndTheAdvice) {
  absl::StatusOr<OpenedLibrary> library = OpenLibrary(
      "libx", {"/nonexistent/libx.so.2", "/nonexistent/libx.so.1"}, nullptr,
      "install libx");
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(library.status().message(),
              HasSubstr("libx not found: cannot dlopen /nonexistent/libx.so.2, "
                        "/nonexistent/libx.so.1 ("));
  EXPECT_THAT(library.status().message(),
              HasSubstr("libx.so.1: cannot open shared object file"));
  EXPECT_THAT(std::string(library.status().message()),
              testing::EndsWith("); install libx"));
}

TEST(OpenLibraryTest, OpensTheFirstPathThatLoads) {
  absl::StatusOr<OpenedLibrary> library =
      OpenFirst({"/nonexistent/libm.so", "libm.so.6"});
  ASSERT_TRUE(library.ok()) << library.status();
  EXPECT_EQ(library->path, "libm.so.6");
  EXPECT_NE(library->handle, nullptr);
  EXPECT_THAT(OpenFirst({}).status().message(),
              HasSubstr("cannot dlopen  (no candidate)"));
}

// A small table over libm: two required entry points, one optional that
// exists and one that does not.
struct MathApi {
  double (*cos)(double) = nullptr;
  double (*sqrt)(double) = nullptr;
  double (*optional_exp)(double) = nullptr;
  double (*optional_missing)(double) = nullptr;
};

void ResolveMath(SymbolResolver& symbols, MathApi& api) {
  symbols.Required("cos", api.cos);
  symbols.Required("sqrt", api.sqrt);
  symbols.Optional("exp", api.optional_exp);
  symbols.Optional("xla_no_such_function", api.optional_missing);
}

TEST(SymbolResolverTest, RequiredAndOptionalSymbolsFromARealLibrary) {
  absl::StatusOr<OpenedLibrary> libm = OpenFirst({"libm.so.6"});
  ASSERT_TRUE(libm.ok()) << libm.status();
  absl::StatusOr<MathApi> api = ResolveApi<MathApi>(*libm, "advice", &ResolveMath);
  ASSERT_TRUE(api.ok()) << api.status();
  EXPECT_DOUBLE_EQ(api->cos(0.5), std::cos(0.5));
  EXPECT_DOUBLE_EQ(api->sqrt(7.0), std::sqrt(7.0));
  ASSERT_NE(api->optional_exp, nullptr);
  EXPECT_DOUBLE_EQ(api->optional_exp(1.25), std::exp(1.25));
  EXPECT_EQ(api->optional_missing, nullptr);
}

TEST(SymbolResolverTest, FirstMissingRequiredSymbolIsTheErrorAndLaterOnesStayNull) {
  absl::StatusOr<OpenedLibrary> libm = OpenFirst({"libm.so.6"});
  ASSERT_TRUE(libm.ok()) << libm.status();
  SymbolResolver symbols(*libm, "install a newer libm");
  double (*cos)(double) = nullptr;
  double (*missing)(double) = nullptr;
  double (*after)(double) = &std::sqrt;
  symbols.Required("cos", cos);
  EXPECT_NE(cos, nullptr);
  EXPECT_TRUE(symbols.status().ok());
  symbols.Required("xla_missing_one", missing);
  symbols.Required("sqrt", after);
  EXPECT_EQ(missing, nullptr);
  EXPECT_EQ(after, nullptr);
  EXPECT_EQ(symbols.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(symbols.status().message(),
            "libm.so.6 has no symbol 'xla_missing_one'; install a newer libm");
  // LookupSymbol words a miss the same way.
  EXPECT_EQ(LookupSymbol(*libm, "xla_missing_one", "install a newer libm").status(),
            symbols.status());
}

absl::Status CustomMissing(const OpenedLibrary& library, const char* symbol,
                           absl::string_view advice) {
  return absl::NotFoundError(absl::StrCat(symbol, " @ ", library.path, " / ", advice));
}

void ResolveOneMissing(SymbolResolver& symbols, MathApi& api) {
  symbols.Required("xla_missing_two", api.cos);
}

TEST(SymbolResolverTest, TableMayWordItsOwnMissingSymbolError) {
  absl::StatusOr<OpenedLibrary> libm = OpenFirst({"libm.so.6"});
  ASSERT_TRUE(libm.ok()) << libm.status();
  absl::StatusOr<MathApi> api =
      ResolveApi<MathApi>(*libm, "adv", &ResolveOneMissing, &CustomMissing);
  EXPECT_EQ(api.status(), absl::NotFoundError("xla_missing_two @ libm.so.6 / adv"));
}

TEST(OpenApiTest, OpensAndResolvesOrSaysWhichStepFailed) {
  unsetenv(kEnv);
  absl::StatusOr<MathApi> api =
      OpenApi<MathApi>("libm", {"/nonexistent/libm.so", "libm.so.6"}, kEnv,
                       "advice", &ResolveMath);
  ASSERT_TRUE(api.ok()) << api.status();
  EXPECT_DOUBLE_EQ(api->sqrt(2.0), std::sqrt(2.0));
  setenv(kEnv, "/nonexistent/override.so", 1);
  api = OpenApi<MathApi>("libm", {"libm.so.6"}, kEnv, "advice", &ResolveMath);
  unsetenv(kEnv);
  ASSERT_FALSE(api.ok());
  EXPECT_THAT(api.status().message(),
              HasSubstr("libm not found: cannot dlopen /nonexistent/override.so ("));
}

std::atomic<int> load_count{0};

absl::StatusOr<MathApi> CountingFailingLoad() {
  ++load_count;
  return absl::FailedPreconditionError(absl::StrCat("load number ", load_count.load()));
}

ABSL_CONST_INIT LazyApi<MathApi> lazy_failing(&CountingFailingLoad);

TEST(LazyApiTest, LoadsOnceUnderConcurrentFirstCallsAndKeepsTheError) {
  std::vector<std::thread> threads;
  std::vector<absl::Status> seen(8);
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&seen, i] { seen[i] = lazy_failing.Get().status(); });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(load_count.load(), 1);
  for (const absl::Status& status : seen) {
    EXPECT_EQ(status, absl::FailedPreconditionError("load number 1"));
  }
  EXPECT_EQ(lazy_failing.Get().status(), seen[0]);
  EXPECT_EQ(load_count.load(), 1);
}

TEST(LazyApiTest, TestingTableWinsUntilCleared) {
  MathApi fake;
  EXPECT_EQ(lazy_failing.ForTesting(), nullptr);
  lazy_failing.SetForTesting(&fake);
  absl::StatusOr<const MathApi*> api = lazy_failing.Get();
  ASSERT_TRUE(api.ok());
  EXPECT_EQ(*api, &fake);
  EXPECT_EQ(lazy_failing.ForTesting(), &fake);
  // The loaded result is still there, unchanged, behind the override.
  EXPECT_FALSE(lazy_failing.Loaded().ok());
  lazy_failing.SetForTesting(nullptr);
  EXPECT_FALSE(lazy_failing.Get().ok());
}

absl::StatusOr<MathApi> LoadLibm() {
  return OpenApi<MathApi>("libm", {"libm.so.6"}, nullptr, "advice", &ResolveMath);
}

ABSL_CONST_INIT LazyApi<MathApi> lazy_libm(&LoadLibm);

TEST(LazyApiTest, SuccessfulLoadHandsOutTheSameTable) {
  absl::StatusOr<const MathApi*> first = lazy_libm.Get();
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_DOUBLE_EQ((*first)->cos(1.0), std::cos(1.0));
  absl::StatusOr<const MathApi*> second = lazy_libm.Get();
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*first, *second);
}

}  // namespace
}  // namespace stream_executor::cuda
