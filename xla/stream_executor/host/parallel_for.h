// ParallelFor: runs run(0), ..., run(units - 1) on the calling thread and up
// to units - 1 threads of a HostThreadPool, and returns when all have run.
//
// Units are claimed from a shared counter, so the caller finishes alone when
// the pool is busy and waits only for units a pool thread has already
// claimed: a task of the same pool may call it without deadlocking.
//
// Thread-safety: may be called from several threads at once on one pool;
// `run` must be safe to call concurrently for different units.
#ifndef XLA_STREAM_EXECUTOR_HOST_PARALLEL_FOR_H_
#define XLA_STREAM_EXECUTOR_HOST_PARALLEL_FOR_H_

#include <cstdint>

#include "absl/functional/function_ref.h"
#include "xla/stream_executor/host/host_thread_pool.h"

namespace stream_executor::host {

// units <= 0 runs nothing; units == 1 runs on the caller only.
void ParallelFor(HostThreadPool& pool, int64_t units, absl::FunctionRef<void(int64_t)> run);

}  // namespace stream_executor::host

#endif  // XLA_STREAM_EXECUTOR_HOST_PARALLEL_FOR_H_
