// The host's bf16 GEMM on CPUs with Intel AMX (AMX-TILE and AMX-BF16):
// TDPBF16PS multiplies a 16 x 32 bf16 tile by a 32 x 16 one into a 16 x 16
// f32 tile, 8192 multiply-adds per instruction (the AVX512-BF16 kernel of
// host_gemm_bf16_dot.h does 512).
//
// Layout. Both operands are packed (by the block itself, or whole by the
// caller) into 1 KiB tiles of 16 x 16 32-bit words, each word a pair of
// consecutive k (k = 2p, 2p + 1; the odd k's half is zero past k):
//   op(lhs): panels of kBf16AmxPanel rows; a panel is ceil(k / 32) tiles,
//            tile c's word (t, q) = pair c * 16 + q of row t (an A tile);
//   op(rhs): panels of kBf16AmxPanel columns; tile c's word (q, t) = pair
//            c * 16 + q of column t (a B tile: the VNNI pair layout).
// Rows, columns and pairs past the block's are zero, so a block of any size
// runs whole tiles; a partial output tile goes through a 16 x 16 buffer.
// The kernel keeps 2 x 2 output tiles (32 x 32 outputs) in tile registers
// over a depth slice of kBf16AmxDepthTiles tiles (the slice's A and B tiles,
// 16 KiB each, stay in L1), the output tiles reloaded from the product for
// the next slice.
//
// Arithmetic: exactly that of host_gemm_bf16_dot.h. Each bf16 product is
// exact in f32 and is added into its output's f32 sum, pairs in increasing
// k, round to nearest even; bf16 subnormal inputs read as zero and subnormal
// sums are flushed (TDPBF16PS ignores MXCSR, Intel SDM). The result is the
// f32-accumulated product; it may differ from the AVX512-BF16 kernel's
// by f32 reassociation (about k * 2^-24 of sum |lhs * rhs|) if a CPU groups
// a pair's two products differently, and HostGemm rounds it to bf16 once.
//
// Only for a CPU (and OS) with AVX512-F, -BW, -VL, -DQ and AMX-TILE,
// AMX-BF16, in a process that HostAmxBf16Usable() (amx_support.h) has
// answered true for (the tile-state permission). The .cc is compiled with
// those instruction sets and defines nothing else (no template or inline
// function a linker could share with portable code).
//
// Thread-safety: pure functions of their arguments; concurrent calls need
// their own scratch. A block loads its own tile configuration (LDTILECFG)
// on the calling thread and releases the tiles (TILERELEASE) before it
// returns, so any thread may run blocks.
#ifndef XLA_STREAM_EXECUTOR_HOST_HOST_GEMM_BF16_AMX_H_
#define XLA_STREAM_EXECUTOR_HOST_HOST_GEMM_BF16_AMX_H_

#include <cstdint>

#include "xla/stream_executor/blas.h"
#include "xla/stream_executor/host/host_gemm_bf16_dot.h"
#include "xla/stream_executor/host/host_gemm_kernels.h"

namespace stream_executor::host {

// Rows of op(lhs) (columns of op(rhs)) per packed panel: one tile's rows.
inline constexpr int64_t kBf16AmxPanel = 16;
// Depth tiles (32 k each) per slice: A and B slices of 2 panels, 16 KiB each.
inline constexpr int64_t kBf16AmxDepthTiles = 8;

// Bytes of op(lhs) packed (`rows` rows, depth `k`), of op(rhs) packed
// (`cols` columns), and of the scratch HostGemmBf16AmxBlock needs for a
// block of `rows` x `cols` (both packed).
int64_t HostGemmBf16AmxPackedLhsBytes(int64_t rows, int64_t k);
int64_t HostGemmBf16AmxPackedRhsBytes(int64_t cols, int64_t k);
int64_t HostGemmBf16AmxScratchBytes(int64_t rows, int64_t cols, int64_t k);

// Packs all of op(lhs) (config.m rows) into `packed` (at least
// HostGemmBf16AmxPackedLhsBytes(config.m, config.k) bytes, 64-byte
// aligned), for blocks that share it (a GEMM cut into column blocks).
// Needs AVX-512 (F, BW); no tile instruction.
void HostGemmBf16AmxPackLhs(const BlasGemmConfig& config, const uint16_t* lhs, void* packed);

// For an f32 GEMM whose operands hold bf16 values: packs all of op(lhs) and
// op(rhs) from the f32 operands' high halves into `packed_lhs` and
// `packed_rhs` (HostGemmBf16AmxPacked*Bytes of config.m, config.n and
// config.k), checking on the way that every element is a bf16 value that
// is not subnormal (as HostGemmBf16DotPackExactF32). Returns false when one
// holds another value (the buffers then hold garbage), at the end of the
// first lhs panel holding one, else after the rhs. Needs AVX-512 (F, BW);
// no tile instruction.
bool HostGemmBf16AmxPackExactF32(const BlasGemmConfig& config, const float* lhs, const float* rhs,
                                 void* packed_lhs, void* packed_rhs);

// The same packing cut into `shares` parts, of which this call does part
// `share` (0 <= share < shares): a contiguous run of op(lhs)'s panels, and
// of op(rhs)'s panels (or, for a row-major rhs, of its depth pairs in every
// panel). The calls for every share, in any order and on any threads at
// once (they write disjoint bytes), together equal one
// HostGemmBf16AmxPackExactF32, which is true exactly when all of them are.
// Returns false when the share read a value that is no bf16 (stopping at
// the end of an lhs panel, or of its rhs run).
bool HostGemmBf16AmxPackExactF32Share(const BlasGemmConfig& config, const float* lhs,
                                      const float* rhs, int64_t share, int64_t shares,
                                      void* packed_lhs, void* packed_rhs);

// product[i * config.n + j] = sum over k of op(lhs)[i][k] * op(rhs)[k][j]
// for the block's (i, j) (HostGemmBlock, host_gemm_kernels.h), computed as
// the file comment says; `config` gives m, n, k and the transposes (lhs,
// rhs and product are this batch's matrices, bf16 bits and a row-major
// m x n f32 product; alpha, beta and batch strides are the caller's).
// Operands `packed` holds (packed whole by HostGemmBf16AmxPackLhs or
// ...PackExactF32, never by the AVX512-BF16 kernel's packers) are read from
// there when the block starts on one of their panels (row0, col0 multiples
// of kBf16AmxPanel); otherwise the block packs its own from `lhs` / `rhs`
// into `scratch` (HostGemmBf16AmxScratchBytes(block.rows, block.cols,
// config.k) bytes, 64-byte aligned). Bitwise the same product either way.
// Only where HostAmxBf16Usable() (and the instruction sets above).
void HostGemmBf16AmxBlock(const BlasGemmConfig& config, const uint16_t* lhs, const uint16_t* rhs,
                          const Bf16DotPacked& packed, float* product, const HostGemmBlock& block,
                          void* scratch);

}  // namespace stream_executor::host

#endif  // XLA_STREAM_EXECUTOR_HOST_HOST_GEMM_BF16_AMX_H_
