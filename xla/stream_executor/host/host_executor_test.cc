// Host-specific behaviour beyond the conformance suite: limits, pool size,
// how launches are split, unloading, registration, and misuse that the
// interface only documents.
#include "xla/stream_executor/host/host_executor.h"

#include <atomic>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/stream_executor/host/block_partition.h"
#include "xla/stream_executor/host/host_launch.h"
#include "xla/stream_executor/host/host_platform.h"
#include "xla/stream_executor/host/test_kernel_files.h"
#include "xla/stream_executor/owning_device_memory.h"
#include "xla/stream_executor/platform_registry.h"

namespace stream_executor::host {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<KernelModule> LoadTestKernels(StreamExecutor& executor,
                                              const std::string& name) {
  absl::StatusOr<std::string> bytes = ReadTestKernels();
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  if (!bytes.ok()) return nullptr;
  auto module = executor.LoadKernelModule(name, *bytes);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? std::move(module).value() : nullptr;
}

std::string ReadMaps() {
  std::ifstream maps("/proc/self/maps");
  std::ostringstream text;
  text << maps.rdbuf();
  return text.str();
}

TEST(HostExecutorTest, LimitsDescribeTheHost) {
  HostExecutor executor;
  const DeviceLimits& limits = executor.limits();
  EXPECT_EQ(limits.compute_capability, "host");
  EXPECT_EQ(limits.warp_size, 1);
  EXPECT_EQ(limits.shared_memory_per_block, 0);
  EXPECT_EQ(limits.max_threads_per_block, 1024);
  EXPECT_EQ(limits.max_grid_dims.y, 65535);
  EXPECT_GT(limits.memory_size, uint64_t{1} << 26);
  EXPECT_EQ(executor.platform_name(), "host");
}

TEST(HostExecutorTest, PoolSizeIsConfigurable) {
  EXPECT_EQ(HostExecutor(HostExecutorOptions{3}).num_pool_threads(), 3);
  const int hardware = static_cast<int>(std::thread::hardware_concurrency());
  EXPECT_EQ(HostExecutor().num_pool_threads(), std::max(hardware - 1, 1));
}

TEST(HostExecutorTest, LaunchCallsTheKernelOncePerRange) {
  HostExecutor executor(HostExecutorOptions{3});
  auto module = LoadTestKernels(executor, "calls");
  ASSERT_NE(module, nullptr);
  auto kernel = module->GetKernel("count_calls");
  ASSERT_TRUE(kernel.ok());
  auto stream = executor.CreateStream();
  ASSERT_TRUE(stream.ok());
  auto calls = OwningDeviceMemory::Allocate(&executor, 8);
  ASSERT_TRUE(calls.ok());
  for (int64_t blocks : {1, 3, 10, 1000, 65536 * 3 + 1}) {
    int64_t count = -1;
    LaunchDimensions dims;
    dims.grid.x = blocks;
    ASSERT_TRUE((*stream)->MemZero(calls->ptr(), 8).ok());
    ASSERT_TRUE((*stream)->Launch(**kernel, dims, {calls->get()}).ok());
    ASSERT_TRUE((*stream)->Memcpy(&count, calls->get(), 8).ok());
    ASSERT_TRUE((*stream)->BlockHostUntilDone().ok());
    // 3 pool threads + the stream thread; ranges grow with the grid. Fewer
    // than kMinSharedBlocks blocks are one call on the calling thread.
    const int64_t expected =
        blocks < kMinSharedBlocks ? 1 : static_cast<int64_t>(PartitionBlocks(blocks, 4).size());
    EXPECT_EQ(count, expected) << blocks << " blocks";
    EXPECT_LE(count, 4 * kRangesPerWorker);
  }
}

TEST(HostExecutorTest, UnloadingUnmapsTheModule) {
  HostExecutor executor;
  auto module = LoadTestKernels(executor, "maps_probe");
  ASSERT_NE(module, nullptr);
  auto kernel = module->GetKernel("saxpy_f32");
  ASSERT_TRUE(kernel.ok());
  EXPECT_THAT(ReadMaps(), HasSubstr("xla_kernel_module:maps_probe"));
  module.reset();
  // The kernel still holds the code.
  EXPECT_THAT(ReadMaps(), HasSubstr("xla_kernel_module:maps_probe"));
  kernel->reset();
  EXPECT_THAT(ReadMaps(), ::testing::Not(HasSubstr("xla_kernel_module:maps_probe")));
}

// Host memory for host-space buffers: ordinary memory that the streams
// copy to and from like device memory, counted apart, refused cleanly
// (ResourceExhausted, no exception) beyond the machine's memory.
TEST(HostExecutorTest, AllocateHostIsCountedAndFailsCleanly) {
  HostExecutor executor;
  absl::StatusOr<void*> memory = executor.AllocateHost(300);
  ASSERT_TRUE(memory.ok()) << memory.status();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(*memory) % StreamExecutor::kAllocationAlignment, 0u);
  EXPECT_EQ(executor.host_allocated_bytes(), 300u);
  EXPECT_EQ(executor.host_allocation_count(), 1u);
  EXPECT_EQ(executor.allocated_bytes(), 0u);  // not device memory
  auto* floats = static_cast<float*>(*memory);
  for (int i = 0; i < 75; ++i) floats[i] = 0.5f * i - 9;
  absl::StatusOr<OwningDeviceMemory> device = OwningDeviceMemory::Allocate(&executor, 300);
  ASSERT_TRUE(device.ok());
  absl::StatusOr<std::unique_ptr<Stream>> stream = executor.CreateStream();
  ASSERT_TRUE(stream.ok());
  std::vector<float> back(75, 0);
  ASSERT_TRUE((*stream)->Memcpy(device->ptr(), *memory, 300).ok());
  ASSERT_TRUE((*stream)->Memcpy(back.data(), device->get(), 300).ok());
  ASSERT_TRUE((*stream)->BlockHostUntilDone().ok());
  for (int i = 0; i < 75; ++i) EXPECT_EQ(back[i], 0.5f * i - 9) << i;
  EXPECT_TRUE(executor.DeallocateHost(*memory).ok());
  EXPECT_EQ(executor.host_allocated_bytes(), 0u);
  EXPECT_FALSE(executor.DeallocateHost(*memory).ok());  // freed twice
  EXPECT_TRUE(executor.DeallocateHost(nullptr).ok());
  absl::StatusOr<void*> zero = executor.AllocateHost(0);
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(*zero, nullptr);
  absl::StatusOr<void*> huge = executor.AllocateHost(uint64_t{1} << 62);
  EXPECT_EQ(huge.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(huge.status().message(), HasSubstr("bytes of host memory for host device 0"));
}

TEST(HostExecutorTest, LiveAllocationsAreFreedWithTheExecutor) {
  auto executor = std::make_unique<HostExecutor>();
  ASSERT_TRUE(executor->Allocate(4096).ok());
  ASSERT_TRUE(executor->Allocate(33).ok());
  EXPECT_EQ(executor->allocated_bytes(), 4096u + 33u);
  executor.reset();  // LeakSanitizer would report the two blocks otherwise
}

// A freed block serves the next request of its size (the same pointer,
// pages already touched); other sizes get fresh memory; a double free is
// still refused; cached blocks are freed with the executor.
TEST(HostExecutorTest, FreedBlocksServeTheNextRequestOfTheirSize) {
  HostExecutorOptions options;
  options.free_block_cache_bytes = 1 << 20;
  auto executor = std::make_unique<HostExecutor>(options);
  absl::StatusOr<DeviceMemoryBase> a = executor->Allocate(100001);
  ASSERT_TRUE(a.ok());
  static_cast<char*>(a->opaque)[100000] = 7;
  ASSERT_TRUE(executor->Deallocate(*a).ok());
  EXPECT_EQ(executor->allocated_bytes(), 0u);
  EXPECT_EQ(executor->cached_bytes(), 100001u);
  EXPECT_FALSE(executor->Deallocate(*a).ok());  // freed twice

  absl::StatusOr<DeviceMemoryBase> other = executor->Allocate(100000);
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->opaque, a->opaque);
  absl::StatusOr<DeviceMemoryBase> again = executor->Allocate(100001);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->opaque, a->opaque);
  EXPECT_EQ(again->size, 100001u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(again->opaque) % StreamExecutor::kAllocationAlignment, 0u);
  EXPECT_EQ(executor->cached_bytes(), 0u);
  EXPECT_EQ(executor->allocated_bytes(), 200001u);

  // Over the capacity: freed at once, not kept.
  absl::StatusOr<DeviceMemoryBase> big = executor->Allocate((1 << 20) + 1);
  ASSERT_TRUE(big.ok());
  ASSERT_TRUE(executor->Deallocate(*big).ok());
  EXPECT_EQ(executor->cached_bytes(), 0u);
  ASSERT_TRUE(executor->Deallocate(*other).ok());
  EXPECT_EQ(executor->cached_bytes(), 100000u);
  executor.reset();  // LeakSanitizer would report the cached block otherwise
}

TEST(HostExecutorTest, ZeroCacheFreesAtOnce) {
  HostExecutorOptions options;
  options.free_block_cache_bytes = 0;
  HostExecutor executor(options);
  absl::StatusOr<DeviceMemoryBase> a = executor.Allocate(4096);
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(executor.Deallocate(*a).ok());
  EXPECT_EQ(executor.cached_bytes(), 0u);
}

TEST(HostPlatformTest, RegisteredAsHostWithOneDevice) {
  absl::StatusOr<Platform*> platform = PlatformRegistry::GetPlatform("host");
  ASSERT_TRUE(platform.ok()) << platform.status();
  EXPECT_EQ((*platform)->name(), "host");
  EXPECT_EQ((*platform)->device_count(), 1);
  absl::StatusOr<StreamExecutor*> device = (*platform)->GetDevice(0);
  ASSERT_TRUE(device.ok());
  EXPECT_EQ(*(*platform)->GetDevice(0), *device);
  absl::StatusOr<StreamExecutor*> bad = (*platform)->GetDevice(1);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("ordinal 1"));
}

TEST(HostPlatformTest, CudaIsNotLinkedYet) {
  absl::StatusOr<Platform*> cuda = PlatformRegistry::GetPlatform("cuda");
  EXPECT_EQ(cuda.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(cuda.status().message(),
              HasSubstr("platform 'cuda' is not linked into this binary"));
  EXPECT_THAT(cuda.status().message(), HasSubstr("host"));
}

// A kernel and an event that no host stream can use.
class ForeignKernel : public Kernel {
 public:
  const std::string& name() const override { return name_; }
  const std::string& module_name() const override { return name_; }

 private:
  std::string name_ = "foreign";
};

class ForeignEvent : public Event {
 public:
  Event::Status PollForStatus() override { return Event::Status::kComplete; }
  absl::Status Synchronize() override { return absl::OkStatus(); }
};

TEST(HostStreamTest, ForeignKernelsAndEventsAreRejected) {
  HostExecutor executor;
  auto stream = executor.CreateStream();
  ASSERT_TRUE(stream.ok());
  absl::Status launch = (*stream)->Launch(ForeignKernel(), LaunchDimensions(), {});
  EXPECT_EQ(launch.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(launch.message(), HasSubstr("kernel launch 'foreign'"));
  EXPECT_THAT(launch.message(), HasSubstr("not loaded by the host platform"));

  ForeignEvent event;
  auto other = executor.CreateStream();
  ASSERT_TRUE(other.ok());
  EXPECT_EQ((*other)->WaitFor(&event).code(), absl::StatusCode::kInvalidArgument);
  auto third = executor.CreateStream();
  ASSERT_TRUE(third.ok());
  EXPECT_EQ((*third)->RecordEvent(nullptr).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(HostStreamTest, BlockingOnItsOwnStreamFromACallbackFails) {
  HostExecutor executor;
  auto stream = executor.CreateStream();
  ASSERT_TRUE(stream.ok());
  Stream* raw = stream->get();
  absl::Status inner;
  ASSERT_TRUE(raw->DoHostCallback([raw, &inner] {
                   inner = raw->BlockHostUntilDone();
                   return absl::OkStatus();
                 })
                  .ok());
  ASSERT_TRUE(raw->BlockHostUntilDone().ok());
  EXPECT_EQ(inner.code(), absl::StatusCode::kFailedPrecondition);
}

TEST(HostStreamTest, DestroyingAStreamWaitsForItsWork) {
  HostExecutor executor;
  std::atomic<bool> ran{false};
  {
    auto stream = executor.CreateStream();
    ASSERT_TRUE(stream.ok());
    ASSERT_TRUE((*stream)
                    ->DoHostCallback([&ran] {
                      std::this_thread::sleep_for(std::chrono::milliseconds(50));
                      ran = true;
                      return absl::OkStatus();
                    })
                    .ok());
  }
  EXPECT_TRUE(ran.load());
}

// Stream::Gemm on the host: HostGemm on the stream, in stream order, and
// the enqueue-time checks of stream.h.
TEST(HostStreamTest, GemmRunsHostGemmInStreamOrder) {
  HostExecutor executor;
  ASSERT_TRUE(executor.InitializeBlas().ok());
  auto stream = executor.CreateStream();
  ASSERT_TRUE(stream.ok()) << stream.status();
  // [1 2; 3 4] x [5 6; 7 8] = [19 22; 43 50].
  float lhs[] = {1, 2, 3, 4}, rhs[] = {5, 6, 7, 8}, out[4] = {};
  BlasGemmConfig config;
  config.m = config.n = config.k = 2;
  const DeviceMemoryBase l(lhs, sizeof(lhs)), r(rhs, sizeof(rhs)), o(out, sizeof(out));
  ASSERT_TRUE((*stream)->Gemm(config, l, r, o).ok());
  ASSERT_TRUE((*stream)->BlockHostUntilDone().ok());
  EXPECT_THAT(out, ::testing::ElementsAre(19, 22, 43, 50));

  config.m = 3;  // lhs now needs 6 floats
  const absl::Status status = (*stream)->Gemm(config, l, r, o);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("lhs"));
}

// A copy enqueued on an idle stream has run when Memcpy returns (it ran on
// this thread: host_stream.h, inline runs).
TEST(HostStreamTest, IdleStreamRunsACopyBeforeReturning) {
  HostExecutor executor;
  auto stream = executor.CreateStream();
  ASSERT_TRUE(stream.ok()) << stream.status();
  int src[3] = {7, -2, 31}, dst[3] = {0, 0, 0};
  DeviceMemoryBase device(dst, sizeof(dst));
  ASSERT_TRUE((*stream)->Memcpy(&device, src, sizeof(src)).ok());
  EXPECT_THAT(dst, ::testing::ElementsAre(7, -2, 31));
  ASSERT_TRUE((*stream)->BlockHostUntilDone().ok());
}

// Behind a running callback, a copy is queued, not run inline: the
// callback sees the old bytes, and the copy lands afterwards.
TEST(HostStreamTest, BusyStreamQueuesCopiesInOrder) {
  HostExecutor executor;
  auto stream = executor.CreateStream();
  ASSERT_TRUE(stream.ok()) << stream.status();
  std::atomic<bool> release{false};
  std::atomic<int> seen{-1};
  int src = 5, dst = 1;
  DeviceMemoryBase device(&dst, sizeof(dst));
  ASSERT_TRUE((*stream)
                  ->DoHostCallback([&] {
                    while (!release.load()) std::this_thread::yield();
                    seen = dst;
                    return absl::OkStatus();
                  })
                  .ok());
  ASSERT_TRUE((*stream)->Memcpy(&device, &src, sizeof(src)).ok());
  release = true;
  ASSERT_TRUE((*stream)->BlockHostUntilDone().ok());
  EXPECT_EQ(seen.load(), 1);
  EXPECT_EQ(dst, 5);
}

// An executor with BLAS, the test module's count_calls kernel (one
// argument: an int64 it adds 1 to per call) and a stream.
class HostStreamLaunchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(executor_.InitializeBlas().ok());
    module_ = LoadTestKernels(executor_, "stream_launch");
    ASSERT_NE(module_, nullptr);
    auto kernel = module_->GetKernel("count_calls");
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    kernel_ = std::move(kernel).value();
    auto stream = executor_.CreateStream();
    ASSERT_TRUE(stream.ok()) << stream.status();
    stream_ = std::move(stream).value();
  }

  // out[0] = the dot of lhs[0, k) and rhs[0, k), as a 1 x k by k x 1 GEMM.
  absl::Status Dot(float* lhs, float* rhs, int64_t k, float* out) {
    BlasGemmConfig config;
    config.m = config.n = 1;
    config.k = k;
    const uint64_t bytes = k * sizeof(float);
    return stream_->Gemm(config, DeviceMemoryBase(lhs, bytes), DeviceMemoryBase(rhs, bytes),
                         DeviceMemoryBase(out, sizeof(float)));
  }

  HostExecutor executor_{HostExecutorOptions{1}};
  std::unique_ptr<KernelModule> module_;
  std::unique_ptr<Kernel> kernel_;
  std::unique_ptr<Stream> stream_;
};

// A launch and a GEMM enqueued on an idle stream have run when the call
// returns (they ran on this thread).
TEST_F(HostStreamLaunchTest, IdleStreamRunsLaunchesAndGemmsBeforeReturning) {
  int64_t calls = 0;
  const DeviceMemoryBase counter(&calls, sizeof(calls));
  ASSERT_TRUE(stream_->Launch(*kernel_, LaunchDimensions(), {counter}).ok());
  EXPECT_EQ(calls, 1);
  // [1 2 3] x [4; 5; 6] = 32.
  float lhs[] = {1, 2, 3}, rhs[] = {4, 5, 6}, out[1] = {-1};
  ASSERT_TRUE(Dot(lhs, rhs, 3, out).ok());
  EXPECT_EQ(out[0], 32);
  ASSERT_TRUE(stream_->BlockHostUntilDone().ok());
}

// Behind a running callback, launches and GEMMs are queued, not run
// inline: the callback sees neither, and both land afterwards in order (a
// copy queued after the GEMM reads its product).
TEST_F(HostStreamLaunchTest, BusyStreamQueuesLaunchesAndGemmsInOrder) {
  std::atomic<bool> release{false};
  std::atomic<int64_t> seen_calls{-1};
  std::atomic<int> seen_out{-1};
  int64_t calls = 0;
  float lhs[] = {2, -3}, rhs[] = {7, 5}, out[1] = {0}, copied = 0;
  ASSERT_TRUE(stream_
                  ->DoHostCallback([&] {
                    while (!release.load()) std::this_thread::yield();
                    seen_calls = calls;
                    seen_out = static_cast<int>(out[0]);
                    return absl::OkStatus();
                  })
                  .ok());
  const DeviceMemoryBase counter(&calls, sizeof(calls));
  ASSERT_TRUE(stream_->Launch(*kernel_, LaunchDimensions(), {counter}).ok());
  ASSERT_TRUE(Dot(lhs, rhs, 2, out).ok());
  ASSERT_TRUE(stream_->Memcpy(&copied, DeviceMemoryBase(out, sizeof(out)), sizeof(copied)).ok());
  release = true;
  ASSERT_TRUE(stream_->BlockHostUntilDone().ok());
  EXPECT_EQ(seen_calls.load(), 0);
  EXPECT_EQ(seen_out.load(), 0);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(out[0], -1);  // 2 * 7 - 3 * 5
  EXPECT_EQ(copied, -1);
}

// After an operation failed, launches and GEMMs run nothing and return the
// stream's error, whether they would have run inline or not.
TEST_F(HostStreamLaunchTest, FailedStreamSkipsLaunchesAndGemms) {
  ASSERT_TRUE(stream_->DoHostCallback([] { return absl::DataLossError("callback broke"); }).ok());
  EXPECT_THAT(stream_->BlockHostUntilDone().message(), HasSubstr("callback broke"));
  int64_t calls = 0;
  absl::Status launched =
      stream_->Launch(*kernel_, LaunchDimensions(), {DeviceMemoryBase(&calls, sizeof(calls))});
  EXPECT_EQ(launched.code(), absl::StatusCode::kDataLoss);
  float lhs[] = {1}, rhs[] = {1}, out[1] = {9};
  absl::Status gemm = Dot(lhs, rhs, 1, out);
  EXPECT_EQ(gemm.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(gemm.message(), HasSubstr("callback broke"));
  ASSERT_EQ(stream_->BlockHostUntilDone().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(out[0], 9);
}

// Many threads enqueue copies on one stream at once, some inline and some
// queued; each copy lands, and BlockHostUntilDone waits for all of them.
TEST(HostStreamTest, ConcurrentEnqueuesAllLand) {
  HostExecutor executor;
  auto stream = executor.CreateStream();
  ASSERT_TRUE(stream.ok()) << stream.status();
  constexpr int kThreads = 4, kCopies = 200;
  std::vector<int> src(kThreads * kCopies), dst(kThreads * kCopies, -1);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<int>(i * 3 + 1);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int c = 0; c < kCopies; ++c) {
        const int i = t * kCopies + c;
        DeviceMemoryBase device(&dst[i], sizeof(int));
        EXPECT_TRUE((*stream)->Memcpy(&device, &src[i], sizeof(int)).ok());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  ASSERT_TRUE((*stream)->BlockHostUntilDone().ok());
  EXPECT_EQ(dst, src);
}

}  // namespace
}  // namespace stream_executor::host
