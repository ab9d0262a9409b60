// HostGemm: the host platform's matrix multiply (Eigen): what HostStream::Gemm
// (the host's Stream::Gemm, blas.h) runs on the stream's worker, with the
// executor's launch pool.
//
//   out[b] = alpha * op(lhs[b]) x op(rhs[b]) + beta * out[b]
//
// for b in [0, batch_size), matrices dense row-major; op(lhs) is m x k,
// op(rhs) is k x n, out is m x n; op transposes when asked (the stored lhs is
// then k x m). Batch b of an operand starts at b * stride elements. F32 and
// F64 compute in their own type. BF16 on a CPU with AVX512-BF16 runs
// VDPBF16PS on the 16-bit operands packed per block into an f32 product
// (host_gemm_bf16_dot.h, which says how its sums differ from the widened
// path's; where the CPU and OS also allow AMX-BF16, GEMMs of at least 16
// rows and columns run TDPBF16PS tiles instead, host_gemm_bf16_amx.h, with
// the same arithmetic contract; a single matrix cut into column blocks packs its lhs once, on the
// calling thread, for all blocks); otherwise F16 and BF16 operands are widened to f32 once per call
// (all batches, on the calling thread, into f32 scratch that the calling
// thread keeps for its next call: a GEMM's operands and product, 4 bytes an
// element) and multiplied as an f32 GEMM. Either way each output is
// rounded once at the end, from its f32 sum. On such a CPU an F32 GEMM with
// alpha 1 and beta 0 whose operands hold only bf16 values that are not
// subnormal (low 16 bits zero: converted bf16, as in a bf16 x bf16 -> f32
// dot) runs the same kernel on the operands narrowed (exactly) once per
// call: its f32 sums are then ordered and flushed below 2^-126 as
// host_gemm_bf16_dot.h says, instead of Eigen's; any other value in either
// operand (checked in chunks, stopping at the first) keeps Eigen's f32 GEMM. When beta is 0, `out` is not read (NaNs in it
// do not propagate).
//
// Small GEMMs (at most 2^20 multiply-adds per matrix and an rhs of at most
// 2^17 elements, the rhs not transposed) in f32 and f64, and f16 /
// widened bf16 ones, run a direct kernel instead of Eigen's: no packing and
// no pass over the output before the product (host_gemm_kernels.h says how
// it sums; its results differ from Eigen's by reassociation only). An LSTM
// step's [16,128] x [128,512] spent a fifth of its time in Eigen's packing.
//
// Subnormals: every block runs with the thread's MXCSR set to flush them
// (DAZ and FTZ, flush_subnormals.h), as XLA:CPU runs its programs: a
// subnormal operand counts as zero and a subnormal sum becomes zero (f32
// and f64; each output differs from the unflushed product by at most
// k * the smallest normal times the other operand's largest magnitude).
// Without it every multiply-add that meets one takes a microcode assist of
// about 100 cycles: a softmax's probabilities, 15% of them subnormal, made
// an attention's P x V 40x slower (docs/perf.md, issue 27). The caller's
// MXCSR is restored after each block.
//
// Blocking and threading: a GEMM of at least min_parallel_macs
// multiply-adds per batch (m * n * k) is cut along the longer of m and n
// (so the operand each block packs whole is the smaller one) into blocks of
// about 128 or more rows (heights multiples of kHostGemmRowQuantum) or
// columns (multiples of 64), the last block taking the rest; each block is
// one Eigen product with the full k. About 16 units (batches x blocks) at
// most: a batch of 16 or more is not cut at all, so each unit is whole
// matrices. The cut depends on the sizes and min_parallel_macs only, never
// on the pool, and each block is computed the same way wherever it runs, so
// the result is bitwise the same with any pool or none (host_gemm_test
// checks this on odd sizes). With a pool (HostGemmThreading) and at least
// min_parallel_macs in total, batches and blocks run in parallel. The calling thread runs units too and only
// waits for units a pool thread has already started, so a busy pool never
// deadlocks it. (Eigen's own cut of a whole matrix treats remainder rows
// differently from a block's, so a blocked GEMM may differ in the last bit
// from an unblocked one of the same sizes; that is why blocking does not
// depend on the pool.)
//
// Thread-safety: a pure function of its arguments; the caller guarantees the
// pointers cover the validated extents. Concurrent calls may share a pool.
#ifndef XLA_STREAM_EXECUTOR_HOST_HOST_GEMM_H_
#define XLA_STREAM_EXECUTOR_HOST_HOST_GEMM_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "xla/stream_executor/blas.h"
#include "xla/stream_executor/host/host_thread_pool.h"

namespace stream_executor::host {

// Row blocks are multiples of this many rows: a multiple of Eigen's register
// block height (mr = 3 packets: 12 rows with SSE, 24 with AVX, 48 with
// AVX-512 for f32), so no block has remainder rows but the last.
inline constexpr int64_t kHostGemmRowQuantum = 48;

// Where and when HostGemm runs on several threads.
struct HostGemmThreading {
  // Null: the calling thread does everything.
  HostThreadPool* pool = nullptr;
  // GEMMs with fewer multiply-adds (m * n * k * batch_size) stay on the
  // calling thread: below about 128^3 the hand-off costs more than it saves.
  int64_t min_parallel_macs = int64_t{1} << 21;
};

// The instruction set of the GEMM kernels this process runs: "avx512" on a
// CPU with AVX-512 F, DQ, VL and BW, else "avx2+fma" on one with AVX2 and
// FMA, else "sse2" (host_gemm_kernels.h). Setting XLA_HOST_GEMM_ISA=avx2
// (or sse2) before the first GEMM caps it there; any value (avx512 too)
// also turns off the bf16 kernel (HostGemmBf16Dot). They round differently
// (fused multiply-adds, other block sizes), so results are bitwise
// reproducible per machine class, not across them. Thread-safe.
absl::string_view HostGemmIsa();

// Whether bf16 GEMMs (and f32 GEMMs on bf16 values, above) use the
// AVX512-BF16 kernel (host_gemm_bf16_dot.h):
// the AVX-512 kernels are chosen, the CPU has AVX512-BF16,
// XLA_HOST_GEMM_ISA is unset, and no test has disabled it. Thread-safe.
bool HostGemmBf16Dot();

// Whether bf16 GEMMs of at least 16 rows and 16 columns (and such f32
// GEMMs on bf16 values) run the AMX kernel (host_gemm_bf16_amx.h) instead
// of the AVX512-BF16 one: HostGemmBf16Dot(), the CPU, OS and kernel allow
// AMX-BF16 (HostAmxBf16Usable, amx_support.h), and no test has disabled it.
// Both give the f32-accumulated product (rounded once to bf16 for a bf16
// output); their f32 sums may differ by reassociation. Thread-safe.
bool HostGemmBf16Amx();

// Tests: with `disabled`, the GEMMs HostGemmBf16Amx() would send to the AMX
// kernel run the AVX512-BF16 kernel, until called again with false.
// Thread-safe (a GEMM already running keeps its path).
void DisableHostGemmBf16AmxForTesting(bool disabled);

// Tests: with `disabled`, bf16 GEMMs take the widen-then-f32 path (and f32
// GEMMs Eigen's) even where the CPU has AVX512-BF16, until called again
// with false. Thread-safe (a
// GEMM already running keeps its path).
void DisableHostGemmBf16DotForTesting(bool disabled);

// Tests and benchmarks: with `disabled`, small f32 / f64 GEMMs (and
// widened f16 / bf16 ones) run Eigen's packed product instead of the direct
// kernel (see the file comment), until called again with false.
// Thread-safe (a GEMM already running keeps its path).
void DisableHostGemmDirectForTesting(bool disabled);

// Runs the GEMM on the calling thread. Unimplemented for an element type
// outside BlasElementType and for FP8 GEMMs (IsBlasFp8Gemm); batch_size must be >= 1 (HostStream::Gemm reads 0
// as 1 before calling).
absl::Status HostGemm(const BlasGemmConfig& config, const void* lhs, const void* rhs, void* out);

// Same, spreading a large GEMM over `threading.pool` (see the file comment);
// bitwise the same result as the overload above when min_parallel_macs is
// the default.
absl::Status HostGemm(const BlasGemmConfig& config, const void* lhs, const void* rhs, void* out,
                      const HostGemmThreading& threading);

// The number of work units (batches x row blocks) HostGemm cuts `config`
// into. Exposed for tests and benchmarks.
int64_t HostGemmWorkUnits(const BlasGemmConfig& config, int64_t min_parallel_macs);

}  // namespace stream_executor::host

#endif  // XLA_STREAM_EXECUTOR_HOST_HOST_GEMM_H_
