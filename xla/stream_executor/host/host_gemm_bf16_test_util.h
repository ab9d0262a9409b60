// What the bf16 GEMM kernel tests share (host_gemm_bf16_dot_test,
// host_gemm_bf16_amx_test): random bf16 operands, a row-major bf16 GEMM
// config, aligned scratch, and the exact reference with its f32 error
// bound. Test-only.
//
// Thread-safety: pure functions; Random advances only the generator given.
#ifndef XLA_STREAM_EXECUTOR_HOST_HOST_GEMM_BF16_TEST_UTIL_H_
#define XLA_STREAM_EXECUTOR_HOST_HOST_GEMM_BF16_TEST_UTIL_H_

#include <cstdint>
#include <random>
#include <vector>

#include "Eigen/Core"
#include "xla/stream_executor/blas.h"

namespace stream_executor::host::bf16_test {

using Bf16 = Eigen::bfloat16;

// `count` bf16 values drawn uniformly from [-2, 2) and rounded.
std::vector<Bf16> RandomBf16(int64_t count, std::mt19937& rng);

// The raw bits of `v`, as the kernels take them.
const uint16_t* Bits(const std::vector<Bf16>& v);

// One bf16 GEMM of m x k by k x n (op(lhs) and op(rhs) transposed as
// asked), the batch strides those of packed matrices.
BlasGemmConfig Bf16Config(int64_t m, int64_t n, int64_t k, bool tl, bool tr);

// 64-byte aligned scratch of at least `bytes` bytes inside `storage`
// (resized and zeroed).
void* Aligned(std::vector<char>& storage, int64_t bytes);

// sum over k of op(lhs)[i][k] * op(rhs)[k][j] in double (exact for bf16
// products of these magnitudes), and the sum of the products' magnitudes
// (what bounds the f32 rounding error).
struct Dot {
  double value = 0, magnitude = 0;
};
Dot ExactDot(const BlasGemmConfig& c, const Bf16* lhs, const Bf16* rhs, int64_t i, int64_t j);

// How far an f32 sum of c.k exact products may be from `d.value`: about
// k * 2^-24 of their magnitudes' sum (the recursive-summation bound).
double F32Bound(const BlasGemmConfig& c, const Dot& d);

}  // namespace stream_executor::host::bf16_test

#endif  // XLA_STREAM_EXECUTOR_HOST_HOST_GEMM_BF16_TEST_UTIL_H_
