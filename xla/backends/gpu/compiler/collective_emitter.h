// Collective lowering, the part of thunk emission (thunk_emitter.h) that
// turns all-reduce, all-gather, reduce-scatter, all-to-all,
// collective-permute, collective-broadcast, replica-id, partition-id and the
// -start/-done pairs of all-reduce, all-gather and collective-permute into
// CollectiveThunkProtos (one per operand), async_start / async_done thunks
// on the communication stream (kCollectiveStream) and the copies their
// buffers need. thunk_emitter.h's header comment describes what each op
// becomes and when an async pair is joined at once.
//
// Thread-safety: not thread-safe; one emitter per thunk emission. It reads
// the module, schedule and buffer assignment only.
#ifndef XLA_BACKENDS_GPU_COMPILER_COLLECTIVE_EMITTER_H_
#define XLA_BACKENDS_GPU_COMPILER_COLLECTIVE_EMITTER_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "xla/backends/gpu/compiler/thunk_emission_util.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/service/buffer_assignment/buffer_assignment.h"
#include "xla/service/schedule/hlo_schedule.h"

namespace xla::gpu {

// The stream every async collective's nested thunks run on (the compute
// stream is 0). Artifacts without an async collective keep 1 stream.
inline constexpr int64_t kCollectiveStream = 1;

class CollectiveEmitter {
 public:
  // `enabled` is ThunkEmitterOptions::emit_collectives. The arguments must
  // outlive the emitter.
  CollectiveEmitter(const HloModule& module, const HloSchedule& schedule,
                    const BufferAssignment& assignment, bool enabled)
      : enabled_(enabled), module_(module), schedule_(schedule), assignment_(assignment) {}

  // Whether Emit handles `op`.
  static bool IsCollective(HloOpcode op);

  // Appends the thunks of the collective `instr` (IsCollective) to `out`,
  // in schedule order. Errors: Unimplemented naming the op and
  // `--emit_collectives` when not enabled; Unimplemented for forms the
  // runtime lacks (in-place collective-permute, tuple all-to-all, several
  // operands of a gathering op, non-row-major or non-array operands, a
  // reducer that is not one binary op of its parameters, a -done whose
  // operand is not its -start); InvalidArgument for a source-target pair
  // outside its group; GetSlice's errors.
  absl::Status Emit(const HloInstruction& instr, Thunks* out);

  // Whether any async_start was emitted (the artifact then has
  // kCollectiveStream + 1 streams).
  bool UsedCollectiveStream() const { return used_stream_; }
  // A new async id, unique among those this emitter hands out (for other
  // async work of the same artifact, such as offload copies).
  int64_t NewAsyncId() { return next_async_id_++; }

 private:
  absl::StatusOr<xla::BufferSlice> Slice(const HloInstruction* instr, const ShapeIndex& index) const {
    return assignment_.GetSlice(instr, index);
  }
  int64_t NumPartitions() const;
  absl::StatusOr<std::vector<std::vector<int64_t>>> ParticipantGroupsOf(
      const HloInstruction& instr) const;
  absl::Status AddPermutePairs(const HloInstruction& instr, CollectiveThunkProto* proto) const;
  absl::StatusOr<CollectiveThunkProto> ProtoOf(const HloInstruction& instr) const;
  absl::Status EmitDone(const HloInstruction& done, Thunks* out);
  absl::Status EmitIdQuery(const HloInstruction& instr, Thunks* out);
  absl::Status EmitOnePerOperand(const HloInstruction& instr, const CollectiveThunkProto& proto,
                                 Thunks* collectives, std::vector<xla::BufferSlice>* touched);
  bool CanOverlap(const HloInstruction& start, const std::vector<xla::BufferSlice>& touched) const;
  bool Interferes(const HloInstruction& start, const HloInstruction& instr,
                  const std::vector<xla::BufferSlice>& touched) const;
  bool IsSliceOf(const HloInstruction& instr, const xla::BufferSlice& slice) const;

  const bool enabled_;
  // Async ids are unique in the artifact; open_async_ maps a -start whose
  // collectives still run on the communication stream to its id.
  int64_t next_async_id_ = 0;
  bool used_stream_ = false;
  absl::flat_hash_map<const HloInstruction*, int64_t> open_async_;
  const HloModule& module_;
  const HloSchedule& schedule_;
  const BufferAssignment& assignment_;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_COMPILER_COLLECTIVE_EMITTER_H_
