// Thunk emission of send, recv, send-done and recv-done (issue 28).
//
// XLA uses them two ways: host transfers (`is_host_transfer=true`: the
// device hands a buffer to, or takes one from, a host callback the caller
// registers) and channels between programs or devices (device-to-device
// pairs in the frontend attribute `_xla_send_recv_source_target_pairs`).
// Neither moves data here yet: the runtime has no host-transfer callbacks
// and the compiler does not lower device-to-device pairs (a
// collective-permute would do). What compiles is the case with nothing to
// move: a device-to-device send or recv whose payload has no bytes (an
// empty tuple, zero-element arrays), which only orders tokens; it needs no
// thunk (tokens have no bytes, and the u32[] context element of a send or
// recv is never read).
//
// Thread-safety: pure functions of the instruction.
#ifndef XLA_BACKENDS_GPU_COMPILER_SEND_RECV_EMITTER_H_
#define XLA_BACKENDS_GPU_COMPILER_SEND_RECV_EMITTER_H_

#include "absl/status/status.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/hlo/ir/hlo_opcode.h"

namespace xla::gpu {

// send, recv, send-done or recv-done.
bool IsSendOrRecv(HloOpcode opcode);

// OK when `instr` (IsSendOrRecv) needs no thunk (see above); else
// Unimplemented naming the instruction and why: a host transfer (no host
// callbacks in the runtime), or a device-to-device payload with bytes (not
// lowered).
absl::Status CheckSendOrRecvNeedsNoThunk(const HloInstruction& instr);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_COMPILER_SEND_RECV_EMITTER_H_
