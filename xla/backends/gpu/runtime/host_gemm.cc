#include "xla/backends/gpu/runtime/host_gemm.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <type_traits>

#include "Eigen/Core"
#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"

namespace xla::gpu {
namespace {

template <typename T>
using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using StridedMap = Eigen::Map<const RowMajor<T>, Eigen::Unaligned, Eigen::OuterStride<>>;

// Rows [row0, row0 + rows) of op(lhs) x op(rhs) for one batch, with inputs in
// Storage and arithmetic in Acc. The single-threaded path is row0 = 0,
// rows = m; every block runs the same expression types.
template <typename Storage, typename Acc>
void GemmRows(const GemmConfig& c, const Storage* lhs, const Storage* rhs, Storage* out,
              int64_t row0, int64_t rows) {
  // op(lhs) rows are stored rows (row-major m x k) or stored columns (k x m).
  StridedMap<Storage> l =
      c.transpose_lhs
          ? StridedMap<Storage>(lhs + row0, c.k, rows, Eigen::OuterStride<>(c.m))
          : StridedMap<Storage>(lhs + row0 * c.k, rows, c.k, Eigen::OuterStride<>(c.k));
  const int64_t rhs_rows = c.transpose_rhs ? c.n : c.k;
  const int64_t rhs_cols = c.transpose_rhs ? c.k : c.n;
  Eigen::Map<const RowMajor<Storage>> r(rhs, rhs_rows, rhs_cols);
  Eigen::Map<RowMajor<Storage>> o(out + row0 * c.n, rows, c.n);
  // Same-type operands are used in place; others are converted once.
  using Lhs = std::conditional_t<std::is_same_v<Storage, Acc>, const StridedMap<Storage>&,
                                 const RowMajor<Acc>>;
  using Rhs = std::conditional_t<std::is_same_v<Storage, Acc>,
                                 const Eigen::Map<const RowMajor<Storage>>&, const RowMajor<Acc>>;
  Lhs lhs_acc = l.template cast<Acc>();
  Rhs rhs_acc = r.template cast<Acc>();
  RowMajor<Acc> product;
  if (c.transpose_lhs && c.transpose_rhs) {
    product = lhs_acc.transpose() * rhs_acc.transpose();
  } else if (c.transpose_lhs) {
    product = lhs_acc.transpose() * rhs_acc;
  } else if (c.transpose_rhs) {
    product = lhs_acc * rhs_acc.transpose();
  } else {
    product = lhs_acc * rhs_acc;
  }
  const Acc alpha = static_cast<Acc>(c.alpha);
  const Acc beta = static_cast<Acc>(c.beta);
  if (c.beta == 0) {
    o = (alpha * product).template cast<Storage>();
  } else {
    o = (alpha * product + beta * o.template cast<Acc>()).template cast<Storage>();
  }
}

// How a GEMM is cut: batch_size x row_blocks units of rows_per_block rows
// (the last block of a batch takes the rest). Depends on the sizes and
// min_parallel_macs only, never on the pool, so the result does not either.
struct Partition {
  int64_t row_blocks = 1;
  int64_t rows_per_block = 1;
};

// About this many units (batches x row blocks) at most: each block re-packs the
// whole rhs, so smaller blocks cost more (48-row blocks of a 1024^3 GEMM took
// 15% more CPU than one product; 96-row blocks about half that).
constexpr int64_t kMaxRowBlocks = 16;

double Macs(const GemmConfig& c) {
  return static_cast<double>(c.m) * static_cast<double>(c.n) * static_cast<double>(c.k);
}

Partition Partitioned(const GemmConfig& c, int64_t min_parallel_macs) {
  Partition p;
  p.rows_per_block = c.m;
  if (Macs(c) < static_cast<double>(min_parallel_macs) || c.m < 2 * kHostGemmRowQuantum) return p;
  // Batches are units already: cut rows only as far as kMaxRowBlocks units.
  const int64_t target = std::max<int64_t>(1, (kMaxRowBlocks + c.batch_size - 1) / c.batch_size);
  if (target == 1) return p;
  const int64_t rows = (c.m + target - 1) / target;
  p.rows_per_block = std::max(kHostGemmRowQuantum, (rows + kHostGemmRowQuantum - 1) /
                                                       kHostGemmRowQuantum * kHostGemmRowQuantum);
  p.row_blocks = (c.m + p.rows_per_block - 1) / p.rows_per_block;
  return p;
}

// Runs run(0), ..., run(units - 1) on the caller and up to units - 1 pool
// threads. Units are claimed from a shared counter, so the caller finishes
// alone if the pool is busy, and waits only for units already claimed.
void ParallelFor(stream_executor::host::HostThreadPool& pool, int64_t units,
                 absl::FunctionRef<void(int64_t)> run) {
  struct Shared {
    std::atomic<int64_t> next{0};
    std::mutex mu;
    std::condition_variable all_done;
    int64_t finished = 0;  // guarded by mu
  };
  auto shared = std::make_shared<Shared>();
  const int64_t total = units;
  // `run` lives on the caller's stack; a helper only calls it for a claimed
  // unit, and the caller waits for every claimed unit.
  auto work = [shared, total, run]() {
    int64_t done = 0;
    for (int64_t i = shared->next.fetch_add(1); i < total; i = shared->next.fetch_add(1)) {
      run(i);
      ++done;
    }
    if (done == 0) return;
    std::lock_guard<std::mutex> lock(shared->mu);
    shared->finished += done;
    if (shared->finished == total) shared->all_done.notify_all();
  };
  const int64_t helpers = std::min<int64_t>(units - 1, pool.num_threads());
  for (int64_t h = 0; h < helpers; ++h) pool.Schedule(work);
  work();
  std::unique_lock<std::mutex> lock(shared->mu);
  shared->all_done.wait(lock, [&] { return shared->finished == total; });
}

template <typename Storage, typename Acc>
void GemmTyped(const GemmConfig& c, const void* lhs, const void* rhs, void* out,
               const HostGemmThreading& threading) {
  const Storage* l = static_cast<const Storage*>(lhs);
  const Storage* r = static_cast<const Storage*>(rhs);
  Storage* o = static_cast<Storage*>(out);
  const Partition p = Partitioned(c, threading.min_parallel_macs);
  auto unit = [&](int64_t i) {
    const int64_t b = i / p.row_blocks;
    const int64_t row0 = (i % p.row_blocks) * p.rows_per_block;
    const int64_t rows = std::min(p.rows_per_block, c.m - row0);
    GemmRows<Storage, Acc>(c, l + b * c.lhs_batch_stride, r + b * c.rhs_batch_stride,
                           o + b * c.output_batch_stride, row0, rows);
  };
  const int64_t units = c.batch_size * p.row_blocks;
  const double total_macs = Macs(c) * static_cast<double>(c.batch_size);
  if (units <= 1 || threading.pool == nullptr ||
      total_macs < static_cast<double>(threading.min_parallel_macs)) {
    for (int64_t i = 0; i < units; ++i) unit(i);
    return;
  }
  ParallelFor(*threading.pool, units, unit);
}

}  // namespace

bool IsSupportedGemmType(PrimitiveType type) {
  return type == PrimitiveType::F16 || type == PrimitiveType::BF16 || type == PrimitiveType::F32 ||
         type == PrimitiveType::F64;
}

int64_t HostGemmWorkUnits(const GemmConfig& config, int64_t min_parallel_macs) {
  return config.batch_size * Partitioned(config, min_parallel_macs).row_blocks;
}

absl::Status HostGemm(const GemmConfig& c, const void* lhs, const void* rhs, void* out) {
  return HostGemm(c, lhs, rhs, out, HostGemmThreading());
}

absl::Status HostGemm(const GemmConfig& c, const void* lhs, const void* rhs, void* out,
                      const HostGemmThreading& threading) {
  // Ifs, not a switch: the other 30 element types are all "unsupported".
  if (c.element_type == PrimitiveType::F32) {
    GemmTyped<float, float>(c, lhs, rhs, out, threading);
  } else if (c.element_type == PrimitiveType::F64) {
    GemmTyped<double, double>(c, lhs, rhs, out, threading);
  } else if (c.element_type == PrimitiveType::F16) {
    GemmTyped<Eigen::half, float>(c, lhs, rhs, out, threading);
  } else if (c.element_type == PrimitiveType::BF16) {
    GemmTyped<Eigen::bfloat16, float>(c, lhs, rhs, out, threading);
  } else {
    return absl::UnimplementedError(absl::StrCat("host GEMM does not support element type ",
                                                 PrimitiveTypeName(c.element_type)));
  }
  return absl::OkStatus();
}

}  // namespace xla::gpu
