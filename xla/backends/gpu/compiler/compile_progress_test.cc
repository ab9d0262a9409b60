#include "xla/backends/gpu/compiler/compile_progress.h"

#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace xla::gpu {
namespace {

using Kind = CompileProgressEvent::Kind;

TEST(CompileProgress, UnthrottledReportsEverythingInOrder) {
  std::vector<std::string> lines;
  CompileProgress progress([&](const CompileProgressEvent& e) { lines.push_back(e.ToString()); },
                           absl::ZeroDuration(), 0.0);
  EXPECT_TRUE(progress.enabled());
  progress.EnterPhase("middle_end");
  progress.Pass("simplify.1", "cse");
  progress.EnterPhase("kernel_compilation");
  progress.Kernels(3, 7);
  progress.Kernels(2, 7);  // backwards: ignored
  progress.Kernels(7, 7);
  EXPECT_EQ(lines, (std::vector<std::string>{"[middle_end]", "[middle_end] pass simplify.1/cse",
                                             "[kernel_compilation]",
                                             "[kernel_compilation] kernels 3/7 (42%)",
                                             "[kernel_compilation] kernels 7/7 (100%)"}));
}

TEST(CompileProgress, ThrottlesPassesAndKernelsButNotPhasesOrTheEnd) {
  std::vector<CompileProgressEvent> events;
  CompileProgress progress([&](const CompileProgressEvent& e) { events.push_back(e); },
                           absl::Hours(1), 0.10);
  progress.EnterPhase("middle_end");
  for (int i = 0; i < 50; ++i) progress.Pass("p", "x");  // within the interval: none
  progress.EnterPhase("kernel_compilation");
  for (int i = 1; i <= 1000; ++i) progress.Kernels(i, 1000);
  progress.EnterPhase("finalize");
  std::vector<int64_t> kernel_counts;
  std::vector<std::string> phases;
  for (const CompileProgressEvent& e : events) {
    if (e.kind == Kind::kPhase) phases.push_back(e.phase);
    if (e.kind == Kind::kKernels) kernel_counts.push_back(e.done);
    EXPECT_NE(e.kind, Kind::kPass);
  }
  EXPECT_EQ(phases, (std::vector<std::string>{"middle_end", "kernel_compilation", "finalize"}));
  // The first count, then every 10% (100 kernels), the last at the total.
  ASSERT_EQ(kernel_counts.size(), 11u);
  EXPECT_EQ(kernel_counts.front(), 1);
  EXPECT_EQ(kernel_counts[1], 101);
  EXPECT_EQ(kernel_counts.back(), 1000);
}

TEST(CompileProgress, ConcurrentKernelReportsNeverOverlapAndReachTheTotal) {
  int in_callback = 0;
  bool overlapped = false;
  int64_t max_done = 0;
  int calls = 0;
  CompileProgress progress(
      [&](const CompileProgressEvent& e) {
        overlapped |= ++in_callback != 1;
        if (e.kind == Kind::kKernels) max_done = std::max(max_done, e.done);
        ++calls;
        --in_callback;
      },
      absl::ZeroDuration(), 0.0);
  progress.EnterPhase("kernel_compilation");
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&progress, t] {
      for (int i = t; i < 300; i += 3) progress.Kernels(i + 1, 300);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_FALSE(overlapped);
  EXPECT_EQ(max_done, 300);
  EXPECT_GT(calls, 1);
}

TEST(CompileProgress, NoCallbackIsANoOp) {
  CompileProgress progress(nullptr);
  EXPECT_FALSE(progress.enabled());
  progress.EnterPhase("middle_end");
  progress.Pass("a", "b");
  progress.Kernels(1, 2);
}

}  // namespace
}  // namespace xla::gpu
