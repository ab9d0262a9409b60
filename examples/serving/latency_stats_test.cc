// Nearest-rank percentiles against values worked out by hand, and the
// summary built on them.
#include "examples/serving/latency_stats.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace xla::serving {
namespace {

double P(const std::vector<double>& sorted, double p) {
  absl::StatusOr<double> v = Percentile(sorted, p);
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : std::nan("");
}

// 7 samples. Rank = ceil(p * 7 / 100): p50 -> ceil(3.5) = 4th, p90 ->
// ceil(6.3) = 7th, p99 -> ceil(6.93) = 7th, p14 -> ceil(0.98) = 1st,
// p15 -> ceil(1.05) = 2nd.
TEST(PercentileTest, SevenSamples) {
  const std::vector<double> s = {0.5, 1.5, 2.5, 4.0, 7.0, 11.0, 13.0};
  EXPECT_EQ(P(s, 0), 0.5);
  EXPECT_EQ(P(s, 14), 0.5);
  EXPECT_EQ(P(s, 15), 1.5);
  EXPECT_EQ(P(s, 50), 4.0);
  EXPECT_EQ(P(s, 90), 13.0);
  EXPECT_EQ(P(s, 99), 13.0);
  EXPECT_EQ(P(s, 100), 13.0);
}

// 11 samples 3, 6, ..., 33: p50 -> ceil(5.5) = 6th (18), p90 -> ceil(9.9) =
// 10th (30), p99 -> ceil(10.89) = 11th (33), p9 -> ceil(0.99) = 1st (3),
// p10 -> ceil(1.1) = 2nd (6).
TEST(PercentileTest, ElevenSamples) {
  std::vector<double> s;
  for (int i = 1; i <= 11; ++i) s.push_back(3.0 * i);
  EXPECT_EQ(P(s, 9), 3.0);
  EXPECT_EQ(P(s, 10), 6.0);
  EXPECT_EQ(P(s, 50), 18.0);
  EXPECT_EQ(P(s, 90), 30.0);
  EXPECT_EQ(P(s, 99), 33.0);
}

// A rank that is a whole number is not rounded up: p20 of 5 samples is rank
// 20 * 5 / 100 = 1 exactly (the 1st), p40 the 2nd, p41 -> ceil(2.05) = 3rd.
TEST(PercentileTest, WholeRanksAreExact) {
  const std::vector<double> s = {10, 20, 30, 40, 50};
  EXPECT_EQ(P(s, 20), 10.0);
  EXPECT_EQ(P(s, 40), 20.0);
  EXPECT_EQ(P(s, 41), 30.0);
  EXPECT_EQ(P(s, 50), 30.0);
  EXPECT_EQ(P(s, 90), 50.0);
}

TEST(PercentileTest, OneSampleIsEveryPercentile) {
  const std::vector<double> s = {2.25};
  for (double p : {0.0, 1.0, 50.0, 99.0, 100.0}) EXPECT_EQ(P(s, p), 2.25) << p;
}

TEST(PercentileTest, RefusesBadArguments) {
  const std::vector<double> s = {1, 2, 3};
  EXPECT_EQ(Percentile({}, 50).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Percentile(s, -1).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Percentile(s, 100.5).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Percentile(s, std::nan("")).status().code(), absl::StatusCode::kInvalidArgument);
  const std::vector<double> unsorted = {3, 1, 2};
  absl::Status st = Percentile(unsorted, 50).status();
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("ascending"), std::string::npos) << st;
}

// 3 latencies in any order over 4 ms on 2 threads: 750 requests/s; p50 is
// the 2nd (ceil(1.5)), p90 and p99 the 3rd.
TEST(SummarizeTest, ThreeRequests) {
  absl::StatusOr<LatencySummary> s = Summarize({0.003, 0.001, 0.002}, 2, 0.004);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->requests, 3);
  EXPECT_EQ(s->threads, 2);
  EXPECT_DOUBLE_EQ(s->requests_per_second, 750.0);
  EXPECT_DOUBLE_EQ(s->p50_ms, 2.0);
  EXPECT_DOUBLE_EQ(s->p90_ms, 3.0);
  EXPECT_DOUBLE_EQ(s->p99_ms, 3.0);
  EXPECT_DOUBLE_EQ(s->max_ms, 3.0);
  const std::string text = FormatSummary(*s);
  EXPECT_NE(text.find("requests:    3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("throughput:  750.0 requests/s\n"), std::string::npos) << text;
  EXPECT_NE(text.find("latency p50: 2.000 ms\n"), std::string::npos) << text;
  EXPECT_NE(text.find("latency max: 3.000 ms\n"), std::string::npos) << text;
}

TEST(SummarizeTest, RefusesNothingMeasured) {
  EXPECT_EQ(Summarize({}, 1, 1.0).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Summarize({0.1}, 1, 0.0).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace xla::serving
