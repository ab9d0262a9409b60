// The CUDA layer against the fake driver (fake_cuda_driver.h): what reaches
// the driver (launch arguments and dimensions, copy and memset parameters),
// in which order the device runs it, how driver errors become statuses,
// sticky errors, the PTX JIT log, limits from attributes, and that every
// driver object is released.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/stream_executor/command_buffer.h"
#include "xla/stream_executor/cuda/cuda_driver_api.h"
#include "xla/stream_executor/cuda/cuda_executor.h"
#include "xla/stream_executor/cuda/cuda_platform.h"
#include "xla/stream_executor/cuda/cuda_stream.h"
#include "xla/stream_executor/cuda/cuda_test_kernels.h"
#include "xla/stream_executor/cuda/fake_cuda_driver.h"
#include "xla/stream_executor/owning_device_memory.h"

namespace stream_executor::cuda {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Waits (bounded) until `done` holds; the CUDA layer issues driver calls
// from its stream workers.
template <typename Predicate>
bool Eventually(Predicate done) {
  for (int i = 0; i < 2000; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return done();
}

class CudaFakeDriverTest : public ::testing::Test {
 protected:
  explicit CudaFakeDriverTest(FakeCudaDriver::Options options = {})
      : driver_(options) {}

  void SetUp() override {
    RegisterFakeTestKernels(driver_);
    platform_ = std::make_unique<CudaPlatform>(&driver_.api());
    ASSERT_EQ(platform_->device_count(), 1) << platform_->init_status();
    absl::StatusOr<StreamExecutor*> device = platform_->GetDevice(0);
    ASSERT_TRUE(device.ok()) << device.status();
    executor_ = static_cast<CudaExecutor*>(*device);
  }

  std::unique_ptr<CudaStream> NewStream() {
    absl::StatusOr<std::unique_ptr<Stream>> stream = executor_->CreateStream();
    EXPECT_TRUE(stream.ok()) << stream.status();
    return std::unique_ptr<CudaStream>(
        static_cast<CudaStream*>(stream->release()));
  }

  // Enqueues a host callback that holds `stream`'s worker (nothing later is
  // issued) until the returned promise is set.
  static std::promise<void> HoldWorker(Stream& stream) {
    std::promise<void> gate;
    std::shared_future<void> opened = gate.get_future().share();
    EXPECT_TRUE(stream
                    .DoHostCallback([opened] {
                      opened.wait();
                      return absl::OkStatus();
                    })
                    .ok());
    return gate;
  }

  OwningDeviceMemory Allocate(uint64_t size) {
    absl::StatusOr<OwningDeviceMemory> memory =
        OwningDeviceMemory::Allocate(executor_, size);
    EXPECT_TRUE(memory.ok()) << memory.status();
    return std::move(memory).value();
  }

  std::unique_ptr<KernelModule> LoadMainModule() {
    absl::StatusOr<std::string> ptx = ReadCudaTestKernels();
    EXPECT_TRUE(ptx.ok()) << ptx.status();
    auto module = executor_->LoadKernelModule("test_kernels", *ptx);
    EXPECT_TRUE(module.ok()) << module.status();
    return std::move(module).value();
  }

  FakeCudaDriver driver_;  // declared first: destroyed last
  std::unique_ptr<CudaPlatform> platform_;
  CudaExecutor* executor_ = nullptr;
};

TEST_F(CudaFakeDriverTest, LaunchPassesOneDevicePointerPerBufferInOrder) {
  auto module = LoadMainModule();
  absl::StatusOr<std::unique_ptr<Kernel>> kernel = module->GetKernel("saxpy_f32");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  const int64_t n = 23;  // 6 blocks of 4, the last one partial
  const std::vector<float> ab = {2.5f, -1.0f};
  std::vector<float> x(n), y(n + 1, 7.0f);
  for (int64_t i = 0; i < n; ++i) x[i] = 0.5f * i - 3.0f;
  const int64_t n_host = n;
  OwningDeviceMemory ab_d = Allocate(8), x_d = Allocate(n * 4),
                     y_d = Allocate((n + 1) * 4), n_d = Allocate(8);
  auto stream = NewStream();
  ASSERT_TRUE(stream->Memcpy(ab_d.ptr(), ab.data(), 8).ok());
  ASSERT_TRUE(stream->Memcpy(x_d.ptr(), x.data(), n * 4).ok());
  ASSERT_TRUE(stream->Memcpy(y_d.ptr(), y.data(), (n + 1) * 4).ok());
  ASSERT_TRUE(stream->Memcpy(n_d.ptr(), &n_host, 8).ok());
  LaunchDimensions dims;
  dims.grid = {3, 2, 1};
  dims.block = {32, 2, 1};
  dims.shared_memory_bytes = 96;
  ASSERT_TRUE(stream
                  ->Launch(**kernel, dims,
                           {ab_d.get(), x_d.get(), y_d.get(), n_d.get()})
                  .ok());
  std::vector<float> back(n + 1);
  ASSERT_TRUE(stream->Memcpy(back.data(), y_d.get(), (n + 1) * 4).ok());
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());

  const std::vector<FakeLaunch> launches = driver_.launches();
  ASSERT_EQ(launches.size(), 1u);
  const FakeLaunch& launch = launches[0];
  EXPECT_EQ(launch.kernel, "saxpy_f32");
  EXPECT_THAT(launch.grid, ElementsAre(3u, 2u, 1u));
  EXPECT_THAT(launch.block, ElementsAre(32u, 2u, 1u));
  EXPECT_EQ(launch.shared_memory_bytes, 96u);
  EXPECT_EQ(launch.stream, stream->handle());
  EXPECT_THAT(launch.args,
              ElementsAre(reinterpret_cast<uintptr_t>(ab_d.get().opaque),
                          reinterpret_cast<uintptr_t>(x_d.get().opaque),
                          reinterpret_cast<uintptr_t>(y_d.get().opaque),
                          reinterpret_cast<uintptr_t>(n_d.get().opaque)));
  // Data flowed through the kernel: 6 blocks cover all 23 elements.
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_FLOAT_EQ(back[i], 2.5f * (0.5f * i - 3.0f) - 1.0f) << i;
  }
  EXPECT_EQ(back[n], 7.0f);
}

TEST_F(CudaFakeDriverTest, CopiesAndMemsetsRunInStreamOrderAfterTheHostReturns) {
  OwningDeviceMemory a = Allocate(36), b = Allocate(36);
  std::vector<uint8_t> source(36);
  for (int i = 0; i < 36; ++i) source[i] = static_cast<uint8_t>(3 * i + 1);
  std::vector<uint8_t> back(36, 0xEE);
  auto stream = NewStream();
  driver_.Pause();
  ASSERT_TRUE(stream->Memcpy(a.ptr(), source.data(), 36).ok());
  ASSERT_TRUE(stream->Memset32(a.ptr(), 0xA1B2C3D4u, 12).ok());
  ASSERT_TRUE(stream->Memcpy(b.ptr(), a.get(), 36).ok());
  ASSERT_TRUE(stream->MemZero(b.ptr(), 5).ok());
  ASSERT_TRUE(stream->Memcpy(back.data(), b.get(), 36).ok());
  // Every call reached the driver, and nothing ran: the calls are async.
  ASSERT_TRUE(Eventually(
      [&] { return driver_.calls("cuMemcpyDtoHAsync_v2") == 1; }));
  EXPECT_TRUE(driver_.executed().empty());
  EXPECT_EQ(back, std::vector<uint8_t>(36, 0xEE));
  driver_.Resume();
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());

  EXPECT_THAT(driver_.executed(),
              ElementsAre("htod 36", "memset32 12", "dtod 36", "memset8 5",
                          "dtoh 36"));
  std::vector<uint8_t> expected = source;
  for (int word = 0; word < 3; ++word) {
    const uint32_t pattern = 0xA1B2C3D4u;
    std::memcpy(&expected[4 * word], &pattern, 4);
  }
  std::fill(expected.begin(), expected.begin() + 5, 0);
  EXPECT_EQ(back, expected);
}

TEST_F(CudaFakeDriverTest, EventOrdersWorkAcrossTwoStreams) {
  OwningDeviceMemory shared = Allocate(64), copy = Allocate(64);
  std::vector<uint32_t> data(16);
  for (int i = 0; i < 16; ++i) data[i] = 1000 + 17 * i;
  std::vector<uint32_t> back(16, 0);
  absl::StatusOr<std::unique_ptr<Event>> event = executor_->CreateEvent();
  ASSERT_TRUE(event.ok());
  auto a = NewStream(), b = NewStream();
  // Never recorded: WaitFor issues nothing.
  ASSERT_TRUE(b->WaitFor(event->get()).ok());
  ASSERT_TRUE(b->BlockHostUntilDone().ok());
  EXPECT_EQ(driver_.calls("cuStreamWaitEvent"), 0);

  std::promise<void> gate = HoldWorker(*a);
  ASSERT_TRUE(a->Memcpy(shared.ptr(), data.data(), 64).ok());
  ASSERT_TRUE(a->RecordEvent(event->get()).ok());
  ASSERT_TRUE(b->WaitFor(event->get()).ok());
  ASSERT_TRUE(b->Memcpy(copy.ptr(), shared.get(), 64).ok());
  ASSERT_TRUE(b->Memcpy(back.data(), copy.get(), 64).ok());
  EXPECT_EQ((*event)->PollForStatus(), Event::Status::kPending);
  gate.set_value();
  ASSERT_TRUE(b->BlockHostUntilDone().ok());
  EXPECT_EQ(back, data);
  EXPECT_EQ((*event)->PollForStatus(), Event::Status::kComplete);
  EXPECT_EQ(driver_.calls("cuStreamWaitEvent"), 1);
  EXPECT_EQ(driver_.calls("cuLaunchHostFunc"), 1);
  const std::vector<std::string> executed = driver_.executed();
  const auto at = [&](const std::string& op) {
    return std::find(executed.begin(), executed.end(), op) - executed.begin();
  };
  EXPECT_LT(at("htod 64"), at("record"));
  EXPECT_LT(at("record"), at("dtod 64"));
  EXPECT_LT(at("dtod 64"), at("dtoh 64"));
  ASSERT_TRUE(a->BlockHostUntilDone().ok());
}

TEST_F(CudaFakeDriverTest, DriverErrorIsStickyAndSkipsLaterWork) {
  OwningDeviceMemory memory = Allocate(16);
  const std::vector<uint32_t> data = {1, 2, 3, 4};
  auto stream = NewStream();
  driver_.InjectError("cuMemcpyHtoDAsync_v2", CUDA_ERROR_ILLEGAL_ADDRESS);
  ASSERT_TRUE(stream->Memcpy(memory.ptr(), data.data(), 16).ok());  // queued
  (void)stream->Memset32(memory.ptr(), 9, 16);
  absl::Status status = stream->BlockHostUntilDone();
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(status.message(),
            "memcpy host-to-device failed: cuMemcpyHtoDAsync_v2: "
            "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was "
            "encountered");
  EXPECT_EQ(driver_.calls("cuMemsetD32Async"), 0);  // skipped, never issued
  EXPECT_EQ(stream->MemZero(memory.ptr(), 16), status);
  EXPECT_EQ(stream->BlockHostUntilDone(), status);
  EXPECT_EQ(driver_.calls("cuMemsetD8Async"), 0);

  // An event recorded on the failed stream carries the error to waiters.
  absl::StatusOr<std::unique_ptr<Event>> event = executor_->CreateEvent();
  ASSERT_TRUE(event.ok());
  EXPECT_EQ(stream->RecordEvent(event->get()), status);
  EXPECT_EQ((*event)->Synchronize(), status);
  EXPECT_EQ((*event)->PollForStatus(), Event::Status::kError);
  EXPECT_EQ(driver_.calls("cuEventRecord"), 0);
  auto other = NewStream();
  ASSERT_TRUE(other->WaitFor(event->get()).ok());
  absl::Status waited = other->BlockHostUntilDone();
  EXPECT_EQ(waited.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(waited.message(), HasSubstr("wait for event failed"));
  EXPECT_THAT(waited.message(), HasSubstr("CUDA_ERROR_ILLEGAL_ADDRESS"));
}

TEST_F(CudaFakeDriverTest, SynchronizeErrorBecomesTheStickyError) {
  auto stream = NewStream();
  driver_.InjectError("cuStreamSynchronize", CUDA_ERROR_LAUNCH_FAILED);
  absl::Status status = stream->BlockHostUntilDone();
  EXPECT_EQ(status.message(),
            "stream synchronize failed: cuStreamSynchronize: "
            "CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure");
  EXPECT_EQ(stream->BlockHostUntilDone(), status);
}

TEST_F(CudaFakeDriverTest, HostCallbackRunsAfterEarlierWorkAndMayNotBlockItsStream) {
  OwningDeviceMemory memory = Allocate(4);
  const uint32_t value = 0xCAFE;
  uint32_t seen = 0;
  auto stream = NewStream();
  CudaStream* raw = stream.get();
  absl::Status inner;
  ASSERT_TRUE(stream->Memcpy(memory.ptr(), &value, 4).ok());
  // The callback may use the driver (it runs on the stream's worker, not in
  // a driver host function): read the memory back synchronously.
  auto reader = NewStream();
  ASSERT_TRUE(stream->DoHostCallback([&] {
                 inner = raw->BlockHostUntilDone();
                 absl::Status s = reader->Memcpy(&seen, memory.get(), 4);
                 if (s.ok()) s = reader->BlockHostUntilDone();
                 return s;
               }).ok());
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());
  EXPECT_EQ(inner.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(seen, value);
}

TEST_F(CudaFakeDriverTest, EnqueueTimeValidationNamesTheProblem) {
  auto module = LoadMainModule();
  absl::StatusOr<std::unique_ptr<Kernel>> kernel = module->GetKernel("count_blocks");
  ASSERT_TRUE(kernel.ok());
  OwningDeviceMemory memory = Allocate(16);
  auto stream = NewStream();
  LaunchDimensions dims;
  dims.block = {1024, 2, 1};  // 2048 threads > 1024
  absl::Status status = stream->Launch(**kernel, dims, {memory.get()});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("kernel launch 'count_blocks'"));
  EXPECT_EQ(driver_.calls("cuLaunchKernel"), 0);
  auto other = NewStream();
  std::vector<uint8_t> host(17);
  absl::Status too_big = other->Memcpy(memory.ptr(), host.data(), 17);
  EXPECT_EQ(too_big.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(too_big.message(), HasSubstr("17 bytes do not fit"));
  auto third = NewStream();
  absl::StatusOr<DeviceMemoryBase> overlap = memory.get().GetSlice(4, 8);
  ASSERT_TRUE(overlap.ok());
  DeviceMemoryBase dst = memory.get();
  EXPECT_THAT(third->Memcpy(&dst, *overlap, 8).message(),
              HasSubstr("overlap partially"));
}

TEST_F(CudaFakeDriverTest, PtxJitLogIsPartOfTheLoadError) {
  const std::string bad_ptx =
      ".version 7.0\n.target sm_80\n.address_size 64\n"
      "// fake-jit-error: ptxas application ptx input, line 4; error   : "
      "Unknown symbol 'missing_global'\n";
  auto module = executor_->LoadKernelModule("fusion_module", bad_ptx);
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(module.status().message(),
              HasSubstr("cannot load CUDA module 'fusion_module' (PTX, "));
  EXPECT_THAT(module.status().message(),
              HasSubstr("cuModuleLoadDataEx: CUDA_ERROR_INVALID_PTX"));
  EXPECT_THAT(module.status().message(),
              HasSubstr("JIT log: ptxas application ptx input, line 4; error "
                        "  : Unknown symbol 'missing_global'"));

  auto empty = executor_->LoadKernelModule("empty", "");
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kInvalidArgument);
  auto elf = executor_->LoadKernelModule("elf", std::string("\x7f" "ELF\x02\x01", 6));
  EXPECT_EQ(elf.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(elf.status().message(), HasSubstr("(cubin, 6 bytes)"));

  auto good = LoadMainModule();
  auto missing = good->GetKernel("fill_i32");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("'fill_i32'"));
  EXPECT_THAT(missing.status().message(), HasSubstr("'test_kernels'"));
}

TEST_F(CudaFakeDriverTest, ModuleStaysLoadedUntilItsLaunchHasRun) {
  OwningDeviceMemory counts = Allocate(4);
  auto stream = NewStream();
  ASSERT_TRUE(stream->MemZero(counts.ptr(), 4).ok());
  driver_.Pause();
  {
    auto module = LoadMainModule();
    auto kernel = module->GetKernel("count_blocks");
    ASSERT_TRUE(kernel.ok());
    ASSERT_TRUE(stream->Launch(**kernel, LaunchDimensions(), {counts.get()}).ok());
    ASSERT_TRUE(Eventually([&] { return driver_.calls("cuLaunchKernel") == 1; }));
  }
  EXPECT_EQ(driver_.live_modules(), 1);
  driver_.Resume();
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());
  EXPECT_EQ(driver_.live_modules(), 0);
}

TEST_F(CudaFakeDriverTest, AllocationErrorsAndCleanup) {
  driver_.InjectError("cuMemAlloc_v2", CUDA_ERROR_OUT_OF_MEMORY);
  absl::StatusOr<DeviceMemoryBase> failed = executor_->Allocate(1000);
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(failed.status().message(),
              HasSubstr("cannot allocate 1000 bytes on CUDA device 0"));
  EXPECT_THAT(failed.status().message(), HasSubstr("CUDA_ERROR_OUT_OF_MEMORY"));
  {
    auto stream = NewStream();
    auto event = executor_->CreateEvent();
    auto module = LoadMainModule();
    OwningDeviceMemory memory = Allocate(333);
    EXPECT_EQ(executor_->allocated_bytes(), 333u);
    EXPECT_EQ(driver_.live_streams(), 1);
    EXPECT_EQ(driver_.live_events(), 1);
    EXPECT_EQ(driver_.live_modules(), 1);
    EXPECT_EQ(driver_.live_allocations(), 1);
  }
  EXPECT_EQ(driver_.live_streams(), 0);
  EXPECT_EQ(driver_.live_events(), 0);
  EXPECT_EQ(driver_.live_modules(), 0);
  // The freed block stays with the driver, cached for reuse, until the
  // executor goes.
  EXPECT_EQ(executor_->allocated_bytes(), 0u);
  EXPECT_EQ(executor_->cached_bytes(), 333u);
  EXPECT_EQ(driver_.live_allocations(), 1);
  EXPECT_EQ(driver_.primary_context_retains(), 1);
  platform_.reset();
  EXPECT_EQ(driver_.live_allocations(), 0);
  EXPECT_EQ(driver_.primary_context_retains(), 0);
}

// AllocateHost is cuMemHostAlloc memory: host memory the fake's
// device-to-host and host-to-device copies really write and read, which a
// device-to-device copy refuses (it is not device memory); DeallocateHost
// gives it back with cuMemFreeHost.
TEST_F(CudaFakeDriverTest, PinnedHostMemoryIsWhatTheCopiesReadAndWrite) {
  absl::StatusOr<void*> pinned = executor_->AllocateHost(44);
  ASSERT_TRUE(pinned.ok()) << pinned.status();
  EXPECT_EQ(driver_.calls("cuMemHostAlloc"), 1);
  EXPECT_EQ(driver_.live_host_allocations(), 1);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(*pinned) % StreamExecutor::kAllocationAlignment, 0u);
  auto* words = static_cast<int32_t*>(*pinned);
  for (int i = 0; i < 11; ++i) words[i] = 3 * i - 7;
  OwningDeviceMemory device = Allocate(44);
  auto stream = NewStream();
  DeviceMemoryBase dst = device.get();
  ASSERT_TRUE(stream->Memcpy(&dst, *pinned, 44).ok());
  std::vector<int32_t> back(11, 0);
  ASSERT_TRUE(stream->Memcpy(back.data(), device.get(), 44).ok());
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());
  for (int i = 0; i < 11; ++i) EXPECT_EQ(back[i], 3 * i - 7) << i;
  const std::vector<FakeCopy> copies = driver_.copies();
  ASSERT_EQ(copies.size(), 2u);
  EXPECT_EQ(copies[0].kind, "htod");
  EXPECT_TRUE(copies[0].src_pinned);
  EXPECT_FALSE(copies[0].dst_pinned);
  EXPECT_EQ(copies[1].kind, "dtoh");
  EXPECT_FALSE(copies[1].dst_pinned);
  // Pinned memory is not a device allocation: the device-to-device copy is
  // refused (the stream's sticky error).
  DeviceMemoryBase as_device(*pinned, 44);
  const absl::Status enqueued = stream->Memcpy(&as_device, device.get(), 44);
  EXPECT_FALSE(enqueued.ok() && stream->BlockHostUntilDone().ok());
  EXPECT_TRUE(executor_->DeallocateHost(*pinned).ok());
  EXPECT_EQ(driver_.live_host_allocations(), 0);
  EXPECT_FALSE(executor_->DeallocateHost(*pinned).ok());  // freed twice
  EXPECT_TRUE(executor_->DeallocateHost(nullptr).ok());
  driver_.InjectError("cuMemHostAlloc", CUDA_ERROR_OUT_OF_MEMORY);
  absl::StatusOr<void*> failed = executor_->AllocateHost(1000);
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(failed.status().message(),
              HasSubstr("cannot allocate 1000 bytes of pinned host memory for CUDA device 0"));
}

// A freed block serves the next request of its size without cuMemAlloc or
// cuMemFree; when cuMemAlloc runs out of memory, the cached blocks go back
// to the driver and the request is tried once more.
TEST_F(CudaFakeDriverTest, FreedBlocksAreReusedAndGivenBackWhenMemoryRunsOut) {
  absl::StatusOr<DeviceMemoryBase> a = executor_->Allocate(4097);
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(executor_->Deallocate(*a).ok());
  EXPECT_EQ(driver_.calls("cuMemFree_v2"), 0);
  EXPECT_FALSE(executor_->Deallocate(*a).ok());  // freed twice
  const int allocs = driver_.calls("cuMemAlloc_v2");
  absl::StatusOr<DeviceMemoryBase> again = executor_->Allocate(4097);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->opaque, a->opaque);
  EXPECT_EQ(driver_.calls("cuMemAlloc_v2"), allocs);
  ASSERT_TRUE(executor_->Deallocate(*again).ok());

  driver_.InjectError("cuMemAlloc_v2", CUDA_ERROR_OUT_OF_MEMORY);
  absl::StatusOr<DeviceMemoryBase> other = executor_->Allocate(5000);
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ(driver_.calls("cuMemAlloc_v2"), allocs + 2);  // refused, then the retry
  EXPECT_EQ(driver_.calls("cuMemFree_v2"), 1);            // the cached 4097 bytes
  EXPECT_EQ(executor_->cached_bytes(), 0u);
  EXPECT_EQ(driver_.live_allocations(), 1);
  ASSERT_TRUE(executor_->Deallocate(*other).ok());

  // Nothing cached to give back: the error stands, tried once.
  absl::StatusOr<DeviceMemoryBase> held = executor_->Allocate(6000);
  ASSERT_TRUE(held.ok());
  ASSERT_TRUE(executor_->Deallocate(*held).ok());  // cached: 5000 and 6000
  EXPECT_EQ(executor_->cached_bytes(), 11000u);
  driver_.InjectError("cuMemAlloc_v2", CUDA_ERROR_OUT_OF_MEMORY);
  driver_.InjectError("cuMemAlloc_v2", CUDA_ERROR_OUT_OF_MEMORY);
  absl::StatusOr<DeviceMemoryBase> refused = executor_->Allocate(7000);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(executor_->cached_bytes(), 0u);
  EXPECT_EQ(driver_.live_allocations(), 0);
}

// Timestamps stall the stream once per synchronize (the anchor's host
// function); the rest are timing events read after the synchronize, and
// their events are reused by the next round.
TEST_F(CudaFakeDriverTest, TimestampsStallTheStreamOncePerSynchronize) {
  auto stream = NewStream();
  const int host_functions = driver_.calls("cuLaunchHostFunc");
  const int creates = driver_.calls("cuEventCreate");
  for (int round = 1; round <= 2; ++round) {
    std::vector<int64_t> t(5, -1);
    for (int64_t& slot : t) ASSERT_TRUE(stream->RecordTimestamp(&slot).ok());
    ASSERT_TRUE(stream->BlockHostUntilDone().ok());
    EXPECT_EQ(driver_.calls("cuLaunchHostFunc"), host_functions + round);
    EXPECT_EQ(driver_.calls("cuEventCreate"), creates + 5);
    EXPECT_EQ(driver_.calls("cuEventElapsedTime"), 4 * round);
    EXPECT_GE(t[0], 0);
    for (size_t i = 1; i < t.size(); ++i) EXPECT_GE(t[i], t[i - 1]) << "round " << round << " stamp " << i;
  }
}

// A stamp enqueued while another thread's BlockHostUntilDone is
// synchronizing, and not yet issued when that synchronize ends, is not read
// then (its reused event still holds the last round's time): the next
// synchronize reads it, with a time after it was issued.
TEST_F(CudaFakeDriverTest, StampNotYetIssuedAtTheSynchronizeIsReadLater) {
  auto stream = NewStream();
  OwningDeviceMemory memory = Allocate(64);
  int64_t round1[2] = {-1, -1};
  for (int64_t& slot : round1) ASSERT_TRUE(stream->RecordTimestamp(&slot).ok());
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());  // two spare events, both recorded

  int64_t anchor = -1, late = -1;
  ASSERT_TRUE(stream->RecordTimestamp(&anchor).ok());
  std::promise<void> anchored;  // the worker has run the anchor's stamp
  ASSERT_TRUE(stream->DoHostCallback([&anchored] {
    anchored.set_value();
    return absl::OkStatus();
  }).ok());
  anchored.get_future().wait();
  // The device stops; the synchronize below waits for it.
  driver_.Pause();
  ASSERT_TRUE(stream->MemZero(memory.ptr(), 64).ok());
  const int syncs = driver_.calls("cuStreamSynchronize");
  std::promise<absl::Status> first_sync;
  std::thread syncer([&] { first_sync.set_value(stream->BlockHostUntilDone()); });
  ASSERT_TRUE(Eventually([&] { return driver_.calls("cuStreamSynchronize") > syncs; }));
  // Meanwhile: a callback that holds the worker, and a stamp behind it.
  std::promise<void> release = HoldWorker(*stream);
  ASSERT_TRUE(stream->RecordTimestamp(&late).ok());
  driver_.Resume();
  // The device finishes, the synchronize returns and reads the stamps while
  // the worker is held: `late` is not issued and must not be read.
  ASSERT_TRUE(first_sync.get_future().get().ok());
  syncer.join();
  EXPECT_EQ(late, -1);
  const int64_t released_at = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::steady_clock::now().time_since_epoch())
                                  .count();
  release.set_value();
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());
  EXPECT_GE(late, released_at);
  EXPECT_GT(late, anchor);
}

// CUDA graphs (CudaCommandBuffer over the fake's graph API): a memset, a
// launch and a copy chained in one graph; the graph replays the node values
// it holds, so the second submission after moving a buffer computes on the
// old buffer until the node is updated; one cuGraphLaunch per submission.
TEST_F(CudaFakeDriverTest, CommandBufferReplaysItsNodesUntilUpdated) {
  auto module = LoadMainModule();
  absl::StatusOr<std::unique_ptr<Kernel>> kernel = module->GetKernel("saxpy_f32");
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  const int64_t n = 13;
  const std::vector<float> ab = {3.0f, 0.5f};
  std::vector<float> x1(n), x2(n);
  for (int64_t i = 0; i < n; ++i) {
    x1[i] = 1.0f + i;
    x2[i] = -2.0f * i;
  }
  OwningDeviceMemory ab_d = Allocate(8), x1_d = Allocate(n * 4), x2_d = Allocate(n * 4),
                     y_d = Allocate(n * 4), z_d = Allocate(n * 4), n_d = Allocate(8);
  auto stream = NewStream();
  ASSERT_TRUE(stream->Memcpy(ab_d.ptr(), ab.data(), 8).ok());
  ASSERT_TRUE(stream->Memcpy(x1_d.ptr(), x1.data(), n * 4).ok());
  ASSERT_TRUE(stream->Memcpy(x2_d.ptr(), x2.data(), n * 4).ok());
  ASSERT_TRUE(stream->Memcpy(n_d.ptr(), &n, 8).ok());
  ASSERT_TRUE(stream->BlockHostUntilDone().ok());

  absl::StatusOr<std::unique_ptr<CommandBuffer>> graph = executor_->CreateCommandBuffer();
  ASSERT_TRUE(graph.ok()) << graph.status();
  LaunchDimensions dims;
  dims.grid = {4, 1, 1};  // 4 blocks of 4 cover 13 elements
  const DeviceCommand zero = DeviceCommand::MemZero(z_d.get(), n * 4);
  const DeviceCommand saxpy1 = DeviceCommand::Launch(**kernel, dims, {ab_d.get(), x1_d.get(), y_d.get(), n_d.get()});
  const DeviceCommand saxpy2 = DeviceCommand::Launch(**kernel, dims, {ab_d.get(), x2_d.get(), y_d.get(), n_d.get()});
  const DeviceCommand copy = DeviceCommand::Copy(z_d.get(), y_d.get(), n * 4);
  for (const DeviceCommand* c : {&zero, &saxpy1, &copy}) ASSERT_TRUE((*graph)->Append(*c).ok());
  EXPECT_EQ((*graph)->num_nodes(), 3);
  EXPECT_EQ((*graph)->Update(1, saxpy2).code(), absl::StatusCode::kFailedPrecondition);  // not finalized
  ASSERT_TRUE((*graph)->Finalize().ok());
  EXPECT_EQ((*graph)->Append(copy).status().code(), absl::StatusCode::kFailedPrecondition);

  auto result = [&] {
    std::vector<float> z(n);
    EXPECT_TRUE(stream->Memcpy(z.data(), z_d.get(), n * 4).ok());
    EXPECT_TRUE(stream->BlockHostUntilDone().ok());
    return z;
  };
  ASSERT_TRUE((*graph)->Submit(stream.get()).ok());
  std::vector<float> z = result();
  for (int64_t i = 0; i < n; ++i) EXPECT_FLOAT_EQ(z[i], 3.0f * x1[i] + 0.5f) << i;
  // x1's contents change, not its address: the graph reads the new values.
  for (float& v : x1) v += 10.0f;
  ASSERT_TRUE(stream->Memcpy(x1_d.ptr(), x1.data(), n * 4).ok());
  ASSERT_TRUE((*graph)->Submit(stream.get()).ok());
  z = result();
  for (int64_t i = 0; i < n; ++i) EXPECT_FLOAT_EQ(z[i], 3.0f * x1[i] + 0.5f) << i;
  // Pointing the launch at x2 takes an update; the node's new values are
  // replayed from then on.
  ASSERT_TRUE((*graph)->Update(1, saxpy2).ok());
  ASSERT_TRUE((*graph)->Submit(stream.get()).ok());
  z = result();
  for (int64_t i = 0; i < n; ++i) EXPECT_FLOAT_EQ(z[i], 3.0f * x2[i] + 0.5f) << i;
  EXPECT_EQ(driver_.calls("cuGraphLaunch"), 3);
  EXPECT_EQ(driver_.calls("cuGraphExecKernelNodeSetParams_v2"), 1);
  EXPECT_EQ(driver_.calls("cuLaunchKernel"), 0);
  const std::vector<FakeLaunch> launches = driver_.launches();
  ASSERT_EQ(launches.size(), 3u);
  EXPECT_EQ(launches[2].args[1], reinterpret_cast<uintptr_t>(x2_d.get().opaque));
  EXPECT_EQ(launches[2].stream, stream->handle());

  // Only addresses may change.
  EXPECT_EQ((*graph)->Update(0, copy).code(), absl::StatusCode::kInvalidArgument);
  LaunchDimensions other = dims;
  other.grid.x = 5;
  EXPECT_EQ((*graph)->Update(1, DeviceCommand::Launch(**kernel, other, saxpy2.args)).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ((*graph)->Update(3, copy).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(driver_.live_graphs(), 1);
  EXPECT_EQ(driver_.live_graph_execs(), 1);
  graph->reset();
  EXPECT_EQ(driver_.live_graphs(), 0);
  EXPECT_EQ(driver_.live_graph_execs(), 0);
}

// A node left pointing at freed memory faults at the launch: the stream's
// sticky error names the graph launch and the driver's error.
TEST_F(CudaFakeDriverTest, GraphOnFreedMemoryFailsTheStream) {
  OwningDeviceMemory a = Allocate(64), b = Allocate(64);
  absl::StatusOr<std::unique_ptr<CommandBuffer>> graph = executor_->CreateCommandBuffer();
  ASSERT_TRUE(graph.ok()) << graph.status();
  ASSERT_TRUE((*graph)->Append(DeviceCommand::Memset32(a.get(), 7, 64)).ok());
  ASSERT_TRUE((*graph)->Append(DeviceCommand::Copy(b.get(), a.get(), 64)).ok());
  ASSERT_TRUE((*graph)->Finalize().ok());
  a = OwningDeviceMemory();
  auto stream = NewStream();
  // The executor keeps a's block for reuse; an allocation that only fits
  // once the cache is given back to the driver really frees it.
  OwningDeviceMemory big = Allocate(executor_->limits().memory_size - 100);
  ASSERT_FALSE(big.is_null());
  ASSERT_EQ(executor_->cached_bytes(), 0u);
  ASSERT_TRUE((*graph)->Submit(stream.get()).ok());
  const absl::Status done = stream->BlockHostUntilDone();
  EXPECT_THAT(done.message(), HasSubstr("graph launch (2 nodes)")) << done;
  EXPECT_THAT(done.message(), HasSubstr("CUDA_ERROR_ILLEGAL_ADDRESS")) << done;
}

// A driver without the graph entry points: no command buffer, and why.
class CudaFakeDriverNoGraphsTest : public CudaFakeDriverTest {
 protected:
  static FakeCudaDriver::Options Options() {
    FakeCudaDriver::Options options;
    options.graph_api = false;
    return options;
  }
  CudaFakeDriverNoGraphsTest() : CudaFakeDriverTest(Options()) {}
};

TEST_F(CudaFakeDriverNoGraphsTest, CreateCommandBufferSaysWhatIsMissing) {
  EXPECT_FALSE(HasCudaGraphApi(driver_.api()));
  absl::StatusOr<std::unique_ptr<CommandBuffer>> graph = executor_->CreateCommandBuffer();
  ASSERT_FALSE(graph.ok());
  EXPECT_EQ(graph.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(graph.status().message(), HasSubstr("no graph API (no 'cuGraphCreate')"));
  EXPECT_THAT(graph.status().message(), HasSubstr("CUDA device 0"));
}

// A device with different attributes: the limits follow them.
class CudaFakeDriverLimitsTest : public CudaFakeDriverTest {
 protected:
  static FakeCudaDriver::Options Options() {
    FakeCudaDriver::Options options;
    options.driver_version = 12020;
    options.memory_size = size_t{3} << 30;
    options.attributes = {
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 9},
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0},
        {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 768},
        {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 32},
        {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 1234},
        {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 40000},
    };
    return options;
  }
  CudaFakeDriverLimitsTest() : CudaFakeDriverTest(Options()) {}
};

TEST_F(CudaFakeDriverLimitsTest, LimitsComeFromDeviceAttributes) {
  const DeviceLimits& limits = executor_->limits();
  EXPECT_EQ(limits.max_threads_per_block, 768);
  EXPECT_EQ(limits.max_block_dims.x, 1024);
  EXPECT_EQ(limits.max_block_dims.z, 32);
  EXPECT_EQ(limits.max_grid_dims.x, 2147483647);
  EXPECT_EQ(limits.max_grid_dims.y, 1234);
  EXPECT_EQ(limits.shared_memory_per_block, 40000);
  EXPECT_EQ(limits.warp_size, 32);
  EXPECT_EQ(limits.memory_size, uint64_t{3} << 30);
  EXPECT_EQ(limits.compute_capability, "9.0");
  EXPECT_EQ(executor_->compute_capability().ToSmString(), "sm_90");
  EXPECT_EQ(executor_->driver_version(), 12020);
  EXPECT_EQ(executor_->toolchain_versions().at("cuda_driver"), "12.2");
  EXPECT_EQ(executor_->device_name(), "Fake CUDA Device");

  EXPECT_TRUE(executor_->CheckDeviceCompatibility("sm_90", 12020).ok());
  EXPECT_TRUE(executor_->CheckDeviceCompatibility("sm_80", 11080).ok());
  absl::Status cc = executor_->CheckDeviceCompatibility("sm_100", 0);
  EXPECT_EQ(cc.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(cc.message(), HasSubstr("compiled for sm_100"));
  EXPECT_THAT(cc.message(), HasSubstr("device is sm_90"));
  absl::Status driver = executor_->CheckDeviceCompatibility("sm_90", 12040);
  EXPECT_EQ(driver.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(driver.message(), HasSubstr("needs CUDA 12.4 (12040)"));
  EXPECT_THAT(driver.message(), HasSubstr("supports CUDA 12.2 (12020)"));

  // The limits are enforced at enqueue time.
  auto module = LoadMainModule();
  auto kernel = module->GetKernel("count_blocks");
  ASSERT_TRUE(kernel.ok());
  OwningDeviceMemory memory = Allocate(4);
  auto stream = NewStream();
  LaunchDimensions dims;
  dims.grid.y = 1235;
  absl::Status status = stream->Launch(**kernel, dims, {memory.get()});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("grid.y"));
}

TEST(CudaPlatformTest, WithoutDevicesTheCountIsZeroAndGetDeviceSaysWhy) {
  CudaPlatform no_driver(absl::FailedPreconditionError(
      "no NVIDIA driver: cannot dlopen libcuda.so.1 (gone)"));
  EXPECT_EQ(no_driver.device_count(), 0);
  EXPECT_THAT(no_driver.GetDevice(0).status().message(), HasSubstr("(gone)"));
  {
    FakeCudaDriver::Options options;
    options.device_count = 0;
    FakeCudaDriver driver(options);
    CudaPlatform platform(&driver.api());
    EXPECT_EQ(platform.device_count(), 0);
    absl::Status status = platform.GetDevice(0).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(status.message(), HasSubstr("no device"));
    EXPECT_THAT(status.message(), HasSubstr("--target=host"));
  }
  {
    FakeCudaDriver driver;
    driver.InjectError("cuInit", CUDA_ERROR_NO_DEVICE);
    CudaPlatform platform(&driver.api());
    EXPECT_EQ(platform.device_count(), 0);
    EXPECT_THAT(platform.GetDevice(0).status().message(),
                HasSubstr("cuInit: CUDA_ERROR_NO_DEVICE"));
  }
  {
    FakeCudaDriver::Options options;
    options.device_count = 2;
    FakeCudaDriver driver(options);
    CudaPlatform platform(&driver.api());
    EXPECT_EQ(platform.device_count(), 2);
    absl::StatusOr<StreamExecutor*> second = platform.GetDevice(1);
    ASSERT_TRUE(second.ok()) << second.status();
    EXPECT_EQ((*second)->device_ordinal(), 1);
    EXPECT_EQ(platform.GetDevice(2).status().code(),
              absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace stream_executor::cuda
