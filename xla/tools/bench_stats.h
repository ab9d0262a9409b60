// Statistics of `xla_aot bench`: order statistics of whole-run times and
// per-thunk / per-kind breakdowns of traced runs. Pure functions over plain
// numbers, independent of the runtime.
//
// Thread-safety: all functions are pure (thread-safe).
#ifndef XLA_TOOLS_BENCH_STATS_H_
#define XLA_TOOLS_BENCH_STATS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace xla::cli {

// The p-th percentile (p in [0, 100]) of `values`, interpolating linearly
// between the two closest ranks (numpy's default): position p/100*(n-1) of
// the sorted values. 0 for an empty list; p is clamped to [0, 100].
double Percentile(std::vector<double> values, double p);

// Order statistics of a list of durations (seconds).
struct RunSummary {
  int64_t count = 0;
  double min = 0, p10 = 0, median = 0, p90 = 0, max = 0;
};
// Summarizes `seconds` (all zero fields when empty).
RunSummary Summarize(const std::vector<double>& seconds);

// One executed thunk of one traced iteration.
struct ThunkSample {
  // Identifies the thunk across iterations (e.g. its position in the tree).
  int64_t thunk_id = 0;
  // Index of the enclosing sample in the same iteration, -1 at top level.
  int64_t parent = -1;
  double seconds = 0;
};

// What is known of a thunk without running it.
struct ThunkStaticInfo {
  std::string kind;  // "kernel", "gemm", ...
  std::string name;  // profile annotation (or the kind)
  // Bytes of the buffer slices it reads and writes; nullopt when unknown.
  std::optional<int64_t> bytes;
  // Floating-point operations per execution; nullopt when not counted.
  std::optional<double> flops;
};

// Time of one thunk kind, counting each thunk's own time (its duration
// minus its direct children's, never below 0) so nested work is not
// counted twice.
struct KindStat {
  std::string kind;
  double seconds_per_run = 0;  // mean over iterations
  double share = 0;            // of the sum over all kinds, in [0, 1]
};

// One thunk across iterations.
struct ThunkStat {
  int64_t thunk_id = 0;
  double executions_per_run = 0;  // mean over iterations
  // Median over iterations of the thunk's total duration in that iteration.
  double median_seconds = 0;
  // bytes * executions / median; nullopt when bytes unknown or median 0.
  std::optional<double> bytes_per_second;
  std::optional<double> flops_per_second;
};

struct BenchStats {
  std::vector<KindStat> kinds;    // by decreasing seconds_per_run
  std::vector<ThunkStat> thunks;  // by thunk_id
};

// Breaks `iterations` (one list of samples per traced run) down by kind and
// by thunk. A sample whose thunk_id has no entry in `info` counts as kind
// "unknown" and gets no rates. A parent index out of range is ignored.
BenchStats ComputeBenchStats(const std::vector<std::vector<ThunkSample>>& iterations,
                             const std::map<int64_t, ThunkStaticInfo>& info);

}  // namespace xla::cli

#endif  // XLA_TOOLS_BENCH_STATS_H_
