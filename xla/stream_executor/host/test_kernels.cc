// Test kernels for the conformance suite and the host tests, following
// host_kernel_abi.h. Built as libtest_kernels.so and loaded from bytes.
//
// The conformance suite expects these symbols (a CUDA module for the suite
// provides the same names with the same buffer meanings):
//   saxpy_f32     buffers: {float ab[2], float x[n], float y[n], int64 n[1]};
//                 block k computes y[i] = ab[0] * x[i] + ab[1] for the
//                 kElementsPerBlock elements i = 4k .. 4k+3 that are < n.
//   count_blocks  buffers: {int32 counts[total]}; block k adds 1 to counts[k].
// Host tests only:
//   count_calls   buffers: {int64 calls[1]}; each call (one block range) adds
//                 1 to calls[0] atomically.
#include <cstdint>

#include "xla/stream_executor/host/host_kernel_abi.h"

namespace {
constexpr int64_t kElementsPerBlock = 4;
}  // namespace

extern "C" {

void saxpy_f32(void* const* buffers, int64_t num_buffers, int64_t block_begin,
               int64_t block_end) {
  if (num_buffers != 4) return;
  const float* ab = static_cast<const float*>(buffers[0]);
  const float* x = static_cast<const float*>(buffers[1]);
  float* y = static_cast<float*>(buffers[2]);
  const int64_t n = *static_cast<const int64_t*>(buffers[3]);
  for (int64_t block = block_begin; block < block_end; ++block) {
    for (int64_t t = 0; t < kElementsPerBlock; ++t) {
      const int64_t i = block * kElementsPerBlock + t;
      if (i < n) y[i] = ab[0] * x[i] + ab[1];
    }
  }
}

void count_blocks(void* const* buffers, int64_t num_buffers,
                  int64_t block_begin, int64_t block_end) {
  if (num_buffers != 1) return;
  int32_t* counts = static_cast<int32_t*>(buffers[0]);
  for (int64_t block = block_begin; block < block_end; ++block) {
    counts[block] += 1;
  }
}

void count_calls(void* const* buffers, int64_t num_buffers,
                 int64_t block_begin, int64_t block_end) {
  if (num_buffers != 1 || block_begin >= block_end) return;
  __atomic_fetch_add(static_cast<int64_t*>(buffers[0]), 1, __ATOMIC_RELAXED);
}

}  // extern "C"

// Fails the build if a kernel drifts from the ABI's function type.
[[maybe_unused]] static constexpr XlaHostKernelFn kAbiCheck[] = {
    &saxpy_f32, &count_blocks, &count_calls};
