#include "xla/backends/gpu/compiler/send_recv_emitter.h"

#include <cstdint>
#include <optional>

#include "absl/strings/str_cat.h"
#include "xla/hlo/ir/host_transfer_attributes.h"
#include "xla/types/xla_data_convert.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {
namespace {

// The bytes of every array leaf of `shape`.
int64_t PayloadBytes(const Shape& shape) {
  if (shape.IsTuple()) {
    int64_t bytes = 0;
    for (const Shape& element : shape.tuple_shapes()) bytes += PayloadBytes(element);
    return bytes;
  }
  if (!shape.IsArray()) return 0;  // token
  const std::optional<int64_t> bytes = shape.ByteSize();
  return bytes.value_or(1);  // unknown size: treat as data
}

// The data a send sends or a recv receives; for a -done, that of its start.
const Shape* Payload(const HloInstruction& instr) {
  const HloInstruction* start = instr.opcode() == HloOpcode::kSendDone ||
                                        instr.opcode() == HloOpcode::kRecvDone
                                    ? instr.operand(0)
                                    : &instr;
  if (start->opcode() == HloOpcode::kSend && start->operand_count() >= 1) {
    return &start->operand(0)->shape();
  }
  if (start->opcode() == HloOpcode::kRecv && start->shape().IsTuple() &&
      !start->shape().tuple_shapes().empty()) {
    return &start->shape().tuple_shapes(0);
  }
  return nullptr;
}

}  // namespace

bool IsSendOrRecv(HloOpcode opcode) {
  return opcode == HloOpcode::kSend || opcode == HloOpcode::kRecv ||
         opcode == HloOpcode::kSendDone || opcode == HloOpcode::kRecvDone;
}

namespace {

// A device-to-device send/recv: OK when it has no bytes to move.
absl::Status CheckNothingToMove(const HloInstruction& instr) {
  const Shape* payload = Payload(instr);
  if (payload == nullptr) return Unimplemented(instr, "malformed send/recv chain");
  const int64_t bytes = PayloadBytes(*payload);
  if (bytes == 0) return absl::OkStatus();
  return Unimplemented(instr, absl::StrCat("a device-to-device send/recv of ", bytes,
                                           " bytes (", payload->ToString(false),
                                           ") is not lowered yet; express the exchange as a "
                                           "collective-permute"));
}

bool IsEmptyTuple(const Shape& shape) { return shape.IsTuple() && shape.tuple_shapes().empty(); }

// The HostTransferProto of a host send or recv with the data at
// `data`/`index` (an array or ()).
absl::StatusOr<HostTransferProto> HostTransfer(const HloInstruction& instr,
                                               const BufferAssignment& assignment,
                                               const HloInstruction* data, const ShapeIndex& index,
                                               const Shape& shape) {
  if (!IsEmptyTuple(shape) && !(shape.IsArray() && shape.is_static())) {
    return Unimplemented(instr, absl::StrCat("a host transfer of ", shape.ToString(false),
                                             " (only a static array or () is transferred)"));
  }
  HostTransferProto proto;
  proto.set_channel_id(instr.GetInt(AttrId::kChannelId, 0));
  proto.set_rendezvous(HostTransferRendezvous(instr));
  *proto.mutable_shape() = ShapeToProto(shape);
  if (shape.IsArray()) {
    ASSIGN_OR_RETURN(BufferSlice slice, assignment.GetSlice(data, index));
    *proto.mutable_slice() = SliceToProto(slice);
  }
  return proto;
}

bool HasUserBesidesDone(const HloInstruction& send) {
  for (const HloInstruction* user : send.users()) {
    if (user->opcode() != HloOpcode::kSendDone) return true;
  }
  return false;
}

absl::Status EmitHostTransfer(const HloInstruction& instr, const BufferAssignment& assignment,
                              Thunks* out) {
  const HloOpcode op = instr.opcode();
  if (op == HloOpcode::kSend) {
    const HloInstruction* data = instr.operand(0);
    ASSIGN_OR_RETURN(*AddThunk(instr, out)->mutable_host_send(),
                     HostTransfer(instr, assignment, data, {}, data->shape()));
    // The send's element {0} is its data again: fill it when something
    // other than its send-done reads the send.
    if (!data->shape().IsArray() || !HasUserBesidesDone(instr)) return absl::OkStatus();
    return AliasOrCopy(assignment, instr, data, {}, &instr, {0}, out);
  }
  if (op == HloOpcode::kRecv) {
    ASSIGN_OR_RETURN(*AddThunk(instr, out)->mutable_host_recv(),
                     HostTransfer(instr, assignment, &instr, {0}, instr.shape().tuple_shapes(0)));
    return absl::OkStatus();
  }
  if (op == HloOpcode::kRecvDone && instr.shape().tuple_shapes(0).IsArray()) {
    return AliasOrCopy(assignment, instr, instr.operand(0), {0}, &instr, {0}, out);
  }
  return absl::OkStatus();  // send-done, or the recv-done of ()
}

}  // namespace

absl::Status EmitSendOrRecv(const HloInstruction& instr, const BufferAssignment& assignment,
                            bool emit_host_transfers, Thunks* out) {
  if (!instr.GetBool(AttrId::kIsHostTransfer)) return CheckNothingToMove(instr);
  if (emit_host_transfers) return EmitHostTransfer(instr, assignment, out);
  const bool to_host = instr.opcode() == HloOpcode::kSend || instr.opcode() == HloOpcode::kSendDone;
  return Unimplemented(
      instr, absl::StrCat("a host transfer (is_host_transfer=true, ",
                          to_host ? "device to host" : "host to device", ", channel ",
                          instr.GetInt(AttrId::kChannelId, -1),
                          ") hands its data to a host callback the caller registers, a staged "
                          "rollout: compile with --emit_host_transfers (runtimes from 2026-12-03 "
                          "read it; docs/host_transfers.md)"));
}

}  // namespace xla::gpu
