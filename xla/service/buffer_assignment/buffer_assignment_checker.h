// An independent check of a BufferAssignment against its module and
// schedule.
//
// Recomputes, from the schedule and the sharing rules (alias_analysis.h,
// in_place.h) but not from the assigner's intermediate state:
//   (a) no two buffers live at the same time overlap in memory, unless they
//       are one buffer by the forwarding rules or a legal in-place write;
//   (b) every read of a value sees the write that defines it: the latest
//       earlier write to its bytes is one of its reaching definitions, and
//       nothing writes those bytes inside a loop that reads them again in a
//       later iteration;
//   (c) every slice lies inside its allocation, starts at a multiple of the
//       alignment and has its leaf's byte size;
//   (d) entry parameters, constants and results sit in allocations of the
//       right kind, and only donated or aliased parameters are written.
// Thread-safe for const inputs.
#ifndef XLA_SERVICE_BUFFER_ASSIGNMENT_BUFFER_ASSIGNMENT_CHECKER_H_
#define XLA_SERVICE_BUFFER_ASSIGNMENT_BUFFER_ASSIGNMENT_CHECKER_H_

#include <cstdint>

#include "absl/status/status.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/service/buffer_assignment/buffer_assignment.h"
#include "xla/service/schedule/hlo_schedule.h"

namespace xla {

// OK when all of (a)-(d) hold. Otherwise FailedPrecondition naming the
// instructions (with shape index), the allocation and byte ranges, and the
// schedule times involved; the first violation found is reported.
absl::Status CheckBufferAssignment(const HloModule& module, const HloSchedule& schedule,
                                   const BufferAssignment& assignment, int64_t alignment = 256);

}  // namespace xla

#endif  // XLA_SERVICE_BUFFER_ASSIGNMENT_BUFFER_ASSIGNMENT_CHECKER_H_
