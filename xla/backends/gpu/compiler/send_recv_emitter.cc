#include "xla/backends/gpu/compiler/send_recv_emitter.h"

#include <cstdint>
#include <optional>

#include "absl/strings/str_cat.h"
#include "xla/backends/gpu/compiler/thunk_emission_util.h"

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

absl::Status CheckSendOrRecvNeedsNoThunk(const HloInstruction& instr) {
  if (instr.GetBool(AttrId::kIsHostTransfer)) {
    const bool to_host =
        instr.opcode() == HloOpcode::kSend || instr.opcode() == HloOpcode::kSendDone;
    return Unimplemented(
        instr, absl::StrCat("a host transfer (is_host_transfer=true, ",
                            to_host ? "device to host" : "host to device", ", channel ",
                            instr.GetInt(AttrId::kChannelId, -1),
                            ") hands its data to a host callback the caller registers, and this "
                            "runtime has no host-transfer callbacks yet (docs/host_transfers.md); "
                            "compile the program without host send/recv (e.g. jax.debug "
                            "callbacks and host_callback outfeeds removed)"));
  }
  const Shape* payload = Payload(instr);
  if (payload == nullptr) return Unimplemented(instr, "malformed send/recv chain");
  const int64_t bytes = PayloadBytes(*payload);
  if (bytes == 0) return absl::OkStatus();
  return Unimplemented(instr, absl::StrCat("a device-to-device send/recv of ", bytes,
                                           " bytes (", payload->ToString(false),
                                           ") is not lowered yet; express the exchange as a "
                                           "collective-permute"));
}

}  // namespace xla::gpu
