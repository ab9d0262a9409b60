// The collective ops as one table: for each CollectiveOpProto value, its
// name, what CollectiveThunk::FromProto accepts for it (operand, reduction,
// groups or pairs, a dimension, the result size) and the function that
// enqueues it on a participant's stream through its DeviceCommunicator.
//
// Every op enqueues the same way on every platform: blocks already in place
// (one outer block, clique ranks in group order) go to the communicator
// directly; otherwise they are re-packed by device-to-device copies through
// the communicator's scratch memory around the exchange.
//
// Thread-safety: the table is constant; the functions only enqueue.
#ifndef XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_COLLECTIVE_OPS_H_
#define XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_COLLECTIVE_OPS_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "xla/backends/gpu/runtime/collectives/collective_participants.h"
#include "xla/backends/gpu/runtime/collectives/communicator.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/stream_executor/device_memory.h"
#include "xla/stream_executor/stream.h"
#include "xla/types/primitive_type.h"

namespace xla::gpu {

// The operand viewed as [outer, dimension, inner] (elements).
struct CollectiveSplit {
  int64_t outer = 1;
  int64_t dim = 1;
  int64_t inner = 1;
};

// `dims` split at dimension `d` (all ones for no dimensions).
CollectiveSplit SplitAt(const std::vector<int64_t>& dims, int64_t d);

// One participant's exchange, as the enqueue functions see it.
struct CollectiveExchange {
  DeviceCommunicator& comm;
  stream_executor::Stream& stream;
  int64_t run_id;
  ReductionKind reduction;
  PrimitiveType element_type;
  stream_executor::DeviceMemoryBase src;
  stream_executor::DeviceMemoryBase dst;
  int64_t bytes;  // the operand's
  CollectiveSplit split;
  const CollectiveParticipants& who;

  int64_t width() const { return ByteWidth(element_type); }
  int64_t n() const { return who.group_size(); }
  int64_t elements() const { return bytes / (width() > 0 ? width() : 1); }
  // No re-packing: one outer block and ranks in group order.
  bool direct() const { return split.outer == 1 && who.ranks_in_group_order(); }
};

// How the result size follows from the operand's bytes and the group size.
enum class CollectiveResult { kDeviceId, kSameAsOperand, kTimesGroup, kOverGroup };

struct CollectiveOpRow {
  CollectiveOpProto op;
  const char* name;
  bool has_operand;    // false: a device id (no operand, u32 result)
  bool reduces;        // takes a reduction kind
  bool splits;         // `dimension` is split into group-size blocks
  bool gathers;        // `dimension` is where contributions are concatenated
  bool uses_groups;    // false: collective-permute (pairs instead)
  CollectiveResult result;
  // Enqueues the op (null for the device ids, written by the thunk).
  absl::Status (*enqueue)(const CollectiveExchange& x);

  // Whether the op takes the `dimension` field.
  bool has_dimension() const { return splits || gathers; }
  // The result's bytes for an operand of `operand_bytes` over groups of
  // `group_size` (4 for the device ids).
  int64_t ResultBytes(int64_t operand_bytes, int64_t group_size) const;
};

// The row of `op`, or null for a value outside the table (UNSPECIFIED
// included).
const CollectiveOpRow* FindCollectiveOp(int op);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_COLLECTIVE_OPS_H_
