// Host-offload lowering, the part of thunk emission (thunk_emitter.h) that
// turns JAX's activation-offloading markers, custom-call "MoveToHost" and
// "MoveToDevice", into copies between the memory spaces that overlap the
// compute: each becomes an async_start on the offload stream
// (kOffloadStream) holding one copy thunk from the operand's slice to the
// result's (buffer assignment keeps a MoveToHost result in the host temp
// allocation; the copy thunk's direction follows the allocations' memory
// spaces at run time), and an async_done joined on the compute stream just
// before the first later instruction of the same computation that writes
// bytes the copy reads or writes, or reads bytes it writes (in a called
// computation too), or else at the computation's end. The async_start
// records an event after the producer, so the copy waits for it; the
// consumer runs after the async_done. Offload copies run in order on their
// one stream, so they never need to join for each other.
//
// Scan stacks in host memory (BufferAssignment::scan_stacks, scan_offload.h;
// --offload_scan_stacks): a stack's update (the dynamic-update-slice, or its
// fusion) becomes such an async copy of its MoveToHost's slice (which
// shares the operand's device buffer) into row `base + stride * i` of the
// host stack, and each read's MoveToDevice an async copy out of its row
// (CopyThunkProto.dynamic_offset, following the innermost while, whose
// body holds the instruction); the read's dynamic-slice emits nothing, nor
// does the stack's init when no read can see what it writes
// (ScanStack::init_dead).
//
// Thread-safety: not thread-safe; one emitter per thunk emission. It reads
// the schedule and buffer assignment only.
#ifndef XLA_BACKENDS_GPU_COMPILER_OFFLOAD_EMITTER_H_
#define XLA_BACKENDS_GPU_COMPILER_OFFLOAD_EMITTER_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/container/flat_hash_map.h"

#include "absl/status/status.h"
#include "xla/backends/gpu/compiler/thunk_emission_util.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/service/buffer_assignment/buffer_assignment.h"
#include "xla/service/schedule/hlo_schedule.h"

namespace xla::gpu {

// The stream offload copies run on (0 is compute, 1 the collectives').
inline constexpr int64_t kOffloadStream = 2;

class OffloadEmitter {
 public:
  // `new_async_id` hands out async ids unique in the artifact. The
  // arguments must outlive the emitter.
  OffloadEmitter(const HloSchedule& schedule, const BufferAssignment& assignment,
                 std::function<int64_t()> new_async_id);

  // Whether Emit handles `instr` (IsMoveToHost or IsMoveToDevice).
  static bool Handles(const HloInstruction& instr);
  // Whether `instr` is part of a scan stack in host memory: its update, a
  // read's dynamic-slice or a read's MoveToDevice, or its dead init
  // (EmitScanStack).
  bool HandlesScanStack(const HloInstruction& instr) const { return scan_.contains(&instr); }
  // Emits `instr`'s part of its scan stack (see above), left open like
  // Emit's copies. Errors: GetSlice's.
  absl::Status EmitScanStack(const HloInstruction& instr, Thunks* out);

  // Appends the async copy of `instr` (Handles) to `out`, left open.
  // Errors: Unimplemented when the operand and result are not arrays of
  // one size; GetSlice's errors.
  absl::Status Emit(const HloInstruction& instr, Thunks* out);
  // Appends an async_done to `out` for every open copy of `instr`'s
  // computation that `instr` would race with; call before emitting
  // `instr`.
  void JoinBefore(const HloInstruction& instr, Thunks* out);
  // Appends an async_done for every copy of `computation` still open; call
  // after its last instruction.
  void JoinAll(const HloComputation& computation, Thunks* out);

  // Whether any copy was emitted (the artifact then has kOffloadStream + 1
  // streams).
  bool UsedOffloadStream() const { return used_; }
  // Bytes copied to host memory by one pass over the program (each
  // MoveToHost once, loops not unrolled), and the copies emitted.
  int64_t offloaded_bytes() const { return offloaded_bytes_; }
  int64_t copies() const { return copies_; }

 private:
  struct OpenCopy {
    const HloInstruction* instr;
    const HloComputation* computation;
    int64_t async_id;
    xla::BufferSlice source;
    xla::BufferSlice destination;
  };

  // What an instruction of a scan stack emits: the update's copy into its
  // row, read `read`'s copy out of its row (at the read's MoveToDevice),
  // or nothing (a read's dynamic-slice, whose MoveToDevice copies the row;
  // a dead init).
  enum class ScanPart { kUpdate, kRead, kNothing };
  struct ScanRole {
    const ScanStack* stack;
    ScanPart part;
    int64_t read = -1;
  };

  // Appends an async copy of `source` to `destination` on the offload
  // stream whose offsets follow the innermost loop (the dynamic offsets in
  // bytes); `joined_*` are the slices the join logic guards.
  void EmitDynamicCopy(const HloInstruction& instr, const xla::BufferSlice& source,
                       const xla::BufferSlice& destination, int64_t source_base,
                       int64_t source_stride, int64_t destination_base,
                       int64_t destination_stride, const xla::BufferSlice& joined_source,
                       const xla::BufferSlice& joined_destination, Thunks* out);

  // Whether `instr` (or anything its called computations run) writes bytes
  // overlapping the copy's slices or reads the bytes it writes.
  bool Interferes(const HloInstruction& instr, const OpenCopy& copy) const;
  bool InterferesHere(const HloInstruction& instr, const OpenCopy& copy) const;

  const HloSchedule& schedule_;
  const BufferAssignment& assignment_;
  std::function<int64_t()> new_async_id_;
  std::vector<OpenCopy> open_;
  absl::flat_hash_map<const HloInstruction*, ScanRole> scan_;
  bool used_ = false;
  int64_t offloaded_bytes_ = 0;
  int64_t copies_ = 0;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_COMPILER_OFFLOAD_EMITTER_H_
