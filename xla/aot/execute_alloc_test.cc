// Counts heap allocations (every operator new in this binary, on every
// thread) during Execute of a warm executable on the host device: a chain of
// N dependent f32[1] adds compiled without fusion, i.e. N kernel thunks.
// Dispatch must not allocate per thunk (issue 11, "low dispatch overhead"):
// the count per Execute is the same for N = 8 and N = 64, and small.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/aot/executable.h"
#include "xla/backends/gpu/compiler/host_compiler.h"
#include "xla/stream_executor/host/host_platform.h"

namespace {

std::atomic<int64_t> g_news{0};

void* Counted(size_t size) {
  g_news.fetch_add(1, std::memory_order_relaxed);
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace

void* operator new(size_t size) { return Counted(size); }
void* operator new[](size_t size) { return Counted(size); }
void* operator new(size_t size, const std::nothrow_t&) noexcept {
  g_news.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }

namespace xla::aot {
namespace {

namespace se = ::stream_executor;

se::StreamExecutor* Host() {
  static se::host::HostPlatform* platform = new se::host::HostPlatform();
  static se::StreamExecutor* executor = [] {
    auto device = platform->GetDevice(0);
    EXPECT_TRUE(device.ok()) << device.status();
    return device.ok() ? *device : nullptr;
  }();
  return executor;
}

// v_i = v_{i-1} + c for i = 1..n, then a copy: n kernel thunks of one
// element each (fusion off).
std::string ChainHlo(int n) {
  std::string text =
      "HloModule chain\nENTRY main {\n  v0 = f32[1] parameter(0)\n  c = f32[1] parameter(1)\n";
  for (int i = 1; i <= n; ++i) absl::StrAppend(&text, "  v", i, " = f32[1] add(v", i - 1, ", c)\n");
  absl::StrAppend(&text, "  ROOT r = f32[1] copy(v", n, ")\n}\n");
  return text;
}

struct Counts {
  int64_t kernels = 0;
  int64_t min = 0;  // fewest allocations of one warm Execute
  int64_t max = 0;  // most
};

// Compiles and warms the chain of `n`, then counts the allocations of each
// of `runs` Executes (the argument vector is built outside the window, the
// returned outputs are freed outside it). Checks every result.
Counts CountChain(int n, int runs) {
  gpu::HostCompilerOptions options;
  options.middle_end.fusion = false;
  options.middle_end.multi_output_fusion = false;
  // One kernel per thunk (the adds would otherwise share one kernel).
  options.thunks.reuse_kernels = false;
  absl::StatusOr<std::string> bytes = gpu::CompileHloToHostArtifact(ChainHlo(n), options);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  if (!bytes.ok()) return {};
  auto loaded = Executable::LoadFromBytes(*bytes);
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  if (!loaded.ok()) return {};
  std::unique_ptr<Executable> exe = *std::move(loaded);
  EXPECT_TRUE(exe->Initialize(Host()).ok());
  auto a = Host()->Allocate(4);
  auto c = Host()->Allocate(4);
  EXPECT_TRUE(a.ok() && c.ok());
  *static_cast<float*>(a->opaque) = 1.5f;
  *static_cast<float*>(c->opaque) = 0.25f;
  // 1.5 + n * 0.25 is exact in f32 for these n.
  const float expected = 1.5f + 0.25f * static_cast<float>(n);

  Counts counts;
  counts.kernels = static_cast<int64_t>(exe->program().kernels.size());
  counts.min = INT64_MAX;
  const int warmup = 3;
  for (int i = 0; i < warmup + runs; ++i) {
    std::vector<ExecutionArgument> args;
    args.reserve(2);
    args.push_back(ExecutionArgument::Borrow(*a));
    args.push_back(ExecutionArgument::Borrow(*c));
    const int64_t before = g_news.load();
    auto out = exe->Execute(Host(), std::move(args));
    const int64_t allocations = g_news.load() - before;
    EXPECT_TRUE(out.ok()) << out.status();
    if (!out.ok()) return {};
    EXPECT_EQ(out->size(), 1u);
    EXPECT_EQ(*static_cast<const float*>((*out)[0].get().opaque), expected) << "run " << i;
    if (i < warmup) continue;
    counts.min = std::min(counts.min, allocations);
    counts.max = std::max(counts.max, allocations);
  }
  EXPECT_TRUE(Host()->Deallocate(*a).ok());
  EXPECT_TRUE(Host()->Deallocate(*c).ok());
  return counts;
}

TEST(ExecuteAlloc, AllocationsPerExecuteDoNotGrowWithThunks) {
  const int kRuns = 20;
  const Counts small = CountChain(8, kRuns);
  const Counts large = CountChain(64, kRuns);
  std::printf("EXECUTE_ALLOC kernels=%lld min=%lld max=%lld; kernels=%lld min=%lld max=%lld\n",
              static_cast<long long>(small.kernels), static_cast<long long>(small.min),
              static_cast<long long>(small.max), static_cast<long long>(large.kernels),
              static_cast<long long>(large.min), static_cast<long long>(large.max));
  RecordProperty("allocations_per_execute_8", std::to_string(small.min));
  RecordProperty("allocations_per_execute_64", std::to_string(large.min));
  // The programs really have the kernel thunks the test is about.
  EXPECT_GE(small.kernels, 8);
  EXPECT_GE(large.kernels, 64);
  // No per-thunk allocation: 56 more thunks add none (one allocation per
  // thunk would add 56 to every run).
  EXPECT_EQ(large.min, small.min);
  // A run may rarely add one or two: the host executor's table of live
  // allocations rehashing when the temp and output buffers come and go.
  EXPECT_LE(large.max, small.max + 2);
  // What remains is the returned vector of outputs (the output and temp
  // buffers come from aligned_alloc, not operator new).
  EXPECT_LE(small.min, 1);
  EXPECT_LE(small.max, 3);
}

}  // namespace
}  // namespace xla::aot
