#include "xla/tools/bench_stats.h"

#include <algorithm>
#include <cmath>

namespace xla::cli {

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  p = std::min(100.0, std::max(0.0, p));
  const double pos = p / 100.0 * static_cast<double>(values.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return values[lo] + (values[hi] - values[lo]) * frac;
}

RunSummary Summarize(const std::vector<double>& seconds) {
  RunSummary s;
  if (seconds.empty()) return s;
  s.count = static_cast<int64_t>(seconds.size());
  s.min = *std::min_element(seconds.begin(), seconds.end());
  s.max = *std::max_element(seconds.begin(), seconds.end());
  s.p10 = Percentile(seconds, 10);
  s.median = Percentile(seconds, 50);
  s.p90 = Percentile(seconds, 90);
  return s;
}

BenchStats ComputeBenchStats(const std::vector<std::vector<ThunkSample>>& iterations,
                             const std::map<int64_t, ThunkStaticInfo>& info) {
  BenchStats stats;
  if (iterations.empty()) return stats;
  const double runs = static_cast<double>(iterations.size());
  auto kind_of = [&](int64_t id) -> std::string {
    auto it = info.find(id);
    return it == info.end() ? "unknown" : it->second.kind;
  };
  std::map<std::string, double> kind_seconds;
  std::map<int64_t, std::vector<double>> per_thunk;  // id -> one total per iteration
  std::map<int64_t, double> executions;
  for (size_t it = 0; it < iterations.size(); ++it) {
    const std::vector<ThunkSample>& samples = iterations[it];
    std::vector<double> self(samples.size());
    for (size_t i = 0; i < samples.size(); ++i) self[i] = samples[i].seconds;
    for (const ThunkSample& s : samples) {
      if (s.parent >= 0 && s.parent < static_cast<int64_t>(samples.size())) self[s.parent] -= s.seconds;
    }
    for (size_t i = 0; i < samples.size(); ++i) {
      const ThunkSample& s = samples[i];
      kind_seconds[kind_of(s.thunk_id)] += std::max(0.0, self[i]);
      std::vector<double>& totals = per_thunk[s.thunk_id];
      totals.resize(iterations.size(), 0.0);
      totals[it] += s.seconds;
      executions[s.thunk_id] += 1;
    }
  }
  double all = 0;
  for (const auto& [kind, seconds] : kind_seconds) all += seconds;
  for (const auto& [kind, seconds] : kind_seconds) {
    stats.kinds.push_back({kind, seconds / runs, all > 0 ? seconds / all : 0});
  }
  std::stable_sort(stats.kinds.begin(), stats.kinds.end(), [](const KindStat& a, const KindStat& b) {
    return a.seconds_per_run > b.seconds_per_run;
  });
  for (const auto& [id, totals] : per_thunk) {
    ThunkStat t;
    t.thunk_id = id;
    t.executions_per_run = executions[id] / runs;
    t.median_seconds = Percentile(totals, 50);
    auto it = info.find(id);
    if (it != info.end() && t.median_seconds > 0) {
      if (it->second.bytes.has_value()) {
        t.bytes_per_second = static_cast<double>(*it->second.bytes) * t.executions_per_run / t.median_seconds;
      }
      if (it->second.flops.has_value()) {
        t.flops_per_second = *it->second.flops * t.executions_per_run / t.median_seconds;
      }
    }
    stats.thunks.push_back(t);
  }
  return stats;
}

}  // namespace xla::cli
