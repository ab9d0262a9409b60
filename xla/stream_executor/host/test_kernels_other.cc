// A second test kernel module (libtest_kernels_other.so), to check that
// modules are independent: it has none of test_kernels.cc's symbols.
//   fill_i32  buffers: {int32 out[total], int32 value[1]}; block k sets
//             out[k] = value[0].
#include <cstdint>

#include "xla/stream_executor/host/host_kernel_abi.h"

extern "C" void fill_i32(void* const* buffers, int64_t num_buffers,
                         int64_t block_begin, int64_t block_end) {
  if (num_buffers != 2) return;
  int32_t* out = static_cast<int32_t*>(buffers[0]);
  const int32_t value = *static_cast<const int32_t*>(buffers[1]);
  for (int64_t block = block_begin; block < block_end; ++block) {
    out[block] = value;
  }
}

[[maybe_unused]] static constexpr XlaHostKernelFn kAbiCheck = &fill_i32;
