#include "xla/stream_executor/host/host_gemm.h"

#include <algorithm>
#include <memory>
#include <initializer_list>
#include <set>
#include <string>
#include <cstdlib>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "xla/stream_executor/host/host_gemm_kernels.h"
#include "xla/stream_executor/host/cpu_features.h"
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

// The kernels this process runs: the widest the CPU (and OS) runs, at most
// the one XLA_HOST_GEMM_ISA names ("sse2" or "avx2"; to compare them).
const HostGemmKernels& Kernels() {
  static const HostGemmKernels* const chosen = []() -> const HostGemmKernels* {
    const char* env = std::getenv("XLA_HOST_GEMM_ISA");
    const absl::string_view cap = env == nullptr ? "" : env;
    if (cap == "sse2") return &HostGemmKernelsBaseline();
    if (cap != "avx2" && CpuHas({"avx512f", "avx512dq", "avx512vl", "avx512bw"})) {
      return &HostGemmKernelsAvx512();
    }
    if (CpuHas({"avx2", "fma"})) return &HostGemmKernelsAvx2Fma();
    return &HostGemmKernelsBaseline();
  }();
  return *chosen;
}

// The f32 / f64 kernel of `kernels` for `type`; null for others.
HostGemmRowsFn RowsFn(const HostGemmKernels& kernels, BlasElementType type) {
  if (type == BlasElementType::kF32) return kernels.f32;
  if (type == BlasElementType::kF64) return kernels.f64;
  return nullptr;
}

// The conversions of a 16-bit float type; null for others.
const HostGemmHalfConversions* HalfConversions(const HostGemmKernels& kernels,
                                               BlasElementType type) {
  if (type == BlasElementType::kF16) return &kernels.f16;
  if (type == BlasElementType::kBF16) return &kernels.bf16;
  return nullptr;
}

void GemmWith(HostGemmRowsFn rows_fn, int64_t element_bytes, const BlasGemmConfig& c,
              const void* lhs, const void* rhs, void* out, const HostGemmThreading& threading) {
  const char* l = static_cast<const char*>(lhs);
  const char* r = static_cast<const char*>(rhs);
  char* o = static_cast<char*>(out);
  const Partition p = Partitioned(c, threading.min_parallel_macs);
  auto unit = [&](int64_t i) {
    const int64_t b = i / p.blocks();
    const int64_t rb = (i % p.blocks()) / p.col_blocks;
    const int64_t cb = i % p.col_blocks;
    HostGemmBlock block;
    block.row0 = rb * p.rows_per_block;
    block.rows = std::min(p.rows_per_block, c.m - block.row0);
    block.col0 = cb * p.cols_per_block;
    block.cols = std::min(p.cols_per_block, c.n - block.col0);
    rows_fn(c, l + b * c.lhs_batch_stride * element_bytes, r + b * c.rhs_batch_stride * element_bytes,
            o + b * c.output_batch_stride * element_bytes, block);
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

// An f16 / bf16 GEMM: each operand widened to f32 once (gaps between
// batches included, so strides and transposes stay), the f32 GEMM into an
// f32 product, then alpha, beta and one rounding per output element.
void HalfGemm(const HostGemmKernels& kernels, const HostGemmHalfConversions& half,
              const BlasGemmConfig& c, const void* lhs, const void* rhs, void* out,
              const HostGemmThreading& threading) {
  thread_local HalfScratch scratch;
  const int64_t lhs_count = Extent(c.batch_size, c.lhs_batch_stride, c.m * c.k);
  const int64_t rhs_count = Extent(c.batch_size, c.rhs_batch_stride, c.k * c.n);
  float* wide_lhs = AtLeast(scratch.lhs, lhs_count);
  float* wide_rhs = AtLeast(scratch.rhs, rhs_count);
  float* product = AtLeast(scratch.out, c.batch_size * c.m * c.n);
  half.widen(lhs, wide_lhs, lhs_count);
  half.widen(rhs, wide_rhs, rhs_count);
  BlasGemmConfig wide = c;
  wide.element_type = BlasElementType::kF32;
  wide.lhs_type.reset();
  wide.rhs_type.reset();
  wide.alpha = 1;
  wide.beta = 0;
  wide.output_batch_stride = c.m * c.n;
  GemmWith(kernels.f32, sizeof(float), wide, wide_lhs, wide_rhs, product, threading);
  char* o = static_cast<char*>(out);
  for (int64_t b = 0; b < c.batch_size; ++b) {
    half.narrow(product + b * c.m * c.n, o + b * c.output_batch_stride * 2, c.m * c.n,
                static_cast<float>(c.alpha), static_cast<float>(c.beta));
  }
}

}  // namespace

int64_t HostGemmWorkUnits(const BlasGemmConfig& config, int64_t min_parallel_macs) {
  return config.batch_size * Partitioned(config, min_parallel_macs).blocks();
}

absl::string_view HostGemmIsa() { return Kernels().isa; }

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
  const HostGemmRowsFn fn = RowsFn(kernels, c.element_type);
  if (fn == nullptr) {
    return absl::UnimplementedError(absl::StrCat("host GEMM does not support element type ",
                                                 static_cast<int>(c.element_type)));
  }
  GemmWith(fn, BlasElementBytes(c.element_type), c, lhs, rhs, out, threading);
  return absl::OkStatus();
}

}  // namespace stream_executor::host
