// Peak memory of a schedule: the largest sum of live buffer bytes at any
// point of the entry computation's sequence, where a while, conditional or
// call adds the peak of its callees at its position. Uses the memory model
// of memory_model.h (parameters and constants count 0 bytes; a buffer lives
// from its defining instruction to its last reader; the root's buffers live
// to the end). Thread-safe for const inputs.
#ifndef XLA_SERVICE_SCHEDULE_PEAK_MEMORY_H_
#define XLA_SERVICE_SCHEDULE_PEAK_MEMORY_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/service/schedule/hlo_schedule.h"

namespace xla {

// Peak bytes of `schedule` over `module`. Fails when the schedule does not
// Verify against the module.
absl::StatusOr<int64_t> ComputePeakMemory(const HloModule& module, const HloSchedule& schedule);

// Peak bytes of one scheduled computation of a module whose schedule
// verifies (callees' peaks included), without verifying again.
int64_t ComputeComputationPeak(const HloComputation& computation, const HloSchedule& schedule);

}  // namespace xla

#endif  // XLA_SERVICE_SCHEDULE_PEAK_MEMORY_H_
