// Hand-computed order statistics and breakdowns.
#include "xla/tools/bench_stats.h"

#include "gtest/gtest.h"

namespace xla::cli {
namespace {

TEST(Percentile, OddCountInterpolates) {
  // Sorted: 1 2 4 7 11 (n = 5): p10 at position 0.4 -> 1 + 0.4*(2-1) = 1.4;
  // median at 2 -> 4; p90 at 3.6 -> 7 + 0.6*(11-7) = 9.4.
  const std::vector<double> v = {7, 1, 11, 4, 2};
  EXPECT_DOUBLE_EQ(Percentile(v, 10), 1.4);
  EXPECT_DOUBLE_EQ(Percentile(v, 50), 4);
  EXPECT_DOUBLE_EQ(Percentile(v, 90), 9.4);
  EXPECT_DOUBLE_EQ(Percentile(v, 0), 1);
  EXPECT_DOUBLE_EQ(Percentile(v, 100), 11);
  EXPECT_DOUBLE_EQ(Percentile(v, 250), 11);
  EXPECT_DOUBLE_EQ(Percentile({}, 50), 0);
  EXPECT_DOUBLE_EQ(Percentile({3}, 90), 3);
}

TEST(Summarize, SevenValues) {
  // Sorted: 0.5 1 1.5 3 3 8 13 (n = 7): p10 at 0.6 -> 0.5 + 0.6*0.5 = 0.8;
  // median 3; p90 at 5.4 -> 8 + 0.4*5 = 10.
  RunSummary s = Summarize({3, 13, 1, 0.5, 8, 3, 1.5});
  EXPECT_EQ(s.count, 7);
  EXPECT_DOUBLE_EQ(s.min, 0.5);
  EXPECT_DOUBLE_EQ(s.p10, 0.8);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.p90, 10);
  EXPECT_DOUBLE_EQ(s.max, 13);
  EXPECT_EQ(Summarize({}).count, 0);
}

TEST(ComputeBenchStats, SelfTimeByKindAndRatesPerThunk) {
  // Thunk 0: while (parent of 1 twice per run); 1: kernel, 2: gemm, 3: copy
  // (no info). Three iterations.
  std::map<int64_t, ThunkStaticInfo> info = {
      {0, {"while", "loop", std::nullopt, std::nullopt}},
      {1, {"kernel", "add", 300, std::nullopt}},
      {2, {"gemm", "dot", 1000, 2.0 * 4 * 5 * 6}},
  };
  std::vector<std::vector<ThunkSample>> its = {
      {{0, -1, 10}, {1, 0, 3}, {1, 0, 4}, {2, -1, 5}, {3, -1, 1}},
      {{0, -1, 12}, {1, 0, 5}, {1, 0, 5}, {2, -1, 9}, {3, -1, 1}},
      {{0, -1, 9}, {1, 0, 2}, {1, 0, 4}, {2, -1, 7}, {3, -1, 1}},
  };
  BenchStats s = ComputeBenchStats(its, info);
  // Self time: while 3+2+3 = 8, kernel 7+10+6 = 23, gemm 5+9+7 = 21,
  // unknown 3; total 55.
  ASSERT_EQ(s.kinds.size(), 4u);
  EXPECT_EQ(s.kinds[0].kind, "kernel");
  EXPECT_DOUBLE_EQ(s.kinds[0].seconds_per_run, 23.0 / 3);
  EXPECT_DOUBLE_EQ(s.kinds[0].share, 23.0 / 55);
  EXPECT_EQ(s.kinds[1].kind, "gemm");
  EXPECT_DOUBLE_EQ(s.kinds[1].share, 21.0 / 55);
  EXPECT_EQ(s.kinds[2].kind, "while");
  EXPECT_DOUBLE_EQ(s.kinds[2].seconds_per_run, 8.0 / 3);
  EXPECT_EQ(s.kinds[3].kind, "unknown");
  ASSERT_EQ(s.thunks.size(), 4u);
  // Kernel totals per run 7, 10, 6 -> median 7; 2 executions per run:
  // 300 * 2 / 7 bytes/s.
  EXPECT_EQ(s.thunks[1].thunk_id, 1);
  EXPECT_DOUBLE_EQ(s.thunks[1].executions_per_run, 2);
  EXPECT_DOUBLE_EQ(s.thunks[1].median_seconds, 7);
  EXPECT_DOUBLE_EQ(*s.thunks[1].bytes_per_second, 600.0 / 7);
  EXPECT_FALSE(s.thunks[1].flops_per_second.has_value());
  // Gemm: 5, 9, 7 -> median 7; 240 flops -> 240/7 FLOP/s.
  EXPECT_DOUBLE_EQ(s.thunks[2].median_seconds, 7);
  EXPECT_DOUBLE_EQ(*s.thunks[2].flops_per_second, 240.0 / 7);
  EXPECT_DOUBLE_EQ(*s.thunks[2].bytes_per_second, 1000.0 / 7);
  EXPECT_FALSE(s.thunks[3].bytes_per_second.has_value());
  EXPECT_TRUE(ComputeBenchStats({}, info).kinds.empty());
}

}  // namespace
}  // namespace xla::cli
