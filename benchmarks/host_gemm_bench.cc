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
//
// BM_HostGemmShape/<m>/<n>/<k>/<batch>/<type>: the shapes of the broad
// set's slow GEMMs (issue 27) on the pool; type 0 f32, 1 bf16, 2 f16, 3
// bf16 with the AVX512-BF16 kernel off (the widen-then-f32 fallback).
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

// The shape on the pool, operands filled with 16-bit words 0x3c00: 1.0 in
// f16, 2^-7 in bf16, and about 0.0078 for each pair read as an f32 (finite
// normal numbers in every type, so no denormal or NaN slows a kernel).
void BM_HostGemmShape(benchmark::State& state) {
  const stream_executor::BlasElementType types[] = {
      stream_executor::BlasElementType::kF32, stream_executor::BlasElementType::kBF16,
      stream_executor::BlasElementType::kF16, stream_executor::BlasElementType::kBF16};
  stream_executor::host::DisableHostGemmBf16DotForTesting(state.range(4) == 3);
  stream_executor::BlasGemmConfig c;
  c.m = state.range(0);
  c.n = state.range(1);
  c.k = state.range(2);
  c.batch_size = state.range(3);
  c.element_type = types[state.range(4)];
  c.lhs_batch_stride = c.m * c.k;
  c.rhs_batch_stride = c.k * c.n;
  c.output_batch_stride = c.m * c.n;
  const int64_t bytes = stream_executor::BlasElementBytes(c.element_type);
  std::vector<uint16_t> lhs(c.batch_size * c.m * c.k * bytes / 2, 0x3c00);
  std::vector<uint16_t> rhs(c.batch_size * c.k * c.n * bytes / 2, 0x3c00);
  std::vector<uint16_t> out(c.batch_size * c.m * c.n * bytes / 2);
  stream_executor::host::HostGemmThreading threading;
  threading.pool = &Pool();
  for (auto _ : state) {
    XLA_CHECK(stream_executor::host::HostGemm(c, lhs.data(), rhs.data(), out.data(), threading).ok());
    benchmark::DoNotOptimize(out.data());
  }
  const double flops = 2.0 * static_cast<double>(c.m) * c.n * c.k * c.batch_size;
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["units"] = static_cast<double>(
      stream_executor::host::HostGemmWorkUnits(c, threading.min_parallel_macs));
}
BENCHMARK(BM_HostGemmShape)
    ->Args({256, 1024, 1024, 1, 0})  // bf16_mlp_b256_d1024's GEMMs, in f32
    ->Args({256, 1024, 1024, 1, 1})  // and in bf16
    ->Args({256, 512, 512, 1, 2})    // f16_mlp_b256_d512's
    ->Args({256, 1024, 1024, 1, 3})  // bf16 widened
    ->Args({512, 512, 512, 1, 1})
    ->Args({512, 512, 512, 1, 3})
    ->Args({128, 64, 128, 16, 0})    // attention's probabilities x V
    ->Args({128, 128, 64, 16, 0})    // and its scores
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
// One step of lstm_scan_t256_b1_h32 (its input and recurrent GEMVs) and of
// lstm_scan_t64_b16_h128: small enough that the call's fixed cost counts.
BENCHMARK(BM_HostGemmShape)
    ->Args({1, 128, 16, 1, 0})
    ->Args({1, 128, 32, 1, 0})
    ->Args({16, 512, 128, 1, 0})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// BM_HostGemmSmall/<m>/<n>/<k>/<batch>/<transpose>/<direct>: small f32
// GEMMs of the LSTM and KV-cache decode loops (issue 27) on the pool, with
// the direct kernel (1) or Eigen's packed product (0); transpose 1 is a
// transposed lhs, 2 a transposed rhs (which HostGemm keeps on Eigen either
// way: those pairs measure the noise). Both paths alternate in one process.
void BM_HostGemmSmall(benchmark::State& state) {
  stream_executor::BlasGemmConfig c;
  c.m = state.range(0);
  c.n = state.range(1);
  c.k = state.range(2);
  c.batch_size = state.range(3);
  c.transpose_lhs = state.range(4) == 1;
  c.transpose_rhs = state.range(4) == 2;
  c.lhs_batch_stride = c.m * c.k;
  c.rhs_batch_stride = c.k * c.n;
  c.output_batch_stride = c.m * c.n;
  stream_executor::host::DisableHostGemmDirectForTesting(state.range(5) == 0);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> lhs(c.batch_size * c.m * c.k), rhs(c.batch_size * c.k * c.n);
  std::vector<float> out(c.batch_size * c.m * c.n);
  for (float& x : lhs) x = dist(rng);
  for (float& x : rhs) x = dist(rng);
  stream_executor::host::HostGemmThreading threading;
  threading.pool = &Pool();
  for (auto _ : state) {
    XLA_CHECK(stream_executor::host::HostGemm(c, lhs.data(), rhs.data(), out.data(), threading).ok());
    benchmark::DoNotOptimize(out.data());
  }
  stream_executor::host::DisableHostGemmDirectForTesting(false);
  const double flops = 2.0 * static_cast<double>(c.m) * c.n * c.k * c.batch_size;
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
void SmallShapes(benchmark::internal::Benchmark* b) {
  const int64_t shapes[][5] = {
      {1, 128, 16, 1, 0},   // lstm_scan_t256_b1_h32's GEMVs
      {1, 128, 32, 1, 0},
      {16, 512, 64, 1, 0},  // lstm_scan_t64_b16_h128's
      {16, 512, 128, 1, 0},
      {8, 256, 32, 1, 0},   // lstm_train_t32_b8_h64's forward
      {8, 256, 64, 1, 0},
      {8, 64, 256, 1, 2},   // and its gradients
      {256, 64, 8, 1, 1},
      {1, 128, 128, 1, 0},  // kv_decode_steps32_b1_t128_d128's projections
      {1, 128, 32, 4, 2},   // and its scores
      {128, 64, 128, 16, 0},  // attention's probabilities x V: 2^20 per matrix, the bound
      {64, 64, 64, 1, 0},
      {33, 257, 17, 1, 0},
  };
  for (const auto& s : shapes) {
    for (int64_t direct : {0, 1}) b->Args({s[0], s[1], s[2], s[3], s[4], direct});
  }
}
BENCHMARK(BM_HostGemmSmall)->Apply(SmallShapes)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
