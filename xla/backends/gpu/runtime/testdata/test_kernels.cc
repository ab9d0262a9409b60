// Host kernels for the runtime's tests, following
// xla/stream_executor/host/host_kernel_abi.h. One block per element unless
// noted; built as libruntime_test_kernels.so and embedded into hand-written
// artifacts as their host_shared_object.
//   add_f32   {a, b, out}: out[i] = a[i] + b[i]
//   scale2_f32 {x, out}: out[i] = 2 * x[i]
//   acc_f32   {acc, x}: acc[i] += x[i]
//   lt_s32    {counter, limit, pred} (1 block): pred[0] = counter[0] < limit[0]
//   inc_s32   {counter} (1 block): counter[0] += 1
#include <cstdint>

#include "xla/stream_executor/host/host_kernel_abi.h"

extern "C" {

void add_f32(void* const* b, int64_t n, int64_t begin, int64_t end) {
  if (n != 3) return;
  const float* x = static_cast<const float*>(b[0]);
  const float* y = static_cast<const float*>(b[1]);
  float* out = static_cast<float*>(b[2]);
  for (int64_t i = begin; i < end; ++i) out[i] = x[i] + y[i];
}

void scale2_f32(void* const* b, int64_t n, int64_t begin, int64_t end) {
  if (n != 2) return;
  const float* x = static_cast<const float*>(b[0]);
  float* out = static_cast<float*>(b[1]);
  for (int64_t i = begin; i < end; ++i) out[i] = 2 * x[i];
}

void acc_f32(void* const* b, int64_t n, int64_t begin, int64_t end) {
  if (n != 2) return;
  float* acc = static_cast<float*>(b[0]);
  const float* x = static_cast<const float*>(b[1]);
  for (int64_t i = begin; i < end; ++i) acc[i] += x[i];
}

void lt_s32(void* const* b, int64_t n, int64_t begin, int64_t end) {
  if (n != 3 || begin != 0) return;
  const int32_t counter = *static_cast<const int32_t*>(b[0]);
  const int32_t limit = *static_cast<const int32_t*>(b[1]);
  *static_cast<uint8_t*>(b[2]) = counter < limit ? 1 : 0;
}

void inc_s32(void* const* b, int64_t n, int64_t begin, int64_t end) {
  if (n != 1 || begin != 0) return;
  *static_cast<int32_t*>(b[0]) += 1;
}

}  // extern "C"

[[maybe_unused]] static constexpr XlaHostKernelFn kAbiCheck[] = {&add_f32, &scale2_f32, &acc_f32,
                                                                  &lt_s32, &inc_s32};
