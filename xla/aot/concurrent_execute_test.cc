// Many threads call Execute on one executable at once (run it under
// --config=tsan as well): every run must compute its own, correct result.
// On the host platform, and on the fake CUDA driver with CUDA graphs (each
// concurrent run updates and launches its own instantiated graphs).
#include <random>
#include <thread>

#include "gtest/gtest.h"
#include "xla/aot/cuda_graph_test_util.h"
#include "xla/aot/executable.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/stream_executor/cuda/cuda_platform.h"
#include "xla/stream_executor/cuda/fake_cuda_driver.h"

namespace xla::aot {
namespace {

namespace se = ::stream_executor;

// out0 = x + y (stream 0) and out1 = 2x (stream 1, async), both read back.
const char kArtifact[] = R"pb(
payload {
  module_name: "concurrent"
  num_streams: 2
  program_shape {
    parameters { element_type: PRIMITIVE_TYPE_F32 dimensions: 64 }
    parameters { element_type: PRIMITIVE_TYPE_F32 dimensions: 64 }
    result { element_type: PRIMITIVE_TYPE_TUPLE
             tuple_shapes { element_type: PRIMITIVE_TYPE_F32 dimensions: 64 }
             tuple_shapes { element_type: PRIMITIVE_TYPE_F32 dimensions: 64 } }
  }
  kernels { name: "add" host_symbol: "add_f32" }
  kernels { name: "scale" host_symbol: "scale2_f32" }
  allocations { index: 0 size: 256 is_parameter: true parameter_number: 0 }
  allocations { index: 1 size: 256 is_parameter: true parameter_number: 1 }
  allocations { index: 2 size: 256 is_output: true }
  allocations { index: 3 size: 256 is_output: true }
  allocations { index: 4 size: 256 is_temp: true }
  outputs { shape_index: 0 slice { allocation: 2 size: 256 } }
  outputs { shape_index: 1 slice { allocation: 3 size: 256 } }
  thunks { async_start { async_id: 1 stream_id: 1 thunks {
    thunks { execution_stream_id: 1 kernel { kernel_index: 1 args { allocation: 0 size: 256 } args { allocation: 4 size: 256 }
             launch_dimensions { grid_x: 64 grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 block_z: 1 } } } } } }
  thunks { kernel { kernel_index: 0 args { allocation: 0 size: 256 } args { allocation: 1 size: 256 } args { allocation: 2 size: 256 }
           launch_dimensions { grid_x: 64 grid_y: 1 grid_z: 1 block_x: 1 block_y: 1 block_z: 1 } } }
  thunks { async_done { async_id: 1 } }
  thunks { copy { source { allocation: 4 size: 256 } destination { allocation: 3 size: 256 } } }
}
)pb";

// Runs `iterations` executions with thread-specific inputs; returns the
// number of wrong results (or -1 on an error).
int Worker(Executable* exe, se::StreamExecutor* executor, int thread, int iterations) {
  auto stream = executor->CreateStream();
  if (!stream.ok()) return -1;
  int wrong = 0;
  for (int it = 0; it < iterations; ++it) {
    std::vector<float> x(64), y(64);
    for (int i = 0; i < 64; ++i) {
      x[i] = thread * 1000 + it + i;
      y[i] = -thread - i * 0.5f;
    }
    auto xd = se::OwningDeviceMemory::Allocate(executor, 256);
    auto yd = se::OwningDeviceMemory::Allocate(executor, 256);
    if (!xd.ok() || !yd.ok()) return -1;
    if (!(*stream)->Memcpy(xd->ptr(), x.data(), 256).ok() || !(*stream)->Memcpy(yd->ptr(), y.data(), 256).ok() ||
        !(*stream)->BlockHostUntilDone().ok()) {
      return -1;
    }
    std::vector<ExecutionArgument> args;
    args.push_back(ExecutionArgument::Borrow(xd->get()));
    args.push_back(ExecutionArgument::Donate(std::move(*yd)));
    auto out = exe->Execute(executor, std::move(args));
    if (!out.ok()) return -1;
    std::vector<float> sum(64), twice(64);
    if (!(*stream)->Memcpy(sum.data(), (*out)[0].get(), 256).ok() ||
        !(*stream)->Memcpy(twice.data(), (*out)[1].get(), 256).ok() || !(*stream)->BlockHostUntilDone().ok()) {
      return -1;
    }
    for (int i = 0; i < 64; ++i) {
      wrong += sum[i] != x[i] + y[i];
      wrong += twice[i] != 2 * x[i];
    }
  }
  return wrong;
}

TEST(ConcurrentExecute, ManyThreadsOneExecutable) {
  se::StreamExecutor* executor = gpu::testing::HostExecutor();
  auto exe = Executable::LoadFromBytes(gpu::testing::SerializeArtifact(gpu::testing::MakeArtifact(kArtifact)));
  ASSERT_TRUE(exe.ok()) << exe.status();
  constexpr int kThreads = 6;
  std::vector<int> results(kThreads, -2);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // Concurrent Initialize for the same device is allowed too.
      if (!(*exe)->Initialize(executor).ok()) {
        results[t] = -1;
        return;
      }
      results[t] = Worker(exe->get(), executor, t, 20);
    });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(results[t], 0) << "thread " << t;
}

// out0 = (x + y) * x and out1 = x + y + 1 (cuda_graph_test_util.h), one
// graph of five nodes. Each thread's runs use fresh buffers, so every run
// updates the kernel nodes of the graphs it took; a graph shared between
// two runs (or an update lost) shows as a wrong result.
int GraphWorker(Executable* exe, se::StreamExecutor* executor, int thread, int iterations) {
  constexpr int n = testing::kGraphElems;
  constexpr uint64_t bytes = n * sizeof(float);
  auto stream = executor->CreateStream();
  if (!stream.ok()) return -1;
  int wrong = 0;
  for (int it = 0; it < iterations; ++it) {
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) {
      x[i] = 0.5f * thread + 0.25f * it + i;
      y[i] = -0.75f * thread + 2.0f * i - it;
    }
    auto xd = se::OwningDeviceMemory::Allocate(executor, bytes);
    auto yd = se::OwningDeviceMemory::Allocate(executor, bytes);
    if (!xd.ok() || !yd.ok()) return -1;
    if (!(*stream)->Memcpy(xd->ptr(), x.data(), bytes).ok() || !(*stream)->Memcpy(yd->ptr(), y.data(), bytes).ok() ||
        !(*stream)->BlockHostUntilDone().ok()) {
      return -1;
    }
    std::vector<ExecutionArgument> args;
    args.push_back(ExecutionArgument::Borrow(xd->get()));
    args.push_back(ExecutionArgument::Borrow(yd->get()));
    auto out = exe->Execute(executor, std::move(args));
    if (!out.ok()) return -1;
    std::vector<float> product(n), sum1(n);
    if (!(*stream)->Memcpy(product.data(), (*out)[0].get(), bytes).ok() ||
        !(*stream)->Memcpy(sum1.data(), (*out)[1].get(), bytes).ok() || !(*stream)->BlockHostUntilDone().ok()) {
      return -1;
    }
    for (int i = 0; i < n; ++i) {
      // Exact in float: small integers and quarters.
      wrong += product[i] != (x[i] + y[i]) * x[i];
      wrong += sum1[i] != (x[i] + y[i]) + 1.0f;
    }
  }
  return wrong;
}

TEST(ConcurrentExecute, SixteenThreadsOneExecutableWithCudaGraphs) {
  se::cuda::FakeCudaDriver driver;
  testing::RegisterGraphKernels(driver);
  {
    se::cuda::CudaPlatform platform(&driver.api());
    absl::StatusOr<se::StreamExecutor*> executor = platform.GetDevice(0);
    ASSERT_TRUE(executor.ok()) << executor.status();
    auto exe = Executable::LoadFromBytes(testing::GraphArtifactBytes());
    ASSERT_TRUE(exe.ok()) << exe.status();
    constexpr int kThreads = 16;
    constexpr int kIterations = 6;
    std::vector<int> results(kThreads, -2);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        if (!(*exe)->Initialize(*executor).ok()) {
          results[t] = -1;
          return;
        }
        results[t] = GraphWorker(exe->get(), *executor, t, kIterations);
      });
    }
    for (std::thread& t : threads) t.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(results[t], 0) << "thread " << t;
    absl::StatusOr<CudaGraphStats> stats = (*exe)->graph_stats(*executor);
    ASSERT_TRUE(stats.ok()) << stats.status();
    // Every run went through a graph: one launch each, no plain launches.
    EXPECT_TRUE(stats->supported) << stats->note;
    EXPECT_EQ(driver.calls("cuGraphLaunch"), kThreads * kIterations);
    EXPECT_EQ(driver.calls("cuLaunchKernel"), 0);
    // One instantiated graph per resource set: at least one, at most one
    // per thread (the runs that overlapped).
    EXPECT_GE(stats->instantiated, 1);
    EXPECT_LE(stats->instantiated, kThreads);
    EXPECT_EQ(driver.live_graph_execs(), stats->instantiated);
  }
  EXPECT_EQ(driver.live_graph_execs(), 0);
  EXPECT_EQ(driver.live_graphs(), 0);
}

}  // namespace
}  // namespace xla::aot
