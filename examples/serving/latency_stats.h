// Latency statistics for the serving example: nearest-rank percentiles and
// the one-line-per-figure summary the example prints at the end.
//
// Thread-safety: pure functions over the caller's values; safe to call from
// any thread.
#ifndef EXAMPLES_SERVING_LATENCY_STATS_H_
#define EXAMPLES_SERVING_LATENCY_STATS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace xla::serving {

// The nearest-rank percentile of `sorted` (ascending): the smallest sample
// such that at least p percent of the samples are <= it, i.e.
// sorted[ceil(p * n / 100) - 1], and sorted[0] for p = 0. It is always one
// of the samples (no interpolation), so p100 is the maximum and, with 5
// samples, p50 is the 3rd and p90 and p99 are the 5th.
// InvalidArgument when `sorted` is empty, when p is outside [0, 100] or
// NaN, or when `sorted` is not in ascending order.
absl::StatusOr<double> Percentile(absl::Span<const double> sorted, double p);

// What a serving run measured.
struct LatencySummary {
  int64_t requests = 0;         // requests measured
  int threads = 0;              // serving threads
  double wall_seconds = 0;      // first request started to last one done
  double requests_per_second = 0;  // requests / wall_seconds
  double p50_ms = 0, p90_ms = 0, p99_ms = 0, max_ms = 0;  // per request
};

// Summarizes per-request latencies (seconds, any order) measured by
// `threads` threads over `wall_seconds`. InvalidArgument when `latencies`
// is empty, or when wall_seconds is not > 0.
absl::StatusOr<LatencySummary> Summarize(std::vector<double> latencies, int threads,
                                         double wall_seconds);

// The summary as printed, one figure per line:
//   requests:    320
//   threads:     4
//   wall time:   12.345 ms
//   throughput:  25921.3 requests/s
//   latency p50: 0.123 ms
//   ... p90, p99, max
std::string FormatSummary(const LatencySummary& summary);

}  // namespace xla::serving

#endif  // EXAMPLES_SERVING_LATENCY_STATS_H_
