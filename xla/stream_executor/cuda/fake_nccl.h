// FakeNccl: a test double of the NCCL table (NcclApi) on the fake CUDA
// driver (fake_cuda_driver.h), where device memory is host memory. Test-only.
//
//  * Communicators: ncclCommInitRank blocks until every rank of the unique
//    id has called it (or Options::timeout passes: ncclSystemError for every
//    waiting rank). The ranks of one id form a clique.
//  * Collectives (all-reduce, all-gather, reduce-scatter, broadcast) are
//    enqueued on the caller's stream with the driver's cuLaunchHostFunc, so
//    they run in stream order on the fake stream's thread, asynchronously to
//    the caller. Operation number k of a communicator meets operation k of
//    every other rank: each rank posts its buffers, waits for all ranks,
//    computes its result into scratch memory, waits until every rank has
//    finished reading, then writes its receive buffer (so in-place use and
//    overlapping buffers are safe). Reductions fold in rank order (rank 0's
//    value, then rank 1, 2, ...), so results equal a sequential fold bit for
//    bit. Integer sums and products wrap.
//  * Point-to-point: ncclSend / ncclRecv inside ncclGroupStart/End (nested,
//    per calling thread) are recorded; the outermost ncclGroupEnd enqueues
//    one host function per stream that first performs all that stream's
//    sends (copies into a FIFO per (clique, from, to)), then its receives
//    (waits for the FIFO entry, checks the byte count, copies out). A send
//    or receive outside a group is a group of its own. Sends never wait for
//    the receiver (the FIFO buffers them).
//  * Collectives called inside a group are enqueued at once (they are
//    asynchronous anyway); only send and receive wait for ncclGroupEnd.
//    ncclCommInitRank blocks even inside a group.
//  * ncclCommAbort frees the communicator (like ncclCommDestroy) and wakes
//    every operation of its clique still waiting for peers: they fail as
//    device-side errors (below) instead of waiting out the timeout.
//  * Supported: ncclInt8, ncclUint8, ncclInt32, ncclUint32, ncclInt64,
//    ncclUint64, ncclFloat16, ncclBfloat16, ncclFloat32, ncclFloat64 with
//    ncclSum, ncclProd, ncclMin, ncclMax (16-bit floats computed in f32 and
//    rounded after every step, as NCCL's kernels do); anything else (the
//    f8 types, ncclAvg) is ncclInvalidArgument at call time.
//  * Errors on the device side (ranks disagreeing on an operation's kind,
//    count, type, op or root; a receive whose byte count differs from the
//    send; a peer that does not arrive within Options::timeout) cannot be
//    returned by a host function. They are written to stderr, kept in
//    errors(), and make the communicator's error sticky: every later call
//    on it returns that error (ncclInvalidUsage for disagreements,
//    ncclSystemError for timeouts) and its queued work is skipped (its
//    peers then time out). The failed operation leaves its receive buffer
//    unwritten.
//
// Only one FakeNccl may exist at a time (the table's plain function
// pointers reach it through a global); constructing a second one aborts.
// Streams that ran FakeNccl work must be synchronized before it is
// destroyed; communicators still alive then are freed with it.
//
// Thread-safety: the table's entry points and all methods may be called
// from any thread.
#ifndef XLA_STREAM_EXECUTOR_CUDA_FAKE_NCCL_H_
#define XLA_STREAM_EXECUTOR_CUDA_FAKE_NCCL_H_

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "xla/stream_executor/cuda/cuda_driver_api.h"
#include "xla/stream_executor/cuda/nccl_api.h"

namespace stream_executor::cuda {

class FakeNccl {
 public:
  struct Options {
    // How long a blocked operation (ncclCommInitRank, a collective waiting
    // for its peers, a receive waiting for its send) waits before it gives
    // up with ncclSystemError.
    std::chrono::milliseconds timeout = std::chrono::seconds(20);
    // What ncclGetVersion reports.
    int version = 22304;
  };

  // A fake that enqueues its device work with `driver.cuLaunchHostFunc`;
  // `driver` is the fake driver's table and must outlive this object.
  // Aborts if another FakeNccl exists.
  explicit FakeNccl(const CudaDriverApi& driver)
      : FakeNccl(driver, Options()) {}
  FakeNccl(const CudaDriverApi& driver, Options options);
  ~FakeNccl();
  FakeNccl(const FakeNccl&) = delete;
  FakeNccl& operator=(const FakeNccl&) = delete;

  // The table; valid while this object lives.
  const NcclApi& api() const { return api_; }

  // How often entry point `entry_point` (e.g. "ncclAllReduce") was called.
  int calls(const std::string& entry_point) const;
  // Communicators created and not yet destroyed.
  int live_comms() const;
  // The device-side errors so far (also written to stderr), in the order
  // they happened.
  std::vector<std::string> errors() const;

  struct State;  // the implementation, shared with the C entry points

 private:
  std::unique_ptr<State> state_;
  NcclApi api_;
};

}  // namespace stream_executor::cuda

#endif  // XLA_STREAM_EXECUTOR_CUDA_FAKE_NCCL_H_
