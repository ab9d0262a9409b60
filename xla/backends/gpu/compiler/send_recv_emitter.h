// Thunk emission of send, recv, send-done and recv-done (issue 28).
//
// XLA uses them two ways: host transfers (`is_host_transfer=true`: the
// device hands a buffer to, or takes one from, a host callback the caller
// registers) and channels between programs or devices (device-to-device
// pairs in the frontend attribute `_xla_send_recv_source_target_pairs`).
// Host transfers lower to host send/recv thunks (stage 1 of feature
// "host_transfers", only with --emit_host_transfers; docs/host_transfers.md):
// a send hands its data operand's slice to the caller's send callback (and
// copies it into its own element {0} where that has another buffer), a
// recv fills its element {0} from the recv callback, recv-done copies that
// element to its own where the buffers differ, send-done needs nothing
// (the stream orders what follows). Tokens and the u32[] context element
// carry no data and get no thunk.
//
// Device-to-device pairs are not lowered (a collective-permute would do).
// What compiles is the case with nothing to move: a device-to-device send
// or recv whose payload has no bytes (an empty tuple, zero-element arrays),
// which only orders tokens; it needs no thunk.
//
// Thread-safety: pure functions of the instruction (and the assignment).
#ifndef XLA_BACKENDS_GPU_COMPILER_SEND_RECV_EMITTER_H_
#define XLA_BACKENDS_GPU_COMPILER_SEND_RECV_EMITTER_H_

#include "absl/status/status.h"
#include "xla/backends/gpu/compiler/thunk_emission_util.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/hlo/ir/hlo_opcode.h"
#include "xla/service/buffer_assignment/buffer_assignment.h"

namespace xla::gpu {

// send, recv, send-done or recv-done.
bool IsSendOrRecv(HloOpcode opcode);

// Appends the thunks of `instr` (IsSendOrRecv) to `out`, as described
// above. Unimplemented naming the instruction and why for: a host transfer
// without `emit_host_transfers` (naming --emit_host_transfers), a host
// transfer whose data is neither an array nor () , and a device-to-device
// payload with bytes. The assignment's errors for the slices.
absl::Status EmitSendOrRecv(const HloInstruction& instr, const BufferAssignment& assignment,
                            bool emit_host_transfers, Thunks* out);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_COMPILER_SEND_RECV_EMITTER_H_
