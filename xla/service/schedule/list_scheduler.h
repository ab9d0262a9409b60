// A memory-aware greedy list scheduler.
//
// For each computation that owns buffers (ComputationsNeedingSchedule), the
// scheduler repeatedly picks, among the instructions whose operands and
// control predecessors are all scheduled, the one with the largest positive
// "bytes freed minus bytes allocated" (memory_model.h); when none frees
// memory on balance, the first in the computation's post order
// (MakePostOrder). Async collective starts (all-reduce-start,
// all-gather-start, collective-permute-start) go first whenever ready and
// their -done ops last, so independent work overlaps the collective.
// Without such gains or async collectives the result is exactly the post
// order, and it is deterministic.
// Thread-safe for a const module.
#ifndef XLA_SERVICE_SCHEDULE_LIST_SCHEDULER_H_
#define XLA_SERVICE_SCHEDULE_LIST_SCHEDULER_H_

#include "absl/status/statusor.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/service/schedule/hlo_schedule.h"

namespace xla {

struct SchedulerOptions {
  enum class Algorithm {
    kMemoryAware,  // the greedy list scheduler described above
    kPostOrder,    // MakePostOrder of each computation (the baseline)
  };
  Algorithm algorithm = Algorithm::kMemoryAware;
};

// Schedules every computation of `module` that owns buffers. Fails when a
// computation has a dependency cycle (the error names the computation) or
// the module has no entry computation.
absl::StatusOr<HloSchedule> ScheduleModule(const HloModule& module,
                                           const SchedulerOptions& options);

}  // namespace xla

#endif  // XLA_SERVICE_SCHEDULE_LIST_SCHEDULER_H_
