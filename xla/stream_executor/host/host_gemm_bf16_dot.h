// The host's bf16 GEMM on CPUs with AVX512-BF16: VDPBF16PS multiplies bf16
// pairs and adds both products into f32 lanes, twice the multiply-adds per
// instruction of an f32 FMA, and the operands stay 16-bit (half the bytes
// packed and streamed of the widen-then-f32 path).
//
// A block of one batch (HostGemmBlock: rows [row0, row0 + rows), columns
// [col0, col0 + cols)) of
//
//   product = op(lhs) x op(rhs)      (bf16 operands, f32 product)
//
// is packed into scratch: op(lhs) in panels of kBf16DotRows rows, op(rhs)
// in panels of kBf16DotCols columns, each element a 32-bit pair of
// consecutive k (k = 2p, 2p + 1; an odd k's last pair has a zero second
// half, rows and columns past the block are zero). An 8 x 32 register tile
// then runs over the depth in slices of kBf16DotDepthPairs pairs, the
// rhs slice staying in L1 while every lhs panel passes over it.
//
// Arithmetic, exactly: each product of two bf16 values is exact in f32; a
// pair's two products are added into the f32 running sum of its output
// element, rounded to nearest even (Intel's SDM defines VDPBF16PS as two
// such additions, the odd k first; a CPU may round the pair once, which
// changes nothing below), the pairs in increasing k. Unlike the fallback
// (operands widened to f32, Eigen's FMA GEMM), the instruction ignores
// MXCSR: bf16 subnormal inputs count as zero and subnormal partial sums are
// flushed to zero. The two paths therefore differ by f32 reassociation
// (each partial sum rounded in another order: at most about k * 2^-24 of
// sum |lhs * rhs|) and by values below 2^-126; after the final rounding to
// bf16 (2^-8 relative) an output may differ from the fallback's by one bf16
// ulp when the f32 sums fall on either side of a rounding boundary.
//
// Only for a CPU (and OS) with AVX512-F, -BW, -VL, -DQ and -BF16 (HostGemm
// checks, host_gemm.h). The .cc is compiled with those instruction sets and
// defines nothing else (no template or inline function a linker could share
// with portable code).
//
// Thread-safety: pure functions of their arguments; concurrent calls need
// their own scratch.
#ifndef XLA_STREAM_EXECUTOR_HOST_HOST_GEMM_BF16_DOT_H_
#define XLA_STREAM_EXECUTOR_HOST_HOST_GEMM_BF16_DOT_H_

#include <cstdint>

#include "xla/stream_executor/blas.h"
#include "xla/stream_executor/host/host_gemm_kernels.h"

namespace stream_executor::host {

// The register tile: rows of op(lhs) and columns of op(rhs) per panel.
inline constexpr int64_t kBf16DotRows = 8;
inline constexpr int64_t kBf16DotCols = 32;
// k pairs per depth slice: the rhs panel's slice is 128 x 32 x 4 bytes =
// 16 KiB (L1), an lhs panel's 4 KiB.
inline constexpr int64_t kBf16DotDepthPairs = 128;

// Bytes of scratch HostGemmBf16DotBlock needs for a block of `rows` x
// `cols` and depth `k` (both packed operands).
int64_t HostGemmBf16DotScratchBytes(int64_t rows, int64_t cols, int64_t k);

// product[i * config.n + j] = sum over k of op(lhs)[i][k] * op(rhs)[k][j]
// for the block's (i, j), computed as the file comment says; `config`
// gives m, n, k and the transposes (element type, alpha, beta and batch
// strides are the caller's: lhs, rhs and product are this batch's
// matrices, the product row-major m x n). `scratch` holds at least
// HostGemmBf16DotScratchBytes(block.rows, block.cols, config.k) bytes,
// 64-byte aligned. Only on a CPU with the instruction sets above.
void HostGemmBf16DotBlock(const BlasGemmConfig& config, const uint16_t* lhs, const uint16_t* rhs,
                          float* product, const HostGemmBlock& block, void* scratch);

// Bytes of op(lhs) packed whole (`rows` rows, depth `k`), and of op(rhs)
// packed whole (`cols` columns).
int64_t HostGemmBf16DotPackedLhsBytes(int64_t rows, int64_t k);
int64_t HostGemmBf16DotPackedRhsBytes(int64_t cols, int64_t k);

// Packs all of op(lhs) (config.m rows) into `packed` (at least
// HostGemmBf16DotPackedLhsBytes(config.m, config.k) bytes), as each block
// would pack its own rows: for a GEMM cut into column blocks, which would
// otherwise each pack the whole lhs again (HostGemm packs it once and
// shares it). Only on a CPU with the instruction sets above.
void HostGemmBf16DotPackLhs(const BlasGemmConfig& config, const uint16_t* lhs, void* packed);

// For an f32 GEMM whose operands hold bf16 values: packs all of op(lhs)
// and op(rhs) from the f32 operands (their high halves) into `packed_lhs`
// and `packed_rhs` (HostGemmBf16DotPacked*Bytes of config.m, config.n and
// config.k), in one pass that also checks them, when every element is a
// bf16 value that is not subnormal (its low 16 bits zero, its exponent
// field non-zero or the value zero: what a convert from bf16 produces).
// Returns false at the end of the first panel that holds another value
// (the buffers then hold garbage): about kBf16DotRows rows of the lhs for
// an ordinary f32 GEMM. Only on a CPU with the instruction sets above.
bool HostGemmBf16DotPackExactF32(const BlasGemmConfig& config, const float* lhs, const float* rhs,
                                 void* packed_lhs, void* packed_rhs);

// Operands packed whole before the blocks run (64-byte aligned); null where
// each block packs its own. Read only: concurrent blocks may share them.
// The AMX kernel (host_gemm_bf16_amx.h) passes its own packing in the same
// struct; each kernel reads only what its own packers wrote.
struct Bf16DotPacked {
  const void* lhs = nullptr;  // HostGemmBf16DotPackLhs or ...PackExactF32
  const void* rhs = nullptr;  // HostGemmBf16DotPackExactF32
};

// HostGemmBf16DotBlock reading the operands `packed` holds from there (a
// block whose row0 is not a multiple of kBf16DotRows, or col0 of
// kBf16DotCols, packs its own from `lhs` or `rhs` instead; an operand
// packed whole needs no pointer). Bitwise the same product either way.
void HostGemmBf16DotBlockPacked(const BlasGemmConfig& config, const uint16_t* lhs,
                                const uint16_t* rhs, const Bf16DotPacked& packed, float* product,
                                const HostGemmBlock& block, void* scratch);

// When every f32 of src[0, count) is a bf16 value that is not subnormal
// (its low 16 bits zero, its exponent field non-zero or the value zero:
// what a convert from bf16 produces), writes their bf16 bits to dst and
// returns true; otherwise returns false as soon as a chunk of elements shows
// one that is not (dst then holds garbage). For f32 GEMMs on converted bf16
// operands (HostGemm). Only on a CPU with the instruction sets above.
bool HostGemmNarrowExactBf16(const float* src, uint16_t* dst, int64_t count);

// Whether every f32 of src[0, count) is such a bf16 value (reads them all,
// writes nothing): HostGemm's cheap first look at an operand's leading
// elements, so that an ordinary f32 GEMM is turned away before any
// packing. Only on a CPU with the instruction sets above.
bool HostGemmBf16ExactF32(const float* src, int64_t count);

}  // namespace stream_executor::host

#endif  // XLA_STREAM_EXECUTOR_HOST_HOST_GEMM_BF16_DOT_H_
