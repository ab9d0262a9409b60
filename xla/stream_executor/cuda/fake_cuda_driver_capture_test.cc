// Stream capture and child-graph nodes in the fake driver, through the raw
// driver table: work enqueued on a capturing stream (a memset and a fake
// cuBLAS GEMM) does not run at the call but at each launch of a graph that
// holds it, with the addresses of the call; a child node's captured graph
// is swapped by cuGraphExecChildGraphNodeSetParams, so an update the caller
// forgets shows as a stale result.
#include <cublas_v2.h>
#include <cuda.h>

#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/stream_executor/cuda/cuda_driver_api.h"
#include "xla/stream_executor/cuda/fake_cublas.h"
#include "xla/stream_executor/cuda/fake_cuda_driver.h"

namespace stream_executor::cuda {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::Not;

constexpr float kSentinel = -7.0f;

class FakeCaptureTest : public ::testing::Test {
 protected:
  // C (2 x 3, column-major) = A (2 x 4) * B (4 x 3), A filled by a memset.
  static constexpr int kM = 2, kN = 3, kK = 4;

  void SetUp() override {
    ASSERT_EQ(api().cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(api().cuDevicePrimaryCtxRetain(&context_, 0), CUDA_SUCCESS);
    ASSERT_EQ(api().cuCtxSetCurrent(context_), CUDA_SUCCESS);
    ASSERT_EQ(api().cuStreamCreate(&stream_, 0), CUDA_SUCCESS);
    a_ = Alloc(kM * kK);
    b_ = Alloc(kK * kN);
    c1_ = Alloc(kM * kN);
    c2_ = Alloc(kM * kN);
    for (int i = 0; i < kK * kN; ++i) Host(b_)[i] = 0.5f * (i + 1);
    Host(a_)[0] = 0;
    Fill(c1_, kM * kN, kSentinel);
    Fill(c2_, kM * kN, kSentinel);
    ASSERT_EQ(cublas_.api().cublasCreate_v2(&handle_), CUBLAS_STATUS_SUCCESS);
    ASSERT_EQ(cublas_.api().cublasSetStream_v2(handle_, reinterpret_cast<cudaStream_t>(stream_)),
              CUBLAS_STATUS_SUCCESS);
  }
  void TearDown() override {
    cublas_.api().cublasDestroy_v2(handle_);
    api().cuStreamDestroy_v2(stream_);
    for (CUdeviceptr p : allocations_) api().cuMemFree_v2(p);
    api().cuDevicePrimaryCtxRelease_v2(0);
  }

  const CudaDriverApi& api() const { return driver_.api(); }
  CUdeviceptr Alloc(int floats) {
    CUdeviceptr p = 0;
    EXPECT_EQ(api().cuMemAlloc_v2(&p, floats * sizeof(float)), CUDA_SUCCESS);
    allocations_.push_back(p);
    return p;
  }
  static float* Host(CUdeviceptr p) { return reinterpret_cast<float*>(p); }
  static void Fill(CUdeviceptr p, int n, float v) {
    for (int i = 0; i < n; ++i) Host(p)[i] = v;
  }
  static unsigned Bits(float v) {
    unsigned bits;
    std::memcpy(&bits, &v, sizeof(bits));
    return bits;
  }
  std::vector<float> Read(CUdeviceptr p) const {
    return std::vector<float>(Host(p), Host(p) + kM * kN);
  }
  // Every element of A is `a`, so C[i][j] = a * sum_k B[k][j].
  std::vector<float> Expected(float a) const {
    std::vector<float> out;
    for (int j = 0; j < kN; ++j) {
      float column = 0;
      for (int k = 0; k < kK; ++k) column += Host(b_)[j * kK + k];
      for (int i = 0; i < kM; ++i) out.push_back(a * column);
    }
    return out;
  }

  // Captures "A := a; C := A * B" into a new graph.
  CUgraph CaptureMemsetAndGemm(float a, CUdeviceptr c) {
    EXPECT_EQ(api().cuStreamBeginCapture_v2(stream_, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
              CUDA_SUCCESS);
    EXPECT_EQ(api().cuMemsetD32Async(a_, Bits(a), kM * kK, stream_), CUDA_SUCCESS);
    const float alpha = 1, beta = 0;
    EXPECT_EQ(cublas_.api().cublasGemmStridedBatchedEx(
                  handle_, CUBLAS_OP_N, CUBLAS_OP_N, kM, kN, kK, &alpha,
                  reinterpret_cast<void*>(a_), CUDA_R_32F, kM, 0, reinterpret_cast<void*>(b_),
                  CUDA_R_32F, kK, 0, &beta, reinterpret_cast<void*>(c), CUDA_R_32F, kM, 0, 1,
                  CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
              CUBLAS_STATUS_SUCCESS);
    CUgraph graph = nullptr;
    EXPECT_EQ(api().cuStreamEndCapture(stream_, &graph), CUDA_SUCCESS);
    return graph;
  }

  FakeCudaDriver driver_;
  FakeCublas cublas_{driver_.api()};
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  cublasHandle_t handle_ = nullptr;
  CUdeviceptr a_ = 0, b_ = 0, c1_ = 0, c2_ = 0;
  std::vector<CUdeviceptr> allocations_;
};

TEST_F(FakeCaptureTest, CapturedWorkRunsAtEachGraphLaunchNotAtTheCall) {
  CUgraph captured = CaptureMemsetAndGemm(2.0f, c1_);
  ASSERT_NE(captured, nullptr);
  ASSERT_EQ(api().cuStreamSynchronize(stream_), CUDA_SUCCESS);
  // Nothing ran: A and C untouched, nothing executed.
  EXPECT_EQ(Host(a_)[0], 0.0f);
  EXPECT_EQ(Read(c1_), std::vector<float>(kM * kN, kSentinel));
  EXPECT_TRUE(driver_.executed().empty());
  EXPECT_EQ(cublas_.recorded().size(), 1u);  // the call itself was made

  // As a child node of an outer graph, instantiated and launched twice.
  CUgraph outer = nullptr;
  ASSERT_EQ(api().cuGraphCreate(&outer, 0), CUDA_SUCCESS);
  CUgraphNode node = nullptr;
  ASSERT_EQ(api().cuGraphAddChildGraphNode(&node, outer, nullptr, 0, captured), CUDA_SUCCESS);
  // The node holds a clone: the captured graph may go.
  ASSERT_EQ(api().cuGraphDestroy(captured), CUDA_SUCCESS);
  CUgraphExec exec = nullptr;
  ASSERT_EQ(api().cuGraphInstantiateWithFlags(&exec, outer, 0), CUDA_SUCCESS);
  for (int launch = 0; launch < 2; ++launch) {
    Fill(c1_, kM * kN, kSentinel);
    ASSERT_EQ(api().cuGraphLaunch(exec, stream_), CUDA_SUCCESS);
    ASSERT_EQ(api().cuStreamSynchronize(stream_), CUDA_SUCCESS);
    EXPECT_EQ(Read(c1_), Expected(2.0f)) << "launch " << launch;
  }
  EXPECT_THAT(driver_.executed(), ElementsAre("graph memset32 32", "graph hostfn",
                                              "graph memset32 32", "graph hostfn"));
  EXPECT_EQ(cublas_.recorded().size(), 1u);  // replayed, not called again
  EXPECT_EQ(api().cuGraphExecDestroy(exec), CUDA_SUCCESS);
  EXPECT_EQ(api().cuGraphDestroy(outer), CUDA_SUCCESS);
  EXPECT_EQ(driver_.live_graphs(), 0);
}

TEST_F(FakeCaptureTest, ChildNodeUpdateSwapsTheCapturedCallAndAForgottenOneIsStale) {
  CUgraph first = CaptureMemsetAndGemm(2.0f, c1_);
  CUgraph outer = nullptr;
  ASSERT_EQ(api().cuGraphCreate(&outer, 0), CUDA_SUCCESS);
  CUgraphNode node = nullptr;
  ASSERT_EQ(api().cuGraphAddChildGraphNode(&node, outer, nullptr, 0, first), CUDA_SUCCESS);
  CUgraphExec updated = nullptr, stale = nullptr;
  ASSERT_EQ(api().cuGraphInstantiateWithFlags(&updated, outer, 0), CUDA_SUCCESS);
  ASSERT_EQ(api().cuGraphInstantiateWithFlags(&stale, outer, 0), CUDA_SUCCESS);

  // The output moves to c2 and A's value changes: re-capture, update one.
  CUgraph second = CaptureMemsetAndGemm(3.0f, c2_);
  ASSERT_EQ(api().cuGraphExecChildGraphNodeSetParams(updated, node, second), CUDA_SUCCESS);
  ASSERT_EQ(api().cuGraphLaunch(updated, stream_), CUDA_SUCCESS);
  ASSERT_EQ(api().cuStreamSynchronize(stream_), CUDA_SUCCESS);
  EXPECT_EQ(Read(c2_), Expected(3.0f));
  EXPECT_EQ(Read(c1_), std::vector<float>(kM * kN, kSentinel));

  // The exec not updated still writes the old output with the old value.
  Fill(c2_, kM * kN, kSentinel);
  ASSERT_EQ(api().cuGraphLaunch(stale, stream_), CUDA_SUCCESS);
  ASSERT_EQ(api().cuStreamSynchronize(stream_), CUDA_SUCCESS);
  EXPECT_EQ(Read(c1_), Expected(2.0f));
  EXPECT_EQ(Read(c2_), std::vector<float>(kM * kN, kSentinel));

  // A graph of another topology (the memset alone) is refused.
  ASSERT_EQ(api().cuStreamBeginCapture_v2(stream_, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
  ASSERT_EQ(api().cuMemsetD32Async(a_, 0, kM * kK, stream_), CUDA_SUCCESS);
  CUgraph memset_only = nullptr;
  ASSERT_EQ(api().cuStreamEndCapture(stream_, &memset_only), CUDA_SUCCESS);
  EXPECT_EQ(api().cuGraphExecChildGraphNodeSetParams(updated, node, memset_only),
            CUDA_ERROR_INVALID_VALUE);
  // Only child nodes take a child graph.
  EXPECT_EQ(api().cuGraphExecChildGraphNodeSetParams(updated, nullptr, second),
            CUDA_ERROR_INVALID_VALUE);

  for (CUgraphExec exec : {updated, stale}) api().cuGraphExecDestroy(exec);
  for (CUgraph graph : {first, second, memset_only, outer}) api().cuGraphDestroy(graph);
  EXPECT_EQ(driver_.live_graphs(), 0);
  EXPECT_EQ(driver_.live_graph_execs(), 0);
}

TEST_F(FakeCaptureTest, UnsupportedCallsInvalidateTheCaptureAndStatesAreChecked) {
  CUgraph graph = nullptr;
  EXPECT_EQ(api().cuStreamEndCapture(stream_, &graph), CUDA_ERROR_ILLEGAL_STATE);
  ASSERT_EQ(api().cuStreamBeginCapture_v2(stream_, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
  EXPECT_EQ(api().cuStreamBeginCapture_v2(stream_, CU_STREAM_CAPTURE_MODE_RELAXED),
            CUDA_ERROR_ILLEGAL_STATE);
  ASSERT_EQ(api().cuMemsetD32Async(a_, Bits(1.0f), kM * kK, stream_), CUDA_SUCCESS);
  EXPECT_EQ(api().cuStreamSynchronize(stream_), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  EXPECT_EQ(api().cuStreamEndCapture(stream_, &graph), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  EXPECT_EQ(graph, nullptr);
  EXPECT_EQ(driver_.live_graphs(), 0);
  // The stream works normally again, and the captured memset never ran.
  ASSERT_EQ(api().cuStreamSynchronize(stream_), CUDA_SUCCESS);
  EXPECT_EQ(Host(a_)[0], 0.0f);
  EXPECT_THAT(driver_.executed(), Not(Contains("memset32 32")));
}

TEST(FakeCaptureApiTest, CaptureEntryPointsAreOptional) {
  {
    FakeCudaDriver driver;
    EXPECT_TRUE(HasCudaGraphCaptureApi(driver.api()));
    CudaDriverApi partial = driver.api();
    partial.cuGraphExecChildGraphNodeSetParams = nullptr;
    EXPECT_FALSE(HasCudaGraphCaptureApi(partial));
    EXPECT_TRUE(HasCudaGraphApi(partial));
  }
  {
    FakeCudaDriver::Options options;
    options.capture_api = false;
    FakeCudaDriver driver(options);
    EXPECT_TRUE(HasCudaGraphApi(driver.api()));
    EXPECT_FALSE(HasCudaGraphCaptureApi(driver.api()));
    EXPECT_EQ(driver.api().cuStreamBeginCapture_v2, nullptr);
  }
  FakeCudaDriver::Options options;
  options.graph_api = false;
  FakeCudaDriver driver(options);
  EXPECT_FALSE(HasCudaGraphCaptureApi(driver.api()));
  EXPECT_EQ(driver.api().cuGraphAddChildGraphNode, nullptr);
}

}  // namespace
}  // namespace stream_executor::cuda
