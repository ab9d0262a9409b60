#include "xla/stream_executor/host/host_gemm.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <initializer_list>
#include <set>
#include <string>
#include <cstdlib>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "xla/stream_executor/host/amx_support.h"
#include "xla/stream_executor/host/host_gemm_bf16_amx.h"
#include "xla/stream_executor/host/host_gemm_bf16_dot.h"
#include "xla/stream_executor/host/host_gemm_kernels.h"
#include "xla/stream_executor/host/cpu_features.h"
#include "xla/stream_executor/host/flush_subnormals.h"
#include "xla/stream_executor/host/parallel_for.h"

namespace stream_executor::host {
namespace {

// How a GEMM is cut: batch_size x row_blocks x col_blocks units; a row
// block has rows_per_block rows and a column block cols_per_block columns
// (the last of each takes the rest). Depends on the sizes and
// min_parallel_macs only, never on the pool, so the result does not either.
struct Partition {
  int64_t row_blocks = 1;
  int64_t rows_per_block = 1;
  int64_t col_blocks = 1;
  int64_t cols_per_block = 1;
  int64_t blocks() const { return row_blocks * col_blocks; }
};

// Column blocks (used when there are too few rows to cut) are multiples of
// this many columns.
constexpr int64_t kColumnQuantum = 64;

// About this many units (batches x blocks) at most.
constexpr int64_t kMaxRowBlocks = 16;

// Blocks are about this many rows (columns) or more: a row block packs the
// whole rhs again, a column block the whole lhs, for only its own rows'
// (columns') multiply-adds: with AVX-512, 48-row blocks (6 of them for
// bf16_mlp_b256_d1024's 256 x 1024 x 1024 GEMMs) packed a 4 MiB rhs for
// each 48 M multiply-adds (docs/perf.md, issue 27).
constexpr int64_t kMinBlockExtent = 128;

double Macs(const BlasGemmConfig& c) {
  return static_cast<double>(c.m) * static_cast<double>(c.n) * static_cast<double>(c.k);
}

// `extent` cut into about `target` blocks of a multiple of `quantum`.
void Cut(int64_t extent, int64_t target, int64_t quantum, int64_t* per_block, int64_t* blocks) {
  const int64_t size = (extent + target - 1) / target;
  *per_block = std::max(quantum, (size + quantum - 1) / quantum * quantum);
  *blocks = (extent + *per_block - 1) / *per_block;
}

Partition Partitioned(const BlasGemmConfig& c, int64_t min_parallel_macs) {
  Partition p;
  p.rows_per_block = c.m;
  p.cols_per_block = c.n;
  if (Macs(c) < static_cast<double>(min_parallel_macs)) return p;
  // Batches are units already: cut only as far as kMaxRowBlocks units.
  const int64_t target = std::max<int64_t>(1, (kMaxRowBlocks + c.batch_size - 1) / c.batch_size);
  if (target == 1) return p;
  // Cut the longer of m and n: the operand every block packs whole is then
  // the smaller one (rows: U k n + m k elements packed for U blocks;
  // columns: U m k + k n).
  if (c.m > c.n) {
    const int64_t blocks = std::min(target, c.m / kMinBlockExtent);
    if (blocks >= 2) Cut(c.m, blocks, kHostGemmRowQuantum, &p.rows_per_block, &p.row_blocks);
  } else {
    // Also few rows (the last stage of a CNN: 7x7 = 49).
    const int64_t blocks = std::min(target, c.n / kMinBlockExtent);
    if (blocks >= 2) Cut(c.n, blocks, kColumnQuantum, &p.cols_per_block, &p.col_blocks);
  }
  return p;
}

// True when this machine's CPU (and OS) has every one of `features`
// (MachineCpuFeatures, LLVM's names).
bool CpuHas(std::initializer_list<const char*> features) {
  const std::set<std::string>& machine = MachineCpuFeatures();
  for (const char* f : features) {
    if (machine.count(f) == 0) return false;
  }
  return true;
}

// XLA_HOST_GEMM_ISA, or "" when unset.
absl::string_view IsaCap() {
  const char* env = std::getenv("XLA_HOST_GEMM_ISA");
  return env == nullptr ? "" : env;
}

// The kernels this process runs: the widest the CPU (and OS) runs, at most
// the one XLA_HOST_GEMM_ISA names ("sse2", "avx2" or "avx512"; to compare
// them).
const HostGemmKernels& Kernels() {
  static const HostGemmKernels* const chosen = []() -> const HostGemmKernels* {
    const absl::string_view cap = IsaCap();
    if (cap == "sse2") return &HostGemmKernelsBaseline();
    if (cap != "avx2" && CpuHas({"avx512f", "avx512dq", "avx512vl", "avx512bw"})) {
      return &HostGemmKernelsAvx512();
    }
    if (CpuHas({"avx2", "fma"})) return &HostGemmKernelsAvx2Fma();
    return &HostGemmKernelsBaseline();
  }();
  return *chosen;
}

// Whether the CPU runs HostGemmBf16DotBlock: the AVX-512 table chosen (F,
// DQ, VL, BW and the OS's AVX-512 state) and AVX512-BF16, which
// MachineCpuFeatures does not list (it names what artifacts may record).
// XLA_HOST_GEMM_ISA (any value) turns it off. __builtin_cpu_supports, not
// an ifunc: safe under the sanitizers.
bool Bf16DotAvailable() {
  static const bool available = [] {
#if defined(__x86_64__) && defined(__GNUC__)
    return IsaCap().empty() && std::string(Kernels().isa) == "avx512" &&
           __builtin_cpu_supports("avx512bf16");
#else
    return false;
#endif
  }();
  return available;
}

std::atomic<bool> bf16_dot_disabled_for_testing{false};

bool UseBf16Dot() {
  return Bf16DotAvailable() && !bf16_dot_disabled_for_testing.load(std::memory_order_relaxed);
}

// Whether the process runs the AMX kernel (host_gemm_bf16_amx.h): the
// AVX512-BF16 kernel's conditions (its packers use AVX-512), and AMX-BF16
// in CPUID, XCR0 and the kernel's tile-state permission (amx_support.h).
bool Bf16AmxAvailable() {
  static const bool available = Bf16DotAvailable() && HostAmxBf16Usable();
  return available;
}

std::atomic<bool> bf16_amx_disabled_for_testing{false};

bool UseBf16Amx() {
  return UseBf16Dot() && Bf16AmxAvailable() &&
         !bf16_amx_disabled_for_testing.load(std::memory_order_relaxed);
}

// A bf16 kernel's entry points (host_gemm_bf16_dot.h or
// host_gemm_bf16_amx.h: the same shapes, each reading only what its own
// packers wrote).
struct Bf16Kernel {
  int64_t (*packed_lhs_bytes)(int64_t rows, int64_t k);
  int64_t (*packed_rhs_bytes)(int64_t cols, int64_t k);
  int64_t (*scratch_bytes)(int64_t rows, int64_t cols, int64_t k);
  void (*pack_lhs)(const BlasGemmConfig&, const uint16_t*, void*);
  bool (*pack_exact_f32)(const BlasGemmConfig&, const float*, const float*, void*, void*);
  void (*block)(const BlasGemmConfig&, const uint16_t*, const uint16_t*, const Bf16DotPacked&,
                float*, const HostGemmBlock&, void*);
  // pack_exact_f32 cut into shares that may run at once; null where the
  // kernel has none.
  bool (*pack_exact_f32_share)(const BlasGemmConfig&, const float*, const float*, int64_t share,
                               int64_t shares, void*, void*);
};

constexpr Bf16Kernel kBf16DotKernel = {
    HostGemmBf16DotPackedLhsBytes, HostGemmBf16DotPackedRhsBytes, HostGemmBf16DotScratchBytes,
    HostGemmBf16DotPackLhs,        HostGemmBf16DotPackExactF32,   HostGemmBf16DotBlockPacked,
    nullptr};

constexpr Bf16Kernel kBf16AmxKernel = {
    HostGemmBf16AmxPackedLhsBytes, HostGemmBf16AmxPackedRhsBytes, HostGemmBf16AmxScratchBytes,
    HostGemmBf16AmxPackLhs,        HostGemmBf16AmxPackExactF32,   HostGemmBf16AmxBlock,
    HostGemmBf16AmxPackExactF32Share};

// The kernel for `c` (UseBf16Dot() already true): AMX where usable and
// both m and n fill at least one 16-wide tile (a GEMV would waste 15/16 of
// each tile instruction), the AVX512-BF16 kernel otherwise.
const Bf16Kernel& Bf16KernelFor(const BlasGemmConfig& c) {
  const bool tiles_fill = c.m >= kBf16AmxPanel && c.n >= kBf16AmxPanel;
  return tiles_fill && UseBf16Amx() ? kBf16AmxKernel : kBf16DotKernel;
}

// GEMMs of at most this many multiply-adds per matrix (and an rhs of at
// most kSmallGemmMaxRhs elements, which the direct kernel reads again for
// each tile of rows) run the direct kernel (HostGemmKernels::f32_small):
// below this Eigen's packing and its output pass cost more than its
// blocking saves (docs/perf.md, issue 27: an LSTM step's [16,128] x
// [128,512], 1 M multiply-adds, spent a fifth of its time packing).
constexpr double kSmallGemmMaxMacs = 1 << 20;
constexpr int64_t kSmallGemmMaxRhs = int64_t{1} << 17;

std::atomic<bool> direct_disabled_for_testing{false};

// Whether `c` (f32 or f64, or f16 / bf16 widened) runs the direct kernel.
bool IsSmallGemm(const BlasGemmConfig& c) {
  return !direct_disabled_for_testing.load(std::memory_order_relaxed) &&
         !c.transpose_rhs && Macs(c) <= kSmallGemmMaxMacs &&
         c.k * c.n <= kSmallGemmMaxRhs;
}

// The f32 / f64 kernel of `kernels` for `c`'s element type (the direct one
// for a small GEMM); null for other types.
HostGemmRowsFn RowsFn(const HostGemmKernels& kernels, const BlasGemmConfig& c) {
  const bool small = IsSmallGemm(c);
  if (c.element_type == BlasElementType::kF32) return small ? kernels.f32_small : kernels.f32;
  if (c.element_type == BlasElementType::kF64) return small ? kernels.f64_small : kernels.f64;
  return nullptr;
}

// The conversions of a 16-bit float type; null for others.
const HostGemmHalfConversions* HalfConversions(const HostGemmKernels& kernels,
                                               BlasElementType type) {
  if (type == BlasElementType::kF16) return &kernels.f16;
  if (type == BlasElementType::kBF16) return &kernels.bf16;
  return nullptr;
}

// One block of one batch, as HostGemmRowsFn.
using RowsRef = absl::FunctionRef<void(const BlasGemmConfig&, const void*, const void*, void*,
                                       const HostGemmBlock&)>;

// The GEMM as units of rows_fn calls: operands of operand_bytes an element,
// the output of out_bytes.
void GemmWith(RowsRef rows_fn, int64_t operand_bytes, int64_t out_bytes,
              const BlasGemmConfig& c, const void* lhs, const void* rhs, void* out,
              const HostGemmThreading& threading) {
  const char* l = static_cast<const char*>(lhs);
  const char* r = static_cast<const char*>(rhs);
  char* o = static_cast<char*>(out);
  const Partition p = Partitioned(c, threading.min_parallel_macs);
  auto unit = [&](int64_t i) {
    // As XLA:CPU: subnormal operands count as zero and subnormal sums are
    // flushed (each multiply-add meeting one costs a microcode assist).
    ScopedFlushSubnormals flush;
    const int64_t b = i / p.blocks();
    const int64_t rb = (i % p.blocks()) / p.col_blocks;
    const int64_t cb = i % p.col_blocks;
    HostGemmBlock block;
    block.row0 = rb * p.rows_per_block;
    block.rows = std::min(p.rows_per_block, c.m - block.row0);
    block.col0 = cb * p.cols_per_block;
    block.cols = std::min(p.cols_per_block, c.n - block.col0);
    rows_fn(c, l + b * c.lhs_batch_stride * operand_bytes, r + b * c.rhs_batch_stride * operand_bytes,
            o + b * c.output_batch_stride * out_bytes, block);
  };
  const int64_t units = c.batch_size * p.blocks();
  const double total_macs = Macs(c) * static_cast<double>(c.batch_size);
  if (units <= 1 || threading.pool == nullptr ||
      total_macs < static_cast<double>(threading.min_parallel_macs)) {
    for (int64_t i = 0; i < units; ++i) unit(i);
    return;
  }
  ParallelFor(*threading.pool, units, unit);
}

// f32 scratch for the widened operands and the product of a 16-bit GEMM,
// one set per calling thread, grown as needed and kept for the next call
// (pool threads only read and write it during the call that owns it).
struct HalfScratch {
  std::vector<float> lhs, rhs, out;
};

float* AtLeast(std::vector<float>& v, int64_t count) {
  if (static_cast<int64_t>(v.size()) < count) v.resize(count);
  return v.data();
}

// Elements an operand's batches span: (batch - 1) * stride + rows * cols.
int64_t Extent(int64_t batch, int64_t stride, int64_t matrix) {
  return (batch - 1) * stride + matrix;
}

// A 64-byte aligned unit of scratch.
struct alignas(64) Line {
  char bytes[64];
};

// At least `bytes` bytes of `v`, 64-byte aligned.
void* AtLeastBytes(std::vector<Line>& v, int64_t bytes) {
  const int64_t lines = (bytes + 63) / 64;
  if (static_cast<int64_t>(v.size()) < lines) v.resize(lines);
  return v.data();
}

// A block of a bf16 GEMM through `kernel` (bf16 operands, an f32
// product), with packing scratch of the thread running the block, kept for
// its next block; `packed` holds the operands packed whole by `kernel`.
void Bf16DotRows(const Bf16Kernel& kernel, const BlasGemmConfig& c, const void* lhs,
                 const void* rhs, const Bf16DotPacked& packed, void* product,
                 const HostGemmBlock& block) {
  thread_local std::vector<Line> scratch;
  kernel.block(c, static_cast<const uint16_t*>(lhs), static_cast<const uint16_t*>(rhs), packed,
               static_cast<float*>(product), block,
               AtLeastBytes(scratch, kernel.scratch_bytes(block.rows, block.cols, c.k)));
}

// The GEMM through Bf16DotRows, the blocks reading what `packed` holds.
void Bf16DotBlocks(const Bf16Kernel& kernel, const BlasGemmConfig& c, const void* lhs,
                   const void* rhs, const Bf16DotPacked& packed, float* product,
                   const HostGemmThreading& threading) {
  GemmWith(
      [&kernel, &packed](const BlasGemmConfig& config, const void* l, const void* r, void* o,
                         const HostGemmBlock& block) {
        Bf16DotRows(kernel, config, l, r, packed, o, block);
      },
      2, sizeof(float), c, lhs, rhs, product, threading);
}

// Blocks start on the kernel's panels, so they can read operands packed
// whole (and never need the unpacked operands then).
static_assert(kHostGemmRowQuantum % kBf16DotRows == 0 && kColumnQuantum % kBf16DotCols == 0 &&
                  kHostGemmRowQuantum % kBf16AmxPanel == 0 && kColumnQuantum % kBf16AmxPanel == 0,
              "row and column blocks start on bf16 kernel panels");

// Per calling thread: operands packed whole, kept for the next call (pool
// threads only read them during the call that owns them).
struct PackedScratch {
  std::vector<Line> lhs, rhs;
};

PackedScratch& ThreadPackedScratch() {
  thread_local PackedScratch scratch;
  return scratch;
}

// A bf16 GEMM (bf16 operands, f32 product) on the AVX512-BF16 or AMX kernel. One
// matrix cut into column blocks (bf16_mlp_b256_d1024's 256 x 1024 x 1024:
// 8 blocks) packs op(lhs) once here, on the calling thread, and every
// block reads it, instead of each block packing all of it again. Blocks
// compute each output from the same packed pairs in the same order either
// way, so the product is bitwise the same.
void Bf16DotGemm(const BlasGemmConfig& c, const void* lhs, const void* rhs, float* product,
                 const HostGemmThreading& threading) {
  const Bf16Kernel& kernel = Bf16KernelFor(c);
  Bf16DotPacked packed;
  if (c.batch_size == 1 && Partitioned(c, threading.min_parallel_macs).col_blocks > 1) {
    void* dst = AtLeastBytes(ThreadPackedScratch().lhs, kernel.packed_lhs_bytes(c.m, c.k));
    kernel.pack_lhs(c, static_cast<const uint16_t*>(lhs), dst);
    packed.lhs = dst;
  }
  Bf16DotBlocks(kernel, c, lhs, rhs, packed, product, threading);
}

// An f16 / bf16 GEMM into an f32 product (alpha 1, beta 0, batches packed),
// then alpha, beta and one rounding per output element. bf16 on a CPU with
// AVX512-BF16 multiplies the 16-bit operands directly (Bf16DotRows);
// otherwise each operand is widened to f32 once (gaps between batches
// included, so strides and transposes stay) for the f32 GEMM.
void HalfGemm(const HostGemmKernels& kernels, const HostGemmHalfConversions& half,
              const BlasGemmConfig& c, const void* lhs, const void* rhs, void* out,
              const HostGemmThreading& threading) {
  thread_local HalfScratch scratch;
  float* product = AtLeast(scratch.out, c.batch_size * c.m * c.n);
  BlasGemmConfig wide = c;
  wide.alpha = 1;
  wide.beta = 0;
  wide.output_batch_stride = c.m * c.n;
  if (c.element_type == BlasElementType::kBF16 && UseBf16Dot()) {
    Bf16DotGemm(wide, lhs, rhs, product, threading);
  } else {
    const int64_t lhs_count = Extent(c.batch_size, c.lhs_batch_stride, c.m * c.k);
    const int64_t rhs_count = Extent(c.batch_size, c.rhs_batch_stride, c.k * c.n);
    float* wide_lhs = AtLeast(scratch.lhs, lhs_count);
    float* wide_rhs = AtLeast(scratch.rhs, rhs_count);
    half.widen(lhs, wide_lhs, lhs_count);
    half.widen(rhs, wide_rhs, rhs_count);
    wide.element_type = BlasElementType::kF32;
    wide.lhs_type.reset();
    wide.rhs_type.reset();
    GemmWith(RowsFn(kernels, wide), sizeof(float), sizeof(float), wide, wide_lhs, wide_rhs, product,
             threading);
  }
  char* o = static_cast<char*>(out);
  for (int64_t b = 0; b < c.batch_size; ++b) {
    half.narrow(product + b * c.m * c.n, o + b * c.output_batch_stride * 2, c.m * c.n,
                static_cast<float>(c.alpha), static_cast<float>(c.beta));
  }
}

// Shares of the whole-operand packing from f32 a pool runs at once: the
// AMX kernel's tiles run so much faster than VDPBF16PS that one thread
// packing both operands took as long as the product (bf16_mlp_b256_d1024,
// docs/perf.md).
constexpr int64_t kPackShares = 8;

// kernel.pack_exact_f32 of `c`'s operands, spread over the pool where the
// kernel packs in shares and the GEMM is large enough to be spread. Every
// share runs even when another has found a value that is no bf16 (the
// first look in Bf16ValuedF32Gemm turns ordinary f32 GEMMs away earlier).
bool PackExactF32(const Bf16Kernel& kernel, const BlasGemmConfig& c, const void* lhs,
                  const void* rhs, void* packed_lhs, void* packed_rhs,
                  const HostGemmThreading& threading) {
  const float* l = static_cast<const float*>(lhs);
  const float* r = static_cast<const float*>(rhs);
  if (kernel.pack_exact_f32_share == nullptr || threading.pool == nullptr ||
      Macs(c) < static_cast<double>(threading.min_parallel_macs)) {
    return kernel.pack_exact_f32(c, l, r, packed_lhs, packed_rhs);
  }
  std::atomic<bool> exact{true};
  ParallelFor(*threading.pool, kPackShares, [&](int64_t share) {
    if (!kernel.pack_exact_f32_share(c, l, r, share, kPackShares, packed_lhs, packed_rhs)) {
      exact.store(false, std::memory_order_relaxed);
    }
  });
  return exact.load(std::memory_order_relaxed);
}

// An f32 GEMM (alpha 1, beta 0) whose operands all hold bf16 values that
// are not subnormal (a dot of converted bf16 operands: JAX's bf16 matmuls
// with an f32 result) runs the bf16 kernel straight into `out`: the same
// exact products and f32 sums, in another order (host_gemm_bf16_dot.h).
// One matrix has both operands checked and packed whole straight from f32
// (HostGemmBf16DotPackExactF32: one pass each, no narrowed copy); batches
// are narrowed once per call into per-thread scratch. Either check stops at
// the first panel or chunk that holds another value, so an ordinary f32
// GEMM pays for about one. Returns false, having written nothing to `out`,
// when the GEMM does not qualify.
bool Bf16ValuedF32Gemm(const BlasGemmConfig& c, const void* lhs, const void* rhs, void* out,
                       const HostGemmThreading& threading) {
  if (c.element_type != BlasElementType::kF32 || c.alpha != 1 || c.beta != 0 || !UseBf16Dot()) {
    return false;
  }
  // A first look at each operand's leading elements turns an ordinary f32
  // GEMM away before any packing (a tiny one, such as an LSTM step's GEMV,
  // would otherwise pay for packing a panel).
  constexpr int64_t kFirstLook = 1024;
  const int64_t lhs_count = Extent(c.batch_size, c.lhs_batch_stride, c.m * c.k);
  const int64_t rhs_count = Extent(c.batch_size, c.rhs_batch_stride, c.k * c.n);
  if (!HostGemmBf16ExactF32(static_cast<const float*>(lhs), std::min(lhs_count, kFirstLook)) ||
      !HostGemmBf16ExactF32(static_cast<const float*>(rhs), std::min(rhs_count, kFirstLook))) {
    return false;
  }
  BlasGemmConfig narrow = c;
  narrow.element_type = BlasElementType::kBF16;
  if (c.batch_size == 1) {
    // One matrix: both operands checked and packed whole in one pass each,
    // straight from f32; the blocks read them.
    const Bf16Kernel& kernel = Bf16KernelFor(c);
    PackedScratch& scratch = ThreadPackedScratch();
    void* packed_lhs = AtLeastBytes(scratch.lhs, kernel.packed_lhs_bytes(c.m, c.k));
    void* packed_rhs = AtLeastBytes(scratch.rhs, kernel.packed_rhs_bytes(c.n, c.k));
    if (!PackExactF32(kernel, c, lhs, rhs, packed_lhs, packed_rhs, threading)) return false;
    Bf16DotBlocks(kernel, narrow, nullptr, nullptr, Bf16DotPacked{packed_lhs, packed_rhs},
                  static_cast<float*>(out), threading);
    return true;
  }
  thread_local std::vector<uint16_t> narrow_lhs, narrow_rhs;
  if (static_cast<int64_t>(narrow_lhs.size()) < lhs_count) narrow_lhs.resize(lhs_count);
  if (static_cast<int64_t>(narrow_rhs.size()) < rhs_count) narrow_rhs.resize(rhs_count);
  if (!HostGemmNarrowExactBf16(static_cast<const float*>(lhs), narrow_lhs.data(), lhs_count) ||
      !HostGemmNarrowExactBf16(static_cast<const float*>(rhs), narrow_rhs.data(), rhs_count)) {
    return false;
  }
  Bf16DotGemm(narrow, narrow_lhs.data(), narrow_rhs.data(), static_cast<float*>(out), threading);
  return true;
}

}  // namespace

int64_t HostGemmWorkUnits(const BlasGemmConfig& config, int64_t min_parallel_macs) {
  return config.batch_size * Partitioned(config, min_parallel_macs).blocks();
}

absl::string_view HostGemmIsa() { return Kernels().isa; }

bool HostGemmBf16Dot() { return UseBf16Dot(); }

bool HostGemmBf16Amx() { return UseBf16Amx(); }

void DisableHostGemmBf16AmxForTesting(bool disabled) {
  bf16_amx_disabled_for_testing.store(disabled, std::memory_order_relaxed);
}

void DisableHostGemmBf16DotForTesting(bool disabled) {
  bf16_dot_disabled_for_testing.store(disabled, std::memory_order_relaxed);
}

void DisableHostGemmDirectForTesting(bool disabled) {
  direct_disabled_for_testing.store(disabled, std::memory_order_relaxed);
}

absl::Status HostGemm(const BlasGemmConfig& c, const void* lhs, const void* rhs, void* out) {
  return HostGemm(c, lhs, rhs, out, HostGemmThreading());
}

absl::Status HostGemm(const BlasGemmConfig& c, const void* lhs, const void* rhs, void* out,
                      const HostGemmThreading& threading) {
  if (IsBlasFp8Gemm(c)) {
    return absl::UnimplementedError(
        "host GEMM does not take fp8 operands or scales (the compiler widens fp8 dots for "
        "the host target; fp8 GEMMs run through cuBLASLt only)");
  }
  const HostGemmKernels& kernels = Kernels();
  if (const HostGemmHalfConversions* half = HalfConversions(kernels, c.element_type)) {
    HalfGemm(kernels, *half, c, lhs, rhs, out, threading);
    return absl::OkStatus();
  }
  if (Bf16ValuedF32Gemm(c, lhs, rhs, out, threading)) return absl::OkStatus();
  const HostGemmRowsFn fn = RowsFn(kernels, c);
  if (fn == nullptr) {
    return absl::UnimplementedError(absl::StrCat("host GEMM does not support element type ",
                                                 static_cast<int>(c.element_type)));
  }
  const int64_t bytes = BlasElementBytes(c.element_type);
  GemmWith(fn, bytes, bytes, c, lhs, rhs, out, threading);
  return absl::OkStatus();
}

}  // namespace stream_executor::host
