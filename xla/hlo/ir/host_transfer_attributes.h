// What a host transfer (send/recv with is_host_transfer=true;
// docs/host_transfers.md) says about its host side beyond its attributes:
// the rendezvous name JAX and TensorFlow put in the frontend attribute
// `_xla_host_transfer_rendezvous`. Read by the compiler (into the artifact)
// and the evaluator (for its host-transfer hook), so both report the same
// name. Thread-safety: pure function.
#ifndef XLA_HLO_IR_HOST_TRANSFER_ATTRIBUTES_H_
#define XLA_HLO_IR_HOST_TRANSFER_ATTRIBUTES_H_

#include <string>

#include "xla/hlo/ir/hlo_instruction.h"

namespace xla {

// The value of frontend attribute _xla_host_transfer_rendezvous on
// `instr`, or "" when it has none (or no frontend attributes).
std::string HostTransferRendezvous(const HloInstruction& instr);

}  // namespace xla

#endif  // XLA_HLO_IR_HOST_TRANSFER_ATTRIBUTES_H_
