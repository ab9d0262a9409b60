// FakeCudaThunkTest (test-only): a gtest fixture that runs thunks on the
// "cuda" platform of a fake driver (xla/stream_executor/cuda/
// fake_cuda_driver.h): device 0, one stream, f32 uploads and downloads, and
// ExecuteParams over one stream. A derived fixture declares the fake
// libraries it needs (FakeCublas, FakeCudnn, ...) as members: they are
// built after the driver and outlive the platform, which SetUp creates and
// TearDown destroys (the executor releases its library handles through
// them).
//
// Thread-safety: as gtest fixtures (one test at a time).
#ifndef XLA_BACKENDS_GPU_RUNTIME_FAKE_CUDA_THUNK_TEST_H_
#define XLA_BACKENDS_GPU_RUNTIME_FAKE_CUDA_THUNK_TEST_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/buffer_allocation.h"
#include "xla/backends/gpu/runtime/thunk.h"
#include "xla/stream_executor/cuda/cuda_platform.h"
#include "xla/stream_executor/cuda/fake_cuda_driver.h"
#include "xla/stream_executor/owning_device_memory.h"

namespace xla::gpu::testing {

// The first `size` bytes of allocation `allocation`.
BufferSlice WholeSlice(int64_t allocation, int64_t size);

class FakeCudaThunkTest : public ::testing::Test {
 protected:
  // Opens device 0 of the fake driver and one stream (fails the test
  // otherwise).
  void SetUp() override;
  // Destroys the stream and the platform.
  void TearDown() override;

  // A fresh device buffer holding `host`, copied before this returns.
  stream_executor::OwningDeviceMemory Upload(const std::vector<float>& host);
  // The first `elements` floats of `memory`.
  std::vector<float> Download(const stream_executor::OwningDeviceMemory& memory, size_t elements);
  // ExecuteParams on executor_ and stream_ over `buffers` (which must
  // outlive the call that uses them).
  ExecuteParams Params(const BufferAllocations& buffers);

  stream_executor::cuda::FakeCudaDriver driver_;
  std::unique_ptr<stream_executor::cuda::CudaPlatform> platform_;
  stream_executor::StreamExecutor* executor_ = nullptr;
  std::unique_ptr<stream_executor::Stream> stream_;

 private:
  stream_executor::Stream* streams_[1] = {nullptr};
};

}  // namespace xla::gpu::testing

#endif  // XLA_BACKENDS_GPU_RUNTIME_FAKE_CUDA_THUNK_TEST_H_
