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

#include <string>

#include "xla/stream_executor/cuda/fake_cuda_driver.h"

namespace xla::aot::testing {

// Elements of every array (odd on purpose).
inline constexpr int kGraphElems = 37;
// Thunks of the artifact, all in its one graph.
inline constexpr int kGraphNodes = 5;

// The serialized artifact (target sm_80).
std::string GraphArtifactBytes();
// The same computation as HLO text.
std::string GraphHlo();
// Makes the fake driver run add_f32 and mul_f32 (one element per block:
// grid_x elements) on its stream threads.
void RegisterGraphKernels(stream_executor::cuda::FakeCudaDriver& driver);

}  // namespace xla::aot::testing

#endif  // XLA_AOT_CUDA_GRAPH_TEST_UTIL_H_
