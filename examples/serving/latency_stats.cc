#include "examples/serving/latency_stats.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace xla::serving {

absl::StatusOr<double> Percentile(absl::Span<const double> sorted, double p) {
  if (sorted.empty()) return absl::InvalidArgumentError("percentile of no samples");
  if (!(p >= 0 && p <= 100)) {
    return absl::InvalidArgumentError(absl::StrCat("percentile ", p, " is outside [0, 100]"));
  }
  if (!std::is_sorted(sorted.begin(), sorted.end())) {
    return absl::InvalidArgumentError("percentile of samples that are not in ascending order");
  }
  const double n = static_cast<double>(sorted.size());
  // p * n first: for integer p the product is exact, so ranks that land on
  // a whole number (p20 of 5 samples: rank 1) do not round up.
  const double rank = std::ceil(p * n / 100.0);
  const size_t index = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return sorted[std::min(index, sorted.size() - 1)];
}

absl::StatusOr<LatencySummary> Summarize(std::vector<double> latencies, int threads,
                                         double wall_seconds) {
  if (latencies.empty()) return absl::InvalidArgumentError("no requests were measured");
  if (!(wall_seconds > 0)) {
    return absl::InvalidArgumentError(absl::StrCat("wall time ", wall_seconds, " s is not positive"));
  }
  std::sort(latencies.begin(), latencies.end());
  LatencySummary s;
  s.requests = static_cast<int64_t>(latencies.size());
  s.threads = threads;
  s.wall_seconds = wall_seconds;
  s.requests_per_second = static_cast<double>(s.requests) / wall_seconds;
  // Percentile cannot fail here: the samples are sorted and not empty.
  s.p50_ms = *Percentile(latencies, 50) * 1e3;
  s.p90_ms = *Percentile(latencies, 90) * 1e3;
  s.p99_ms = *Percentile(latencies, 99) * 1e3;
  s.max_ms = latencies.back() * 1e3;
  return s;
}

std::string FormatSummary(const LatencySummary& s) {
  return absl::StrFormat(
      "requests:    %d\n"
      "threads:     %d\n"
      "wall time:   %.3f ms\n"
      "throughput:  %.1f requests/s\n"
      "latency p50: %.3f ms\n"
      "latency p90: %.3f ms\n"
      "latency p99: %.3f ms\n"
      "latency max: %.3f ms\n",
      s.requests, s.threads, s.wall_seconds * 1e3, s.requests_per_second, s.p50_ms, s.p90_ms,
      s.p99_ms, s.max_ms);
}

}  // namespace xla::serving
