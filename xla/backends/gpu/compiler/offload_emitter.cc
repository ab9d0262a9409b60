#include "xla/backends/gpu/compiler/offload_emitter.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

// Ops whose thunks are at most copies of an operand leaf into their own
// (thunk emission's pass-throughs).
bool IsForwarding(HloOpcode op) {
  return op == HloOpcode::kTuple || op == HloOpcode::kGetTupleElement ||
         op == HloOpcode::kBitcast || op == HloOpcode::kOptimizationBarrier ||
         op == HloOpcode::kAddDependency;
}

}  // namespace

OffloadEmitter::OffloadEmitter(const HloSchedule& schedule, const BufferAssignment& assignment,
                               std::function<int64_t()> new_async_id)
    : schedule_(schedule), assignment_(assignment), new_async_id_(std::move(new_async_id)) {
  for (const ScanStack& stack : assignment.scan_stacks()) {
    scan_[stack.update] = ScanRole{&stack, ScanPart::kUpdate};
    if (stack.init_dead) scan_[stack.init] = ScanRole{&stack, ScanPart::kNothing};
    for (size_t r = 0; r < stack.reads.size(); ++r) {
      scan_[stack.reads[r].slice] = ScanRole{&stack, ScanPart::kNothing};
      scan_[stack.reads[r].move_to_device] =
          ScanRole{&stack, ScanPart::kRead, static_cast<int64_t>(r)};
    }
  }
}

bool OffloadEmitter::Handles(const HloInstruction& instr) {
  return IsMoveToHost(instr) || IsMoveToDevice(instr);
}

absl::Status OffloadEmitter::EmitScanStack(const HloInstruction& instr, Thunks* out) {
  const ScanRole& role = scan_.at(&instr);
  const ScanStack& stack = *role.stack;
  if (role.part == ScanPart::kNothing) return absl::OkStatus();
  ASSIGN_OR_RETURN(xla::BufferSlice whole, assignment_.GetSlice(stack.update, {}));
  xla::BufferSlice row = whole;
  row.size = stack.row_bytes;
  if (role.part == ScanPart::kUpdate) {
    ASSIGN_OR_RETURN(xla::BufferSlice slab, assignment_.GetSlice(stack.move_to_host, {}));
    EmitDynamicCopy(instr, slab, row, 0, 0, stack.base * stack.row_bytes,
                    stack.stride * stack.row_bytes, slab, whole, out);
    offloaded_bytes_ += stack.row_bytes;
    return absl::OkStatus();
  }
  const ScanStackRead& read = stack.reads[role.read];
  ASSIGN_OR_RETURN(xla::BufferSlice result, assignment_.GetSlice(&instr, {}));
  EmitDynamicCopy(instr, row, result, read.base * stack.row_bytes, read.stride * stack.row_bytes,
                  0, 0, whole, result, out);
  return absl::OkStatus();
}

void OffloadEmitter::EmitDynamicCopy(const HloInstruction& instr, const xla::BufferSlice& source,
                                     const xla::BufferSlice& destination, int64_t source_base,
                                     int64_t source_stride, int64_t destination_base,
                                     int64_t destination_stride,
                                     const xla::BufferSlice& joined_source,
                                     const xla::BufferSlice& joined_destination, Thunks* out) {
  const int64_t async_id = new_async_id_();
  AsyncStartThunkProto* start = AddThunk(instr, out)->mutable_async_start();
  start->set_async_id(async_id);
  start->set_stream_id(kOffloadStream);
  ThunkProto* thunk = AddThunk(instr, start->mutable_thunks()->mutable_thunks());
  thunk->set_execution_stream_id(kOffloadStream);
  CopyThunkProto* copy = thunk->mutable_copy();
  *copy->mutable_source() = SliceToProto(source);
  *copy->mutable_destination() = SliceToProto(destination);
  // The instruction is in the body of the innermost while around it.
  CopyDynamicOffsetProto* offset = copy->mutable_dynamic_offset();
  offset->set_loop_depth(0);
  offset->set_source_base(source_base);
  offset->set_source_stride(source_stride);
  offset->set_destination_base(destination_base);
  offset->set_destination_stride(destination_stride);
  open_.push_back(OpenCopy{&instr, instr.parent(), async_id, joined_source, joined_destination});
  used_ = true;
  ++copies_;
}

absl::Status OffloadEmitter::Emit(const HloInstruction& instr, Thunks* out) {
  if (HandlesScanStack(instr)) return EmitScanStack(instr, out);
  if (instr.operand_count() != 1 || !instr.shape().IsArray() ||
      !instr.operand(0)->shape().IsArray()) {
    return Unimplemented(instr, "MoveToHost / MoveToDevice must take one array operand and "
                                "return an array");
  }
  ASSIGN_OR_RETURN(xla::BufferSlice source, assignment_.GetSlice(instr.operand(0), {}));
  ASSIGN_OR_RETURN(xla::BufferSlice destination, assignment_.GetSlice(&instr, {}));
  if (source.size != destination.size) {
    return Unimplemented(instr, absl::StrCat("the operand has ", source.size,
                                             " bytes but the result ", destination.size));
  }
  if (source == destination || source.size == 0) return absl::OkStatus();
  const int64_t async_id = new_async_id_();
  AsyncStartThunkProto* start = AddThunk(instr, out)->mutable_async_start();
  start->set_async_id(async_id);
  start->set_stream_id(kOffloadStream);
  ThunkProto* copy = AddThunk(instr, start->mutable_thunks()->mutable_thunks());
  copy->set_execution_stream_id(kOffloadStream);
  *copy->mutable_copy()->mutable_source() = SliceToProto(source);
  *copy->mutable_copy()->mutable_destination() = SliceToProto(destination);
  open_.push_back(OpenCopy{&instr, instr.parent(), async_id, source, destination});
  used_ = true;
  ++copies_;
  if (IsMoveToHost(instr)) offloaded_bytes_ += destination.size;
  return absl::OkStatus();
}

void OffloadEmitter::JoinBefore(const HloInstruction& instr, Thunks* out) {
  std::vector<OpenCopy> still_open;
  for (OpenCopy& copy : open_) {
    if (copy.computation == instr.parent() && Interferes(instr, copy)) {
      AddThunk(*copy.instr, out)->mutable_async_done()->set_async_id(copy.async_id);
    } else {
      still_open.push_back(std::move(copy));
    }
  }
  open_ = std::move(still_open);
}

void OffloadEmitter::JoinAll(const HloComputation& computation, Thunks* out) {
  std::vector<OpenCopy> still_open;
  for (OpenCopy& copy : open_) {
    if (copy.computation == &computation) {
      AddThunk(*copy.instr, out)->mutable_async_done()->set_async_id(copy.async_id);
    } else {
      still_open.push_back(std::move(copy));
    }
  }
  open_ = std::move(still_open);
}

bool OffloadEmitter::Interferes(const HloInstruction& instr, const OpenCopy& copy) const {
  std::vector<const HloInstruction*> pending = {&instr};
  for (size_t k = 0; k < pending.size(); ++k) {
    if (InterferesHere(*pending[k], copy)) return true;
    for (const HloComputation* callee : pending[k]->called_computations()) {
      if (!schedule_.has_sequence(callee)) continue;  // fused: the fusion's slices count
      for (const HloInstruction* inner : schedule_.sequence(callee)) pending.push_back(inner);
    }
  }
  return false;
}

bool OffloadEmitter::InterferesHere(const HloInstruction& instr, const OpenCopy& copy) const {
  const HloOpcode op = instr.opcode();
  if (op == HloOpcode::kParameter || op == HloOpcode::kConstant || op == HloOpcode::kAfterAll) {
    return false;
  }
  // Another offload copy runs after this one on the same stream (a scan
  // stack's dynamic-slice is no kernel: its MoveToDevice copies the row).
  if (Handles(instr) || HandlesScanStack(instr)) return false;
  std::vector<xla::BufferSlice> reads;
  for (const HloInstruction* operand : instr.operands()) {
    for (const ShapeIndex& leaf : ArrayLeaves(operand->shape())) {
      absl::StatusOr<xla::BufferSlice> read = assignment_.GetSlice(operand, leaf);
      if (!read.ok()) return true;
      reads.push_back(*read);
    }
  }
  const bool forwards = IsForwarding(op);
  bool writes_any = false;
  for (const ShapeIndex& leaf : ArrayLeaves(instr.shape())) {
    absl::StatusOr<xla::BufferSlice> written = assignment_.GetSlice(&instr, leaf);
    if (!written.ok()) return true;
    if (forwards) {
      // A pass-through onto an operand's own bytes writes nothing.
      bool aliased = false;
      for (const xla::BufferSlice& r : reads) aliased |= r == *written;
      if (aliased) continue;
    }
    writes_any = true;
    if (written->Overlaps(copy.source) || written->Overlaps(copy.destination)) return true;
  }
  if (forwards && !writes_any) return false;
  for (const xla::BufferSlice& r : reads) {
    if (r.Overlaps(copy.destination)) return true;
  }
  return false;
}

}  // namespace xla::gpu
