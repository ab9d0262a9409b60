// Buffer assignment: every array leaf of every instruction that owns buffers
// gets a slice (allocation, offset, size), so later stages never need HLO to
// find a buffer.
//
// Allocations (the artifact's BufferAllocationProto, one to one):
//   * one per entry parameter leaf (is_parameter);
//   * one per constant leaf (is_constant, constant_index in order of
//     appearance);
//   * one per entry result leaf (is_output), unless input_output_alias or a
//     buffer donor lets the result live in a parameter's allocation, which
//     is then marked is_output as well;
//   * at most one temp allocation (is_temp) holding every other buffer at an
//     offset, packed by a best-fit heap simulation over the schedule so that
//     buffers whose lifetimes do not overlap reuse the same bytes;
//   * at most one more temp allocation in host memory (memory_space
//     kHostMemorySpace), packed the same way, holding the offloaded
//     buffers: those written only by custom-call MoveToHost (and forwarded
//     by bitcasts, tuples and get-tuple-elements), never a parameter, a
//     constant or a result; with options.offload_scan_stacks, also the
//     scan stacks of scan_offload.h (whose MoveToHost then shares its
//     operand's device buffer, and whose reads share their MoveToDevice's
//     buffer). A host buffer is never merged in place with a device
//     buffer, so the two spaces never share bytes.
// Buffers are the alias classes of alias_analysis.h, joined further where an
// instruction writes in place over an operand that dies at it
// (in_place.h). A value used inside a while body or condition lives across
// the whole loop. Offsets and sizes are multiples of the alignment.
//
// The result is immutable and self-contained apart from the instruction
// pointers used as keys; const methods are thread-safe.
#ifndef XLA_SERVICE_BUFFER_ASSIGNMENT_BUFFER_ASSIGNMENT_H_
#define XLA_SERVICE_BUFFER_ASSIGNMENT_BUFFER_ASSIGNMENT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/service/buffer_assignment/alias_analysis.h"
#include "xla/service/buffer_assignment/scan_offload.h"
#include "xla/service/schedule/hlo_schedule.h"

namespace xla {

struct BufferAllocation {
  int64_t index = 0;
  int64_t size = 0;
  bool is_parameter = false;
  int64_t parameter_number = 0;
  ShapeIndex parameter_shape_index;
  bool is_constant = false;
  int64_t constant_index = 0;
  // The constant instruction whose literal (at constant_shape_index) fills
  // this allocation; nullptr unless is_constant.
  const HloInstruction* constant = nullptr;
  ShapeIndex constant_shape_index;
  bool is_output = false;
  bool is_temp = false;
  // kDeviceMemorySpace, or kHostMemorySpace for the host temp allocation.
  int64_t memory_space = 0;
};

// BufferAllocation::memory_space values, XLA's numbering (S(5) in layouts).
inline constexpr int64_t kDeviceMemorySpace = 0;
inline constexpr int64_t kHostMemorySpace = 5;

// Whether `instr` is custom-call "MoveToHost" / "MoveToDevice", JAX's
// activation-offloading markers.
bool IsMoveToHost(const HloInstruction& instr);
bool IsMoveToDevice(const HloInstruction& instr);

struct BufferSlice {
  int64_t allocation = 0;
  int64_t offset = 0;
  int64_t size = 0;
  bool operator==(const BufferSlice& o) const {
    return allocation == o.allocation && offset == o.offset && size == o.size;
  }
  bool operator!=(const BufferSlice& o) const { return !(*this == o); }
  // Whether the two slices share a byte (empty slices share none).
  bool Overlaps(const BufferSlice& o) const {
    return allocation == o.allocation && size > 0 && o.size > 0 && offset < o.offset + o.size &&
           o.offset < offset + size;
  }
};

struct BufferAssignmentOptions {
  // Offsets and sizes within the temp allocation are multiples of this.
  int64_t alignment = 256;
  // Let dynamic-update-slice, elementwise ops and loop fusions write over
  // an operand that dies at them.
  bool allow_in_place = true;
  // Put scan stacks (scan_offload.h) in the host temp allocation (stage 1
  // of feature "copy_thunk.dynamic_offset": the thunk emitter then copies
  // their rows with dynamic offsets; --offload_scan_stacks, off).
  bool offload_scan_stacks = false;
};

class BufferAssignment {
 public:
  // The slice of leaf `index` of `instr`. NotFound when the instruction is
  // not in a computation that owns buffers (fused computations, reducers)
  // or `index` is not an array leaf of its shape.
  absl::StatusOr<BufferSlice> GetSlice(const HloInstruction* instr, const ShapeIndex& index) const;

  const std::vector<BufferAllocation>& allocations() const { return allocations_; }
  // The slices of the entry result's array leaves, in leaf order.
  const std::vector<std::pair<ShapeIndex, BufferSlice>>& output_slices() const {
    return output_slices_;
  }
  // Size of the temp allocation (0 when there is none).
  int64_t total_temp_bytes() const { return total_temp_bytes_; }
  // Size of the host-memory temp allocation (0 when nothing is offloaded).
  int64_t host_temp_bytes() const { return host_temp_bytes_; }
  // Sum of the aligned sizes of all temp buffers: the temp size without reuse.
  int64_t naive_temp_bytes() const { return naive_temp_bytes_; }
  // Largest sum of aligned temp buffer sizes live at one time (a lower bound
  // for total_temp_bytes).
  int64_t peak_live_temp_bytes() const { return peak_live_temp_bytes_; }
  // Instructions that write in place over an operand's buffer.
  int64_t in_place_count() const { return in_place_count_; }
  // The scan stacks placed in host memory (options.offload_scan_stacks),
  // in FindScanStacks order; the thunk emitter copies their rows.
  const std::vector<ScanStack>& scan_stacks() const { return scan_stacks_; }

  // Text for buffer_assignment.txt: the allocations, then every
  // (instruction, index) -> slice in schedule order per computation, then
  // the statistics. Deterministic.
  std::string ToString() const;

 private:
  friend class BufferAssigner;
  friend class BufferAssignmentTestPeer;

  std::vector<BufferAllocation> allocations_;
  // Per instruction: (index, slice) for each array leaf, leaf order.
  absl::flat_hash_map<const HloInstruction*, std::vector<std::pair<ShapeIndex, BufferSlice>>>
      slices_;
  // (computation, sequence) in schedule order, for ToString.
  std::vector<std::pair<const HloComputation*, std::vector<const HloInstruction*>>> order_;
  std::vector<std::pair<ShapeIndex, BufferSlice>> output_slices_;
  int64_t total_temp_bytes_ = 0;
  int64_t host_temp_bytes_ = 0;
  int64_t naive_temp_bytes_ = 0;
  int64_t peak_live_temp_bytes_ = 0;
  int64_t in_place_count_ = 0;
  std::vector<ScanStack> scan_stacks_;
};

// Assigns buffers for `module` under `schedule`. Run
// AddCopiesForWhileAndConditional (copy_insertion.h) before scheduling.
// Errors: the schedule does not verify; alias analysis fails; a buffer would
// have to hold two parameters or constants, write over a parameter that is
// not donated or over a constant, or return a value twice or a parameter
// that may not alias the output (each names the instruction and says to run
// AddCopiesForWhileAndConditional); a must-alias input_output_alias that
// cannot be honoured; a shape whose size overflows.
absl::StatusOr<BufferAssignment> AssignBuffers(const HloModule& module,
                                               const HloSchedule& schedule,
                                               const BufferAssignmentOptions& options);

}  // namespace xla

#endif  // XLA_SERVICE_BUFFER_ASSIGNMENT_BUFFER_ASSIGNMENT_H_
