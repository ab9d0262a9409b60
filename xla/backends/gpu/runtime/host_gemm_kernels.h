// The row-block kernels behind HostGemm, compiled once per instruction set.
//
// host_gemm_kernels.cc is built twice: as HostGemmKernelsBaseline() with
// the toolchain's default flags (x86-64: SSE2), and as
// HostGemmKernelsAvx2Fma() with -mavx2 -mfma, where Eigen's packets are
// 8 floats wide and multiply-adds fuse. The AVX2 copy renames Eigen's
// namespace (-DEigen=EigenAvx2Fma) and keeps its own templates in an
// anonymous namespace, and is compiled with -O2 even in debug builds so the
// std:: helpers it calls are inlined rather than emitted as weak symbols
// (checked with nm: the optimized object defines no weak symbol outside
// its own namespace), so the linker cannot swap AVX code into the rest of
// the binary. HostGemm (host_gemm.h) picks a
// table once per process; the AVX2 table may only run on a CPU that
// reports avx2 and fma.
//
// Internal to host_gemm; thread-safe (the tables are constant, the
// functions are pure).
#ifndef XLA_BACKENDS_GPU_RUNTIME_HOST_GEMM_KERNELS_H_
#define XLA_BACKENDS_GPU_RUNTIME_HOST_GEMM_KERNELS_H_

#include <cstdint>

#include "xla/backends/gpu/runtime/host_gemm.h"

namespace xla::gpu {

// A block of one batch's output: rows [row0, row0 + rows), columns
// [col0, col0 + cols).
struct HostGemmBlock {
  int64_t row0 = 0, rows = 0;
  int64_t col0 = 0, cols = 0;
};

// One block of one batch of `config` (the pointers are that batch's
// matrices): out = alpha * op(lhs) x op(rhs) + beta * out there, with the
// arithmetic of the table's element type (f16 and bf16 in f32).
using HostGemmRowsFn = void (*)(const GemmConfig& config, const void* lhs, const void* rhs,
                                void* out, const HostGemmBlock& block);

struct HostGemmKernels {
  const char* isa;  // "sse2" or "avx2+fma"
  HostGemmRowsFn f32;
  HostGemmRowsFn f64;
  HostGemmRowsFn f16;
  HostGemmRowsFn bf16;
};

const HostGemmKernels& HostGemmKernelsBaseline();
const HostGemmKernels& HostGemmKernelsAvx2Fma();

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_RUNTIME_HOST_GEMM_KERNELS_H_
