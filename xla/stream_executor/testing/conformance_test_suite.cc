// The conformance tests for platforms, memory, copies, ordering, events and
// sticky errors; kernels and concurrency are in conformance_kernel_tests.cc.
#include "xla/stream_executor/testing/conformance_test_suite.h"

#include <chrono>
#include <cstdint>
#include <cstring>
#include <future>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "xla/stream_executor/device_memory.h"
#include "xla/stream_executor/event.h"
#include "xla/stream_executor/launch_dimensions.h"
#include "xla/stream_executor/platform.h"
#include "xla/stream_executor/platform_registry.h"
#include "xla/stream_executor/testing/conformance_test_util.h"

namespace stream_executor::testing {

void PrintTo(const ConformanceTestParam& param, std::ostream* os) {
  *os << "platform " << param.platform_name;
}

std::string ConformanceTestParamName(
    const ::testing::TestParamInfo<ConformanceTestParam>& info) {
  return info.param.platform_name;
}

void StreamExecutorConformanceTest::SetUp() {
  ASSERT_OK_AND_ASSIGN(Platform * platform,
                       PlatformRegistry::GetPlatform(GetParam().platform_name));
  if (platform->device_count() == 0) {
    GTEST_SKIP() << "no " << GetParam().platform_name
                 << " device here: " << platform->GetDevice(0).status();
  }
  ASSERT_OK_AND_ASSIGN(executor_, platform->GetDevice(0));
}

std::unique_ptr<Stream> StreamExecutorConformanceTest::NewStream() {
  absl::StatusOr<std::unique_ptr<Stream>> stream = executor_->CreateStream();
  EXPECT_TRUE(stream.ok()) << stream.status();
  return stream.ok() ? std::move(stream).value() : nullptr;
}

OwningDeviceMemory StreamExecutorConformanceTest::Allocate(uint64_t size) {
  absl::StatusOr<OwningDeviceMemory> memory =
      OwningDeviceMemory::Allocate(executor_, size);
  EXPECT_TRUE(memory.ok()) << memory.status();
  return memory.ok() ? std::move(memory).value() : OwningDeviceMemory();
}

std::unique_ptr<KernelModule> StreamExecutorConformanceTest::LoadModule(
    const std::function<absl::StatusOr<std::string>()>& read,
    const std::string& name) {
  absl::StatusOr<std::string> bytes = read();
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  if (!bytes.ok()) return nullptr;
  auto module = executor_->LoadKernelModule(name, *bytes);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? std::move(module).value() : nullptr;
}

namespace {

using ::testing::HasSubstr;

// ---------------------------------------------------------------- platform

TEST_P(StreamExecutorConformanceTest, PlatformAndDeviceDescribeThemselves) {
  ASSERT_OK_AND_ASSIGN(Platform * platform,
                       PlatformRegistry::GetPlatform(GetParam().platform_name));
  EXPECT_EQ(platform->name(), GetParam().platform_name);
  ASSERT_OK_AND_ASSIGN(Platform * again,
                       PlatformRegistry::GetPlatform(GetParam().platform_name));
  EXPECT_EQ(platform, again);
  EXPECT_EQ(executor_->platform_name(), GetParam().platform_name);
  EXPECT_EQ(executor_->device_ordinal(), 0);

  const DeviceLimits& limits = executor_->limits();
  EXPECT_GE(limits.max_threads_per_block, 1);
  EXPECT_GE(limits.max_grid_dims.x, 65535);
  EXPECT_GE(limits.max_grid_dims.y, 1);
  EXPECT_GE(limits.warp_size, 1);
  EXPECT_GT(limits.memory_size, 1u << 20);
  EXPECT_FALSE(limits.compute_capability.empty());

  absl::StatusOr<StreamExecutor*> bad = platform->GetDevice(platform->device_count());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(platform->GetDevice(-1).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// ------------------------------------------------------------------ memory

TEST_P(StreamExecutorConformanceTest, AllocationsAreAlignedForOddSizes) {
  const uint64_t before = executor_->allocated_bytes();
  const std::vector<uint64_t> sizes = {1, 33, 255, 256, 257, 4097, (1 << 20) + 3};
  std::vector<OwningDeviceMemory> memories;
  uint64_t total = 0;
  for (uint64_t size : sizes) {
    memories.push_back(Allocate(size));
    const DeviceMemoryBase& memory = memories.back().get();
    ASSERT_FALSE(memory.is_null()) << size;
    EXPECT_EQ(memory.size, size);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(memory.opaque) %
                  StreamExecutor::kAllocationAlignment,
              0u)
        << "size " << size;
    total += size;
  }
  EXPECT_EQ(executor_->allocated_bytes(), before + total);
  // The whole requested range is usable.
  std::mt19937 rng = SeededRng();
  auto stream = NewStream();
  for (OwningDeviceMemory& memory : memories) {
    std::vector<uint8_t> data = RandomBytes(memory.size(), rng);
    ASSERT_OK(Upload(*stream, memory.ptr(), data));
    ASSERT_OK_AND_ASSIGN(auto back, ReadBack<uint8_t>(*stream, memory.get()));
    EXPECT_EQ(back, data);
  }
  memories.clear();
  EXPECT_EQ(executor_->allocated_bytes(), before);
}

TEST_P(StreamExecutorConformanceTest, ZeroSizeAllocationIsNull) {
  const uint64_t before = executor_->allocated_bytes();
  ASSERT_OK_AND_ASSIGN(DeviceMemoryBase memory, executor_->Allocate(0));
  EXPECT_TRUE(memory.is_null());
  EXPECT_EQ(memory.size, 0u);
  EXPECT_EQ(executor_->allocated_bytes(), before);
  EXPECT_OK(executor_->Deallocate(memory));
}

TEST_P(StreamExecutorConformanceTest, AllocationPastDeviceMemoryFails) {
  const uint64_t too_big = executor_->limits().memory_size + 1;
  absl::StatusOr<DeviceMemoryBase> memory = executor_->Allocate(too_big);
  EXPECT_EQ(memory.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(memory.status().message(), HasSubstr(absl::StrCat(too_big)));
  EXPECT_EQ(executor_->Allocate(~uint64_t{0}).status().code(),
            absl::StatusCode::kResourceExhausted);
}

TEST_P(StreamExecutorConformanceTest, DeallocateRejectsSlicesAndDoubleFrees) {
  ASSERT_OK_AND_ASSIGN(DeviceMemoryBase memory, executor_->Allocate(1024));
  ASSERT_OK_AND_ASSIGN(DeviceMemoryBase slice, memory.GetSlice(256, 256));
  EXPECT_EQ(executor_->Deallocate(slice).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_OK(executor_->Deallocate(memory));
  EXPECT_EQ(executor_->Deallocate(memory).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_P(StreamExecutorConformanceTest, OwningDeviceMemoryFreesOnceAndMoves) {
  const uint64_t before = executor_->allocated_bytes();
  {
    OwningDeviceMemory a = Allocate(33);
    EXPECT_EQ(executor_->allocated_bytes(), before + 33);
    OwningDeviceMemory b = std::move(a);
    EXPECT_TRUE(a.is_null());
    EXPECT_EQ(b.size(), 33u);
    OwningDeviceMemory c = Allocate(257);
    c = std::move(b);  // frees the 257 bytes
    EXPECT_EQ(executor_->allocated_bytes(), before + 33);
    DeviceMemoryBase released = c.Release();
    EXPECT_TRUE(c.is_null());
    EXPECT_EQ(executor_->allocated_bytes(), before + 33);
    EXPECT_OK(executor_->Deallocate(released));
  }
  EXPECT_EQ(executor_->allocated_bytes(), before);
}

// ----------------------------------------------------------------- memcpy

TEST_P(StreamExecutorConformanceTest, MemcpyInAllDirectionsKeepsData) {
  std::mt19937 rng = SeededRng();
  const std::vector<uint8_t> data = RandomBytes(257, rng);
  OwningDeviceMemory a = Allocate(257);
  OwningDeviceMemory b = Allocate(257);
  auto stream = NewStream();
  ASSERT_OK(stream->Memcpy(a.ptr(), data.data(), data.size()));
  ASSERT_OK(stream->Memcpy(b.ptr(), a.get(), data.size()));
  std::vector<uint8_t> back(257, 0);
  ASSERT_OK(stream->Memcpy(back.data(), b.get(), back.size()));
  ASSERT_OK(stream->BlockHostUntilDone());
  EXPECT_EQ(back, data);

  // Slices: copy 33 bytes of `a` at offset 7 over `b` at offset 100.
  ASSERT_OK_AND_ASSIGN(DeviceMemoryBase src, a.get().GetSlice(7, 33));
  ASSERT_OK_AND_ASSIGN(DeviceMemoryBase dst, b.get().GetSlice(100, 33));
  const std::vector<uint8_t> zeros(257, 0);
  ASSERT_OK(Upload(*stream, b.ptr(), zeros));
  ASSERT_OK(stream->Memcpy(&dst, src, 33));
  ASSERT_OK_AND_ASSIGN(back, ReadBack<uint8_t>(*stream, b.get()));
  for (size_t i = 0; i < back.size(); ++i) {
    const bool copied = i >= 100 && i < 133;
    ASSERT_EQ(back[i], copied ? data[i - 100 + 7] : 0) << "byte " << i;
  }
}

TEST_P(StreamExecutorConformanceTest, OversizedMemcpyFailsAndIsSticky) {
  OwningDeviceMemory small = Allocate(64);
  std::vector<uint8_t> host(100, 1);
  auto stream = NewStream();
  absl::Status status = stream->Memcpy(small.ptr(), host.data(), host.size());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("memcpy host-to-device"));
  EXPECT_THAT(status.message(), HasSubstr("100"));
  EXPECT_THAT(status.message(), HasSubstr("64"));
  EXPECT_EQ(stream->BlockHostUntilDone(), status);

  auto other = NewStream();
  EXPECT_EQ(other->Memcpy(host.data(), small.get(), 65).code(),
            absl::StatusCode::kInvalidArgument);
  auto third = NewStream();
  EXPECT_EQ(third->Memcpy(small.ptr(), small.get(), 65).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_P(StreamExecutorConformanceTest, Memset32AndMemZeroTouchOnlyTheirRange) {
  std::mt19937 rng = SeededRng();
  const std::vector<uint8_t> data = RandomBytes(257 * 4, rng);
  OwningDeviceMemory memory = Allocate(data.size());
  auto stream = NewStream();
  ASSERT_OK(Upload(*stream, memory.ptr(), data));
  ASSERT_OK(stream->Memset32(memory.ptr(), 0xDEADBEEF, 33 * 4));
  ASSERT_OK_AND_ASSIGN(auto words, ReadBack<uint32_t>(*stream, memory.get()));
  for (size_t i = 0; i < words.size(); ++i) {
    uint32_t expected;
    std::memcpy(&expected, data.data() + 4 * i, 4);
    if (i < 33) expected = 0xDEADBEEF;
    ASSERT_EQ(words[i], expected) << "word " << i;
  }
  ASSERT_OK(stream->MemZero(memory.ptr(), 33));  // odd byte count
  ASSERT_OK_AND_ASSIGN(auto bytes, ReadBack<uint8_t>(*stream, memory.get()));
  for (size_t i = 0; i < 40; ++i) {
    const uint8_t pattern[] = {0xEF, 0xBE, 0xAD, 0xDE};  // little endian
    ASSERT_EQ(bytes[i], i < 33 ? 0 : pattern[i % 4]) << "byte " << i;
  }
  EXPECT_EQ(bytes.back(), data.back());
  auto bad = NewStream();
  EXPECT_EQ(bad->Memset32(memory.ptr(), 1, 6).code(),
            absl::StatusCode::kInvalidArgument);
}

// --------------------------------------------------------------- ordering

TEST_P(StreamExecutorConformanceTest, OperationsOnOneStreamRunInOrder) {
  std::mt19937 rng = SeededRng();
  const std::vector<uint8_t> first = RandomBytes(257, rng);
  const std::vector<uint8_t> second = RandomBytes(257, rng);
  OwningDeviceMemory a = Allocate(257), b = Allocate(257), c = Allocate(257);
  auto stream = NewStream();
  std::vector<int> order;  // touched only by callbacks, which are serialized
  ASSERT_OK(stream->Memcpy(a.ptr(), first.data(), 257));
  ASSERT_OK(stream->DoHostCallback([&order] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    order.push_back(0);
    return absl::OkStatus();
  }));
  ASSERT_OK(stream->Memcpy(b.ptr(), a.get(), 257));
  ASSERT_OK(stream->Memcpy(a.ptr(), second.data(), 257));
  ASSERT_OK(stream->Memcpy(c.ptr(), a.get(), 257));
  for (int i = 1; i < 50; ++i) {
    ASSERT_OK(stream->DoHostCallback([&order, i] {
      order.push_back(i);
      return absl::OkStatus();
    }));
  }
  ASSERT_OK(stream->BlockHostUntilDone());
  ASSERT_EQ(order.size(), 50u);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(order[i], i);
  ASSERT_OK_AND_ASSIGN(auto b_back, ReadBack<uint8_t>(*stream, b.get()));
  ASSERT_OK_AND_ASSIGN(auto c_back, ReadBack<uint8_t>(*stream, c.get()));
  EXPECT_EQ(b_back, first);
  EXPECT_EQ(c_back, second);
}

// ----------------------------------------------------------------- events

TEST_P(StreamExecutorConformanceTest, EventMakesOtherStreamSeeWrites) {
  std::mt19937 rng = SeededRng();
  const std::vector<uint8_t> data = RandomBytes(257, rng);
  OwningDeviceMemory shared = Allocate(257), copy = Allocate(257);
  auto a = NewStream(), b = NewStream();
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Event> event, executor_->CreateEvent());
  ASSERT_OK(a->DoHostCallback([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return absl::OkStatus();
  }));
  ASSERT_OK(a->Memcpy(shared.ptr(), data.data(), 257));
  ASSERT_OK(a->RecordEvent(event.get()));
  ASSERT_OK(b->WaitFor(event.get()));
  ASSERT_OK(b->Memcpy(copy.ptr(), shared.get(), 257));
  std::vector<uint8_t> back(257, 0);
  ASSERT_OK(b->Memcpy(back.data(), copy.get(), 257));
  ASSERT_OK(b->BlockHostUntilDone());
  EXPECT_EQ(back, data);
  EXPECT_OK(event->Synchronize());
  EXPECT_EQ(event->PollForStatus(), Event::Status::kComplete);
  ASSERT_OK(a->BlockHostUntilDone());
}

TEST_P(StreamExecutorConformanceTest, EventIsPendingUntilStreamReachesIt) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Event> event, executor_->CreateEvent());
  // Never recorded: complete, and waiting for it is a no-op.
  EXPECT_EQ(event->PollForStatus(), Event::Status::kComplete);
  EXPECT_OK(event->Synchronize());
  auto stream = NewStream();
  ASSERT_OK(stream->WaitFor(event.get()));
  ASSERT_OK(stream->BlockHostUntilDone());

  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  ASSERT_OK(stream->DoHostCallback([released] {
    released.wait();
    return absl::OkStatus();
  }));
  ASSERT_OK(stream->RecordEvent(event.get()));
  EXPECT_EQ(event->PollForStatus(), Event::Status::kPending);
  release.set_value();
  EXPECT_OK(event->Synchronize());
  EXPECT_EQ(event->PollForStatus(), Event::Status::kComplete);
  ASSERT_OK(stream->BlockHostUntilDone());
}

// Timestamps are taken in stream order, when the stream gets there: a host
// callback that sleeps 20 ms between two stamps shows in their difference,
// every stamp lies between the first enqueue and the synchronize's return,
// and a second round after a synchronize works the same. A null slot is
// refused without failing the stream; a failed stream takes no stamp.
TEST_P(StreamExecutorConformanceTest, TimestampsFollowTheStream) {
  static constexpr int64_t kSleepNs = 20'000'000;
  constexpr int64_t kSlackNs = 1'000'000;  // the clock read's own latency
  auto stream = NewStream();
  OwningDeviceMemory memory = Allocate(4099);
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE(absl::StrCat("round ", round));
    int64_t t[4] = {-1, -1, -1, -1};
    const int64_t before = SteadyClockNs();
    ASSERT_OK(stream->RecordTimestamp(&t[0]));
    ASSERT_OK(stream->MemZero(memory.ptr(), 4099));
    ASSERT_OK(stream->RecordTimestamp(&t[1]));
    ASSERT_OK(stream->DoHostCallback([] {
      std::this_thread::sleep_for(std::chrono::nanoseconds(kSleepNs));
      return absl::OkStatus();
    }));
    ASSERT_OK(stream->RecordTimestamp(&t[2]));
    ASSERT_OK(stream->RecordTimestamp(&t[3]));
    ASSERT_OK(stream->BlockHostUntilDone());
    const int64_t after = SteadyClockNs();
    EXPECT_GE(t[0], before - kSlackNs);
    EXPECT_LE(t[0], t[1]);
    EXPECT_GE(t[2] - t[1], kSleepNs - kSlackNs);
    EXPECT_LE(t[2], t[3]);
    EXPECT_LE(t[3], after + kSlackNs);
  }
  EXPECT_EQ(stream->RecordTimestamp(nullptr).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_OK(stream->BlockHostUntilDone());  // refused, not sticky
  // A failed stream takes no stamp.
  EXPECT_FALSE(stream->MemZero(memory.ptr(), 4100).ok());
  int64_t late = -1;
  EXPECT_FALSE(stream->RecordTimestamp(&late).ok());
  EXPECT_FALSE(stream->BlockHostUntilDone().ok());
  EXPECT_EQ(late, -1);
}

TEST_P(StreamExecutorConformanceTest, EventCarriesStreamErrorToWaiters) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Event> event, executor_->CreateEvent());
  OwningDeviceMemory memory = Allocate(4);
  auto a = NewStream(), b = NewStream();
  ASSERT_OK(b->Memset32(memory.ptr(), 7, 4));
  ASSERT_OK(b->BlockHostUntilDone());
  ASSERT_OK(a->DoHostCallback([] { return absl::DataLossError("boom"); }));
  (void)a->RecordEvent(event.get());  // may already report the error
  ASSERT_OK(b->WaitFor(event.get()));
  (void)b->Memset32(memory.ptr(), 9, 4);  // skipped
  absl::Status waited = b->BlockHostUntilDone();
  EXPECT_EQ(waited.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(waited.message(), HasSubstr("wait for event"));
  EXPECT_THAT(waited.message(), HasSubstr("boom"));
  EXPECT_EQ(event->Synchronize().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(event->PollForStatus(), Event::Status::kError);
  auto reader = NewStream();
  ASSERT_OK_AND_ASSIGN(auto back, ReadBack<uint32_t>(*reader, memory.get()));
  EXPECT_EQ(back[0], 7u);
}

// ---------------------------------------------------------- sticky errors

TEST_P(StreamExecutorConformanceTest, FailedCallbackSkipsLaterWork) {
  OwningDeviceMemory memory = Allocate(16);
  const std::vector<uint32_t> initial = {1, 2, 3, 4};
  auto stream = NewStream();
  ASSERT_OK(Upload(*stream, memory.ptr(), initial));
  bool later_callback_ran = false;
  ASSERT_OK(stream->DoHostCallback([] { return absl::InternalError("boom"); }));
  const std::vector<uint32_t> update = {5, 6, 7, 8};
  (void)stream->Memcpy(memory.ptr(), update.data(), 16);
  (void)stream->DoHostCallback([&later_callback_ran] {
    later_callback_ran = true;
    return absl::OkStatus();
  });
  absl::Status status = stream->BlockHostUntilDone();
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(status.message(), HasSubstr("host callback"));
  EXPECT_THAT(status.message(), HasSubstr("boom"));
  EXPECT_FALSE(later_callback_ran);
  EXPECT_EQ(stream->BlockHostUntilDone(), status);  // sticky
  EXPECT_EQ(stream->MemZero(memory.ptr(), 16), status);
  auto reader = NewStream();
  ASSERT_OK_AND_ASSIGN(auto back, ReadBack<uint32_t>(*reader, memory.get()));
  EXPECT_EQ(back, initial);
}

TEST_P(StreamExecutorConformanceTest, InvalidLaunchIsStickyAfterEarlierWork) {
  auto module = LoadModule(GetParam().read_test_kernels, "test_kernels");
  ASSERT_NE(module, nullptr);
  ASSERT_OK_AND_ASSIGN(auto kernel, module->GetKernel("count_blocks"));
  OwningDeviceMemory memory = Allocate(16);
  const std::vector<int32_t> data = {4, 3, 2, 1};
  auto stream = NewStream();
  ASSERT_OK(stream->Memcpy(memory.ptr(), data.data(), 16));
  LaunchDimensions dims;
  dims.grid.x = 0;
  absl::Status status = stream->Launch(*kernel, dims, {memory.get()});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("kernel launch 'count_blocks'"));
  EXPECT_THAT(status.message(), HasSubstr("grid.x"));
  EXPECT_EQ(stream->MemZero(memory.ptr(), 16), status);
  EXPECT_EQ(stream->BlockHostUntilDone(), status);
  auto reader = NewStream();
  ASSERT_OK_AND_ASSIGN(auto back, ReadBack<int32_t>(*reader, memory.get()));
  EXPECT_EQ(back, data);  // the memcpy before the launch ran
}

}  // namespace
}  // namespace stream_executor::testing
