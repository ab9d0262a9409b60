// HostGemm throughput (issue 11): one thread against the host device's pool,
// f32, square GEMMs and a batched one. Reports GFLOP/s (2 m n k per batch).
//
//   bazel run -c opt //benchmarks:host_gemm_bench
//
// BM_HostGemm/<size>/<batch>/<mode>: mode 0 runs on the calling thread alone
// (row-blocked as HostGemm always is above the threshold), 1 on a pool of
// hardware_concurrency - 1 threads plus the caller (bitwise the same result),
// 2 on the calling thread with blocking off (one Eigen product per batch,
// the code before blocking existed: shows what the blocking itself costs).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <thread>
#include <vector>

#include "benchmark/benchmark.h"
#include "xla/stream_executor/host/host_gemm.h"
#include "xla/stream_executor/host/host_thread_pool.h"
#include "xla/util/logging.h"

namespace {

stream_executor::host::HostThreadPool& Pool() {
  static auto* pool = new stream_executor::host::HostThreadPool(
      std::max(1, static_cast<int>(std::thread::hardware_concurrency()) - 1));
  return *pool;
}

void BM_HostGemm(benchmark::State& state) {
  const int64_t size = state.range(0);
  const int64_t batch = state.range(1);
  const bool pooled = state.range(2) == 1;
  const bool unblocked = state.range(2) == 2;
  stream_executor::BlasGemmConfig c;
  c.m = c.n = c.k = size;
  c.batch_size = batch;
  c.lhs_batch_stride = c.rhs_batch_stride = c.output_batch_stride = size * size;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> lhs(batch * size * size), rhs(batch * size * size), out(batch * size * size);
  for (float& x : lhs) x = dist(rng);
  for (float& x : rhs) x = dist(rng);
  stream_executor::host::HostGemmThreading threading;
  if (pooled) threading.pool = &Pool();
  if (unblocked) threading.min_parallel_macs = std::numeric_limits<int64_t>::max();
  for (auto _ : state) {
    XLA_CHECK(stream_executor::host::HostGemm(c, lhs.data(), rhs.data(), out.data(), threading).ok());
    benchmark::DoNotOptimize(out.data());
  }
  const double flops = 2.0 * static_cast<double>(size) * size * size * batch;
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["units"] = static_cast<double>(
      stream_executor::host::HostGemmWorkUnits(c, threading.min_parallel_macs));
  state.counters["threads"] = pooled ? Pool().num_threads() + 1 : 1;
}
BENCHMARK(BM_HostGemm)
    ->ArgsProduct({{64, 256, 1024}, {1}, {0, 1, 2}})
    ->ArgsProduct({{128}, {16}, {0, 1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
