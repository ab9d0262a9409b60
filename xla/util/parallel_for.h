// ParallelForEach: runs a function over an index range on a few short-lived
// threads (the caller's included), for coarse work such as compiling one
// kernel module per index.
//
// Thread-safety: `fn` is called concurrently from up to `threads` threads,
// each index exactly once; the function returns after every call returned.
#ifndef XLA_UTIL_PARALLEL_FOR_H_
#define XLA_UTIL_PARALLEL_FOR_H_

#include <cstdint>

#include "absl/functional/function_ref.h"

namespace xla {

// Calls fn(i) for every i in [0, count) on min(threads, count) threads (at
// least 1: the caller), which claim indices in increasing order from a
// shared counter. Never fails; a thread that cannot be started leaves its
// share to the others.
void ParallelForEach(int64_t count, int threads, absl::FunctionRef<void(int64_t)> fn);

// `requested` when above 0, else the hardware threads capped at
// `max_default` (at least 1). Pure apart from reading the hardware count.
int ThreadCount(int requested, int max_default);

}  // namespace xla

#endif  // XLA_UTIL_PARALLEL_FOR_H_
