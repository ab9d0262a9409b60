// Copies with a dynamic offset on the CUDA platform of the fake driver: a
// while thunk pushes rows of a device buffer into host memory
// (cuMemcpyDtoHAsync at the row's offset) and a second one pops them back
// in reverse (cuMemcpyHtoDAsync).
#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/copy_thunk.h"
#include "xla/backends/gpu/runtime/fake_cuda_thunk_test.h"
#include "xla/backends/gpu/runtime/while_thunk.h"

namespace xla::gpu {
namespace {

using testing::WholeSlice;

constexpr int kRows = 5;
constexpr int kRow = 33;  // floats per row
constexpr int64_t kRowBytes = kRow * 4;

// A while thunk of `trips` iterations around `copy`.
std::unique_ptr<WhileThunk> Loop(int64_t trips, std::unique_ptr<Thunk> copy) {
  std::vector<std::unique_ptr<Thunk>> body;
  body.push_back(std::move(copy));
  return std::make_unique<WhileThunk>(
      ThunkInfo{0, "loop"}, std::make_unique<SequentialThunk>(ThunkInfo{}, std::vector<std::unique_ptr<Thunk>>{}),
      WholeSlice(3, 1), std::make_unique<SequentialThunk>(ThunkInfo{}, std::move(body)), trips);
}

// Allocations: 0 device rows (kRows x kRow floats), 1 host stack (same
// size), 2 device result (same size), 3 an unused predicate byte.
class DynamicCopyOnCuda : public testing::FakeCudaThunkTest {};

TEST_F(DynamicCopyOnCuda, PushesRowsToHostMemoryAndPopsThemInReverse) {
  std::vector<float> rows(kRows * kRow);
  std::iota(rows.begin(), rows.end(), 0.25f);
  stream_executor::OwningDeviceMemory device = Upload(rows);
  stream_executor::OwningDeviceMemory result = Upload(std::vector<float>(kRows * kRow, -1.0f));
  stream_executor::OwningDeviceMemory predicate = Upload({0.0f});
  std::vector<float> host(kRows * kRow, -2.0f);
  const BufferAllocations buffers({device.get(),
                                   stream_executor::DeviceMemoryBase(host.data(), host.size() * 4),
                                   result.get(), predicate.get()});

  CopyDynamicOffset push;
  push.source_stride = kRowBytes;
  push.destination_stride = kRowBytes;
  push.source_allocation_size = push.destination_allocation_size = kRows * kRowBytes;
  CopyDynamicOffset pop = push;
  pop.source_base = (kRows - 1) * kRowBytes;
  pop.source_stride = -kRowBytes;
  auto forward = Loop(kRows, std::make_unique<CopyThunk>(ThunkInfo{0, "push"}, WholeSlice(0, kRowBytes),
                                                         WholeSlice(1, kRowBytes),
                                                         CopyThunk::Direction::kDeviceToHost, push));
  auto backward = Loop(kRows, std::make_unique<CopyThunk>(ThunkInfo{0, "pop"}, WholeSlice(1, kRowBytes),
                                                          WholeSlice(2, kRowBytes),
                                                          CopyThunk::Direction::kHostToDevice, pop));
  ASSERT_TRUE(forward->ExecuteOnStream(Params(buffers)).ok());
  ASSERT_TRUE(stream_->BlockHostUntilDone().ok());
  EXPECT_EQ(host, rows);
  ASSERT_TRUE(backward->ExecuteOnStream(Params(buffers)).ok());
  const std::vector<float> got = Download(result, rows.size());
  for (int i = 0; i < kRows; ++i) {
    for (int j = 0; j < kRow; ++j) {
      ASSERT_EQ(got[i * kRow + j], rows[(kRows - 1 - i) * kRow + j]) << "row " << i << " column " << j;
    }
  }
  // One loop too many: the sixth pop would read before the host stack.
  auto over = Loop(kRows + 1, std::make_unique<CopyThunk>(ThunkInfo{0, "pop"}, WholeSlice(1, kRowBytes),
                                                          WholeSlice(2, kRowBytes),
                                                          CopyThunk::Direction::kHostToDevice, pop));
  const absl::Status status = over->ExecuteOnStream(Params(buffers));
  EXPECT_EQ(status.code(), absl::StatusCode::kOutOfRange) << status;
}

}  // namespace
}  // namespace xla::gpu
