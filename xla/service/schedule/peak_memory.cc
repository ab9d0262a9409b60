#include "xla/service/schedule/peak_memory.h"

#include <algorithm>
#include <vector>

#include "xla/service/schedule/memory_model.h"

namespace xla {
namespace {

int64_t ComputationPeak(const HloComputation& computation, const HloSchedule& schedule,
                        absl::flat_hash_map<const HloComputation*, int64_t>* memo) {
  if (auto it = memo->find(&computation); it != memo->end()) return it->second;
  (*memo)[&computation] = 0;  // guards against call cycles
  const ComputationMemoryModel model(computation);
  const auto& seq = schedule.sequence(&computation);
  const int64_t n = static_cast<int64_t>(seq.size());
  std::vector<int64_t> position(model.instructions().size());
  for (int64_t p = 0; p < n; ++p) position[model.index(seq[p])] = p;
  // delta[p]: bytes that become live at p; freed[p]: bytes dead after p.
  std::vector<int64_t> delta(n + 1, 0), freed(n + 1, 0);
  std::vector<int64_t> start(model.leaf_count(), -1), end(model.leaf_count(), -1);
  for (int64_t i = 0; i < static_cast<int64_t>(model.instructions().size()); ++i) {
    for (int64_t leaf : model.defined_by(i)) start[leaf] = position[i];
    for (int64_t leaf : model.reads_of(i)) end[leaf] = std::max(end[leaf], position[i]);
  }
  for (int64_t leaf = 0; leaf < model.leaf_count(); ++leaf) {
    if (start[leaf] < 0 || model.bytes(leaf) == 0) continue;
    const int64_t last = model.live_out(leaf) ? n - 1 : std::max(end[leaf], start[leaf]);
    delta[start[leaf]] += model.bytes(leaf);
    freed[last] += model.bytes(leaf);
  }
  int64_t live = 0, peak = 0;
  for (int64_t p = 0; p < n; ++p) {
    live += delta[p];
    int64_t callee_peak = 0;
    for (const HloComputation* callee : ScheduledCallees(*seq[p])) {
      callee_peak = std::max(callee_peak, ComputationPeak(*callee, schedule, memo));
    }
    peak = std::max(peak, live + callee_peak);
    live -= freed[p];
  }
  (*memo)[&computation] = peak;
  return peak;
}

}  // namespace

int64_t ComputeComputationPeak(const HloComputation& computation, const HloSchedule& schedule) {
  absl::flat_hash_map<const HloComputation*, int64_t> memo;
  return ComputationPeak(computation, schedule, &memo);
}

absl::StatusOr<int64_t> ComputePeakMemory(const HloModule& module, const HloSchedule& schedule) {
  absl::Status valid = schedule.Verify(module);
  if (!valid.ok()) return valid;
  absl::flat_hash_map<const HloComputation*, int64_t> memo;
  return ComputationPeak(*module.entry_computation(), schedule, &memo);
}

}  // namespace xla
