#include "xla/backends/gpu/runtime/fake_cuda_thunk_test.h"

#include <utility>

namespace xla::gpu::testing {

namespace se = ::stream_executor;

BufferSlice WholeSlice(int64_t allocation, int64_t size) {
  BufferSlice slice;
  slice.allocation = allocation;
  slice.size = size;
  return slice;
}

void FakeCudaThunkTest::SetUp() {
  platform_ = std::make_unique<se::cuda::CudaPlatform>(&driver_.api());
  absl::StatusOr<se::StreamExecutor*> device = platform_->GetDevice(0);
  ASSERT_TRUE(device.ok()) << device.status();
  executor_ = *device;
  ASSERT_EQ(executor_->platform_name(), "cuda");
  absl::StatusOr<std::unique_ptr<se::Stream>> stream = executor_->CreateStream();
  ASSERT_TRUE(stream.ok()) << stream.status();
  stream_ = *std::move(stream);
  streams_[0] = stream_.get();
}

void FakeCudaThunkTest::TearDown() {
  stream_.reset();
  platform_.reset();
}

se::OwningDeviceMemory FakeCudaThunkTest::Upload(const std::vector<float>& host) {
  absl::StatusOr<se::OwningDeviceMemory> memory =
      se::OwningDeviceMemory::Allocate(executor_, host.size() * sizeof(float));
  EXPECT_TRUE(memory.ok()) << memory.status();
  EXPECT_TRUE(stream_->Memcpy(memory->ptr(), host.data(), host.size() * sizeof(float)).ok());
  // `host` may be a temporary: the copy must have run before it goes.
  EXPECT_TRUE(stream_->BlockHostUntilDone().ok());
  return std::move(memory).value();
}

std::vector<float> FakeCudaThunkTest::Download(const se::OwningDeviceMemory& memory,
                                               size_t elements) {
  std::vector<float> out(elements);
  EXPECT_TRUE(stream_->Memcpy(out.data(), memory.get(), elements * sizeof(float)).ok());
  EXPECT_TRUE(stream_->BlockHostUntilDone().ok());
  return out;
}

ExecuteParams FakeCudaThunkTest::Params(const BufferAllocations& buffers) {
  ExecuteParams params;
  params.executor = executor_;
  params.buffers = &buffers;
  params.streams = streams_;
  return params;
}

}  // namespace xla::gpu::testing
