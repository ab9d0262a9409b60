// Communicator: one participant's handle on a group of devices (a clique)
// that run collectives together, and the identity of such a group.
//
// A clique is identified by its CliqueKey: the sorted global device ids of
// its participants. Within a clique each participant has a rank in
// [0, size); ranks order contributions (all-gather concatenates in rank
// order, reductions combine in rank order). Every participant must call the
// same operations in the same order with matching sizes; each call is one
// collective operation, identified by the run id and the call's sequence
// number within that run.
//
// Two interfaces. DeviceCommunicator is the one collective thunks use, on
// every platform: operations on the participant's device memory, enqueued
// on a stream. NcclCommunicator (nccl_communicator.h) implements it with
// NCCL on CUDA devices; the host's communicators implement the blocking
// Communicator below (InProcessCommunicator, in_process_communicator.h: N
// host devices run by N threads of one process; MpiCommunicator,
// mpi_communicator.h: one process per device under mpirun), and their
// cliques hand them out as DeviceCommunicators through
// HostDeviceCommunicator (host_device_communicator.h), which runs each
// operation as a host callback on the stream. Which cliques serve an
// execution is decided once, by whoever builds its CollectiveContext.
//
// Thread-safety: one Communicator belongs to one participant; its
// operations may be called from one thread at a time per run id.
// Different participants' communicators are used concurrently.
#ifndef XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_COMMUNICATOR_H_
#define XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_COMMUNICATOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/stream_executor/device_memory.h"
#include "xla/stream_executor/stream.h"
#include "xla/types/primitive_type.h"

namespace xla::gpu {

// How all-reduce and reduce-scatter combine contributions.
enum class ReductionKind { kSum, kProd, kMin, kMax, kAnd, kOr };

// "sum", "prod", ... .
absl::string_view ReductionKindName(ReductionKind kind);
// From the proto enum; InvalidArgument (naming the value) for UNSPECIFIED or
// an unknown value.
absl::StatusOr<ReductionKind> ReductionKindFromProto(int value);
ReductionKindProto ReductionKindToProto(ReductionKind kind);

// Whether `kind` is defined for `type` (pred: and/or only; integers: every
// kind, and/or bitwise, sum/prod wrap around; f16/bf16/f32/f64: sum, prod,
// min, max). Types the runtime reduces: pred, s8-s64, u8-u64, f16, bf16,
// f32, f64. f8 and narrower floats are never reduced (convert them to
// f16/bf16/f32 first); they still travel through the non-reducing
// collectives, which move bytes.
//
// Floating-point semantics, on every host communicator, matching the
// reference evaluator's `add`/`multiply`/`maximum`/`minimum` bit for bit:
// each binary step rounds to the element type (f16/bf16: computed in f32,
// the f32 result rounded to nearest even, as XLA does), so the result
// depends on the order (rank order, a left fold: ((r0 op r1) op r2) ...).
// max/min return the encoding of the operand they pick: a NaN operand wins
// (the left one when both are NaN), and +0 beats -0 in max, -0 beats +0 in
// min. Pure; thread-safe.
bool IsSupportedReduction(ReductionKind kind, PrimitiveType type);

// The message for a reduction IsSupportedReduction refuses: "sum is not
// supported for f8e4m3fn (collectives reduce ...; convert ...)". Pure.
std::string UnsupportedReductionMessage(ReductionKind kind, PrimitiveType type);

// A clique's identity: its participants' global device ids, sorted and
// unique.
class CliqueKey {
 public:
  // InvalidArgument for an empty list, a negative id or a duplicate.
  static absl::StatusOr<CliqueKey> Create(std::vector<int64_t> device_ids);

  const std::vector<int64_t>& devices() const { return devices_; }
  int64_t size() const { return static_cast<int64_t>(devices_.size()); }
  // The rank of `device_id` (its position), or nullopt when not a member.
  std::optional<int64_t> RankOf(int64_t device_id) const;
  // "devices [0,1,2]".
  std::string ToString() const;

  bool operator<(const CliqueKey& o) const { return devices_ < o.devices_; }
  bool operator==(const CliqueKey& o) const { return devices_ == o.devices_; }

 private:
  explicit CliqueKey(std::vector<int64_t> d) : devices_(std::move(d)) {}
  std::vector<int64_t> devices_;
};

class Communicator {
 public:
  virtual ~Communicator() = default;

  // This participant's rank and the clique's size.
  virtual int64_t rank() const = 0;
  virtual int64_t size() const = 0;

  // recv[i] = reduce over ranks 0..size-1 (in that order) of send[i], for
  // `count` elements of `type`. send and recv may be the same buffer.
  // InvalidArgument for an unsupported kind/type; the rendezvous' error
  // (naming missing ranks) when a participant never arrives; InvalidArgument
  // when participants disagree on the size.
  virtual absl::Status AllReduce(int64_t run_id, ReductionKind kind, PrimitiveType type,
                                 const void* send, void* recv, int64_t count) = 0;
  // recv = the ranks' `bytes` each, concatenated in rank order.
  virtual absl::Status AllGather(int64_t run_id, const void* send, void* recv, int64_t bytes) = 0;
  // send holds size() blocks of `count` elements; recv = the reduction of
  // block rank() over all ranks (in rank order).
  virtual absl::Status ReduceScatter(int64_t run_id, ReductionKind kind, PrimitiveType type,
                                     const void* send, void* recv, int64_t count) = 0;
  // send holds size() blocks of `bytes`; block j goes to rank j, where it
  // lands as block rank().
  virtual absl::Status AllToAll(int64_t run_id, const void* send, void* recv, int64_t bytes) = 0;
  // Every rank contributes `send` (`bytes`); recv = the contribution of
  // `source_rank`, or zeros when nullopt.
  virtual absl::Status CollectivePermute(int64_t run_id, const void* send, void* recv,
                                         int64_t bytes, std::optional<int64_t> source_rank) = 0;
  // recv = the `bytes` of `root_rank`'s send, on every rank (the root's
  // too; send and recv may be the same buffer). Every rank passes the same
  // root_rank; only the root's send is read. InvalidArgument for a
  // root_rank outside [0, size()); the rendezvous' errors as above.
  virtual absl::Status Broadcast(int64_t run_id, const void* send, void* recv, int64_t bytes,
                                 int64_t root_rank) = 0;
};

// A participant's handle on a clique whose collectives run in stream order
// (NCCL on CUDA: nccl_communicator.h; host callbacks over a Communicator on
// the host: host_device_communicator.h): buffers are device memory of the
// participant's device, and every operation only enqueues work on `stream`
// (a stream of that device), ordered after what the stream already holds;
// errors found while enqueueing are returned, errors of the device work
// surface at the stream's next synchronization. Ranks and rank order are as
// in Communicator; every member must enqueue the same operations in the
// same order with matching sizes. `run_id` is the execution's
// (CollectiveContext::run_id): host communicators match operations by it,
// NCCL by stream order alone (it ignores the id).
//
// Thread-safety: as Communicator.
class DeviceCommunicator {
 public:
  virtual ~DeviceCommunicator() = default;

  virtual int64_t rank() const = 0;
  virtual int64_t size() const = 0;

  // As Communicator::AllReduce. Unimplemented naming the kind and type
  // when the library cannot reduce them.
  virtual absl::Status AllReduce(int64_t run_id, ReductionKind kind, PrimitiveType type,
                                 stream_executor::DeviceMemoryBase send,
                                 stream_executor::DeviceMemoryBase recv, int64_t count,
                                 stream_executor::Stream& stream) = 0;
  // As Communicator::AllGather.
  virtual absl::Status AllGather(int64_t run_id, stream_executor::DeviceMemoryBase send,
                                 stream_executor::DeviceMemoryBase recv, int64_t bytes,
                                 stream_executor::Stream& stream) = 0;
  // As Communicator::ReduceScatter.
  virtual absl::Status ReduceScatter(int64_t run_id, ReductionKind kind, PrimitiveType type,
                                     stream_executor::DeviceMemoryBase send,
                                     stream_executor::DeviceMemoryBase recv, int64_t count,
                                     stream_executor::Stream& stream) = 0;
  // As Communicator::AllToAll.
  virtual absl::Status AllToAll(int64_t run_id, stream_executor::DeviceMemoryBase send,
                                stream_executor::DeviceMemoryBase recv, int64_t bytes,
                                stream_executor::Stream& stream) = 0;
  // Sends `send` to every rank in `target_ranks` and receives `recv` from
  // `source_rank` (recv is zeroed when nullopt). Unlike the host form, each
  // rank names its targets: point-to-point libraries need both ends.
  virtual absl::Status CollectivePermute(int64_t run_id, stream_executor::DeviceMemoryBase send,
                                         stream_executor::DeviceMemoryBase recv, int64_t bytes,
                                         std::optional<int64_t> source_rank,
                                         absl::Span<const int64_t> target_ranks,
                                         stream_executor::Stream& stream) = 0;
  // As Communicator::Broadcast.
  virtual absl::Status Broadcast(int64_t run_id, stream_executor::DeviceMemoryBase send,
                                 stream_executor::DeviceMemoryBase recv, int64_t bytes,
                                 int64_t root_rank, stream_executor::Stream& stream) = 0;

  // Device memory of at least `bytes` on this participant's device for
  // operations that re-pack blocks around an exchange on `stream`. The same
  // buffer is returned until a larger one is asked for (the host's keeps
  // one per stream); a replaced buffer stays allocated until the
  // communicator is destroyed (work already enqueued may still use it). The
  // device's allocation error otherwise.
  virtual absl::StatusOr<stream_executor::DeviceMemoryBase> Scratch(
      int64_t bytes, stream_executor::Stream& stream) = 0;
};

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_COMMUNICATOR_H_
