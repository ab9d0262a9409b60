// Test helpers for CUDA graphs on the fake driver (test-only): one
// hand-written sm_80 artifact whose five thunks on one stream (a memset, two
// kinds of PTX kernel, a device-to-device copy) form one graph, the HLO it
// computes (the evaluator's oracle), and the host functions that stand in
// for its kernels on the fake driver.
//
//   x, y: f32[37] parameters
//   ones = 1.0 (memset32 of a temp)          node 0
//   s = x + y          (add_f32, temp)       node 1
//   t = copy(s)        (device-to-device)    node 2
//   out0 = t * x       (mul_f32)             node 3
//   out1 = s + ones    (add_f32)             node 4
#ifndef XLA_AOT_CUDA_GRAPH_TEST_UTIL_H_
#define XLA_AOT_CUDA_GRAPH_TEST_UTIL_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "xla/aot/executable.h"
#include "xla/stream_executor/cuda/cuda_platform.h"
#include "xla/stream_executor/cuda/fake_cuda_driver.h"
#include "xla/stream_executor/stream.h"

namespace xla::aot::testing {

// Elements of every array (odd on purpose).
inline constexpr int kGraphElems = 37;
// Thunks of the artifact, all in its one graph.
inline constexpr int kGraphNodes = 5;

// The serialized artifact (target sm_80).
std::string GraphArtifactBytes();
// The same computation as HLO text.
std::string GraphHlo();
// A second artifact, whose three thunks on one stream are a kernel, a GEMM
// and a kernel (one graph when the driver can capture the GEMM):
//
//   x: f32[5,7], y: f32[7,3] parameters
//   s = x + x          (add_f32, temp)       node 0
//   out0 = s . y       (GEMM, f32[5,3])      node 1
//   out1 = out0 * out0 (mul_f32)             node 2
inline constexpr int kGemmM = 5, kGemmK = 7, kGemmN = 3;
inline constexpr int kGemmGraphNodes = 3;
std::string GemmGraphArtifactBytes();
std::string GemmGraphHlo();

// Device 0 of `driver` with `artifact` loaded and initialized on it, and
// one stream of that device.
struct FakeGraphDevice {
  ~FakeGraphDevice() { Close(); }
  // Releases the stream and the executable, then the platform.
  void Close() {
    stream.reset();
    exe.reset();
    executor = nullptr;
    platform.reset();
  }

  std::unique_ptr<stream_executor::cuda::CudaPlatform> platform;
  stream_executor::StreamExecutor* executor = nullptr;
  std::unique_ptr<Executable> exe;
  std::unique_ptr<stream_executor::Stream> stream;
};
// Opens `device` as above (fake libraries the artifact needs must be
// installed first); the first error of the platform, the load or the
// initialization otherwise. `driver` must outlive `device`.
absl::Status OpenFakeGraphDevice(const stream_executor::cuda::FakeCudaDriver& driver,
                                 const std::string& artifact, FakeGraphDevice& device);

// Makes the fake driver run add_f32 and mul_f32 (one element per block:
// grid_x elements) on its stream threads.
void RegisterGraphKernels(stream_executor::cuda::FakeCudaDriver& driver);

}  // namespace xla::aot::testing

#endif  // XLA_AOT_CUDA_GRAPH_TEST_UTIL_H_
