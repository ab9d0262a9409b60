// The row-block kernels behind HostGemm, compiled once per instruction set.
//
// host_gemm_kernels.cc is built three times: as HostGemmKernelsBaseline()
// with the toolchain's default flags (x86-64: SSE2), as
// HostGemmKernelsAvx2Fma() with -mavx2 -mfma, where Eigen's packets are
// 8 floats wide and multiply-adds fuse, and as HostGemmKernelsAvx512() with
// AVX-512 F, DQ, VL and BW (16-float packets, 32 vector registers). The
// wider copies rename Eigen's namespace (-DEigen=EigenAvx2Fma,
// -DEigen=EigenAvx512) and keep their own templates in an anonymous
// namespace, and are compiled with -O2 even in debug builds so the std::
// helpers they call are inlined rather than emitted as weak symbols
// (checked with nm: the optimized objects define no weak symbol outside
// their own namespace), so the linker cannot swap AVX code into the rest of
// the binary. HostGemm (host_gemm.h) picks a table once per process; the
// AVX2 table may only run on a CPU that reports avx2 and fma, the AVX-512
// one on a CPU that reports all four AVX-512 subsets.
//
// It needs only blas.h (the shared config) and is internal to host_gemm;
// thread-safe (the tables are constant, the
// functions are pure).
#ifndef XLA_STREAM_EXECUTOR_HOST_HOST_GEMM_KERNELS_H_
#define XLA_STREAM_EXECUTOR_HOST_HOST_GEMM_KERNELS_H_

#include <cstdint>

#include "xla/stream_executor/blas.h"

namespace stream_executor::host {

// A block of one batch's output: rows [row0, row0 + rows), columns
// [col0, col0 + cols).
struct HostGemmBlock {
  int64_t row0 = 0, rows = 0;
  int64_t col0 = 0, cols = 0;
};

// One block of one batch of `config` (the pointers are that batch's
// matrices): out = alpha * op(lhs) x op(rhs) + beta * out there, with the
// arithmetic of the table's element type.
using HostGemmRowsFn = void (*)(const BlasGemmConfig& config, const void* lhs, const void* rhs,
                                void* out, const HostGemmBlock& block);

// dst[i] = float(src[i]) for i in [0, count): a 16-bit float widened
// (exactly).
using HostGemmWidenFn = void (*)(const void* src, float* dst, int64_t count);

// out[i] = round(alpha * acc[i] + beta * float(out[i])) for i in
// [0, count), the sum in f32 and rounded once to the 16-bit type (to
// nearest even); `out` is not read when beta is 0.
using HostGemmNarrowFn = void (*)(const float* acc, void* out, int64_t count, float alpha,
                                  float beta);

// A 16-bit float type's conversions: HostGemm computes f16 and bf16 GEMMs
// as f32 ones on operands widened once per call, and rounds the f32
// product once at the end.
struct HostGemmHalfConversions {
  HostGemmWidenFn widen;
  HostGemmNarrowFn narrow;
};

struct HostGemmKernels {
  const char* isa;  // "sse2", "avx2+fma" or "avx512"
  // Eigen's blocked product (packs both operands per call).
  HostGemmRowsFn f32;
  HostGemmRowsFn f64;
  // The direct kernel for small GEMMs: no packing and no pass over the
  // output before the product, register tiles of the build's vectors that
  // read the operands where they lie. An rhs stored k x n is streamed a row
  // at a time against broadcast lhs elements, each output summed in k
  // order, one multiply-add per product; an rhs stored n x k (transposed)
  // makes each output a dot product along k in vector-width partial sums
  // added in lane order. Either way an output's value depends on the sizes
  // and the instruction set only, not on the block. Does not take both
  // operands transposed (the caller's to route; HostGemm keeps Eigen then).
  HostGemmRowsFn f32_small;
  HostGemmRowsFn f64_small;
  HostGemmHalfConversions f16;
  HostGemmHalfConversions bf16;
};

const HostGemmKernels& HostGemmKernelsBaseline();
const HostGemmKernels& HostGemmKernelsAvx2Fma();
const HostGemmKernels& HostGemmKernelsAvx512();

}  // namespace stream_executor::host

#endif  // XLA_STREAM_EXECUTOR_HOST_HOST_GEMM_KERNELS_H_
