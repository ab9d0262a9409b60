// RunHostKernel: executes one host kernel launch (see host_kernel_abi.h).
//
// Splits [0, total_blocks) with PartitionBlocks for the pool's threads plus
// the calling thread, hands ranges out dynamically (a thread that finishes
// early takes the next range), and returns when every range has run. The
// calling thread runs ranges too, so a launch always makes progress even when
// the pool is busy with other launches. A launch of fewer than
// kMinSharedBlocks blocks runs on the calling thread alone: the compiler's
// blocks are about 32 KiB of output each (HostEmitOptions), and for a few of
// them waking a pool thread and waiting for it cost more than the half it
// takes (docs/perf.md, issue 27: the futex wake and wait were a third of a
// KV-cache decode loop's time, for 128 KiB transposes).
//
// Thread-safety: may be called from several threads at once on one pool.
#ifndef XLA_STREAM_EXECUTOR_HOST_HOST_LAUNCH_H_
#define XLA_STREAM_EXECUTOR_HOST_HOST_LAUNCH_H_

#include <cstdint>

#include "absl/types/span.h"
#include "xla/stream_executor/host/host_kernel_abi.h"
#include "xla/stream_executor/host/host_thread_pool.h"

namespace stream_executor::host {

// Launches of fewer blocks than this run on the calling thread alone.
inline constexpr int64_t kMinSharedBlocks = 5;

// `buffers` are passed to every call; `total_blocks` <= 0 runs nothing.
void RunHostKernel(XlaHostKernelFn function, absl::Span<void* const> buffers,
                   int64_t total_blocks, HostThreadPool& pool);

}  // namespace stream_executor::host

#endif  // XLA_STREAM_EXECUTOR_HOST_HOST_LAUNCH_H_
