// Convolutions through cuDNN's legacy API on the fake driver and the fake
// cuDNN (fake_cudnn.h): the descriptor values CudnnConvolutionArgsFor
// derives, the algorithm the heuristics choose under a workspace limit and
// the TF32 rule, hand-computed numbers for the three kinds (the fake
// computes from the descriptors it was given), the real libcudnn.so.9 of
// this machine resolving every entry point, and the error when cuDNN is
// missing. Fused epilogues (bias, bias + ReLU): their descriptors, the
// algorithm cuDNN requires for IDENTITY, and hand-computed numbers.
#include "xla/stream_executor/cuda/cuda_dnn.h"

#include <cmath>
#include <cstdlib>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/stream_executor/command_buffer.h"
#include "xla/stream_executor/cuda/cuda_executor.h"
#include "xla/stream_executor/cuda/cuda_platform.h"
#include "xla/stream_executor/cuda/fake_cuda_driver.h"
#include "xla/stream_executor/cuda/fake_cudnn.h"
#include "xla/stream_executor/owning_device_memory.h"

namespace stream_executor::cuda {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// x [3, 3, 7, 5] stored NHWC, w [5, 3, 3, 2] OHWI, stride 2x1, padding 1x0,
// dilation 1x2: y [3, 5, 4, 3] stored NHWC.
DnnConvolutionConfig OddNhwc() {
  DnnConvolutionConfig c;
  c.input = {{3, 3, 7, 5}, {105, 1, 15, 3}};
  c.filter_dims = {5, 3, 3, 2};
  c.filter_layout = DnnFilterLayout::kOHWI;
  c.padding = {1, 0};
  c.strides = {2, 1};
  c.dilations = {1, 2};
  c.output = {{3, 5, 4, 3}, {60, 1, 15, 5}};
  return c;
}

// x [1, 1, 3, 3] = 1..9, w [1, 1, 2, 2] = 1..4, y [1, 1, 2, 2], NCHW.
DnnConvolutionConfig Tiny(DnnConvolutionKind kind) {
  DnnConvolutionConfig c;
  c.kind = kind;
  c.input = {{1, 1, 3, 3}, {9, 9, 3, 1}};
  c.filter_dims = {1, 1, 2, 2};
  c.padding = {0, 0};
  c.strides = {1, 1};
  c.dilations = {1, 1};
  c.output = {{1, 1, 2, 2}, {4, 4, 2, 1}};
  return c;
}

TEST(CudnnConvolutionArgsTest, NhwcStridesAndOhwiFilter) {
  absl::StatusOr<CudnnConvolutionArgs> a = CudnnConvolutionArgsFor(OddNhwc());
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_THAT(a->x_dims, ElementsAre(3, 3, 7, 5));
  EXPECT_THAT(a->x_strides, ElementsAre(105, 1, 15, 3));
  EXPECT_THAT(a->y_strides, ElementsAre(60, 1, 15, 5));
  EXPECT_EQ(a->filter_format, CUDNN_TENSOR_NHWC);
  EXPECT_THAT(a->filter_dims, ElementsAre(5, 3, 3, 2));
  EXPECT_THAT(a->padding, ElementsAre(1, 0));
  EXPECT_THAT(a->strides, ElementsAre(2, 1));
  EXPECT_THAT(a->dilations, ElementsAre(1, 2));
  EXPECT_EQ(a->math_type, CUDNN_FMA_MATH);
  EXPECT_EQ(a->data_type, CUDNN_DATA_FLOAT);
  DnnConvolutionConfig tf32 = OddNhwc();
  tf32.allow_tf32 = true;
  EXPECT_EQ(CudnnConvolutionArgsFor(tf32)->math_type, CUDNN_DEFAULT_MATH);
  DnnConvolutionConfig bf16 = OddNhwc();
  bf16.element_type = DnnElementType::kBF16;
  EXPECT_EQ(CudnnConvolutionArgsFor(bf16)->data_type, CUDNN_DATA_BFLOAT16);
  EXPECT_EQ(CudnnConvolutionArgsFor(bf16)->math_type, CUDNN_DEFAULT_MATH);
}

TEST(CudnnConvolutionArgsTest, RefusesInconsistentConfigs) {
  DnnConvolutionConfig wrong_output = OddNhwc();
  wrong_output.output.dims[2] = 5;
  EXPECT_THAT(CudnnConvolutionArgsFor(wrong_output).status().message(),
              HasSubstr("spatial dimension 0 is 5 but the window gives 4"));
  DnnConvolutionConfig groups = OddNhwc();
  groups.feature_groups = 2;
  EXPECT_THAT(CudnnConvolutionArgsFor(groups).status().message(), HasSubstr("must divide C = 3"));
  DnnConvolutionConfig half_tf32 = OddNhwc();
  half_tf32.element_type = DnnElementType::kF16;
  half_tf32.allow_tf32 = true;
  EXPECT_THAT(CudnnConvolutionArgsFor(half_tf32).status().message(), HasSubstr("TF32"));
  DnnConvolutionConfig one_d = OddNhwc();
  one_d.input.dims.pop_back();
  EXPECT_THAT(CudnnConvolutionArgsFor(one_d).status().message(), HasSubstr("rank 3"));
}

TEST(DnnFilterStridesTest, PackedOrders) {
  DnnConvolutionConfig c = OddNhwc();
  EXPECT_THAT(DnnFilterStrides(c), ElementsAre(18, 1, 6, 3));
  c.filter_layout = DnnFilterLayout::kOIHW;
  EXPECT_THAT(DnnFilterStrides(c), ElementsAre(18, 6, 2, 1));
}

class CudaDnnTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SetCudnnApiForTesting(&cudnn_.api());
    platform_ = std::make_unique<CudaPlatform>(&driver_.api());
    absl::StatusOr<StreamExecutor*> device = platform_->GetDevice(0);
    ASSERT_TRUE(device.ok()) << device.status();
    executor_ = *device;
    absl::StatusOr<std::unique_ptr<Stream>> stream = executor_->CreateStream();
    ASSERT_TRUE(stream.ok());
    stream_ = *std::move(stream);
  }
  void TearDown() override {
    stream_.reset();
    SetCudnnApiForTesting(nullptr);
  }

  OwningDeviceMemory Upload(const std::vector<float>& host) {
    absl::StatusOr<OwningDeviceMemory> memory = OwningDeviceMemory::Allocate(executor_, host.size() * 4);
    EXPECT_TRUE(memory.ok());
    EXPECT_TRUE(stream_->Memcpy(memory->ptr(), host.data(), host.size() * 4).ok());
    EXPECT_TRUE(stream_->BlockHostUntilDone().ok());
    return std::move(memory).value();
  }

  std::vector<float> Download(const OwningDeviceMemory& memory, size_t elements) {
    std::vector<float> out(elements);
    EXPECT_TRUE(stream_->Memcpy(out.data(), memory.get(), elements * 4).ok());
    EXPECT_TRUE(stream_->BlockHostUntilDone().ok());
    return out;
  }

  // Runs `config` on x, w, y (the result's buffer is overwritten) and
  // `bias` (an epilogue's) and returns the three buffers afterwards.
  std::vector<std::vector<float>> Run(const DnnConvolutionConfig& config, std::vector<float> x,
                                      std::vector<float> w, std::vector<float> y,
                                      uint64_t workspace_limit = 1 << 20,
                                      std::vector<float> bias = {0}) {
    absl::StatusOr<std::unique_ptr<DnnConvolutionPlan>> plan =
        executor_->PrepareConvolution(config, workspace_limit);
    EXPECT_TRUE(plan.ok()) << plan.status();
    if (!plan.ok()) return {};
    OwningDeviceMemory xd = Upload(x), wd = Upload(w), yd = Upload(y), bd = Upload(bias);
    OwningDeviceMemory ws = Upload(std::vector<float>(workspace_limit / 4 + 1, 0));
    EXPECT_TRUE(
        stream_->Convolution(**plan, xd.get(), wd.get(), yd.get(), ws.get(), bd.get()).ok());
    return {Download(xd, x.size()), Download(wd, w.size()), Download(yd, y.size())};
  }

  FakeCudaDriver driver_;
  FakeCudnn cudnn_{driver_.api()};
  std::unique_ptr<CudaPlatform> platform_;
  StreamExecutor* executor_ = nullptr;
  std::unique_ptr<Stream> stream_;
};

TEST_F(CudaDnnTest, ForwardBackwardDataBackwardFilterByHand) {
  const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w = {1, 2, 3, 4};
  EXPECT_THAT(Run(Tiny(DnnConvolutionKind::kForward), x, w, {-1, -1, -1, -1})[2],
              ElementsAre(37, 47, 67, 77));
  // dy = e00: dx is the filter at the top-left corner, zero elsewhere.
  EXPECT_THAT(Run(Tiny(DnnConvolutionKind::kBackwardData), std::vector<float>(9, -1), w,
                  {1, 0, 0, 0})[0],
              ElementsAre(1, 2, 0, 3, 4, 0, 0, 0, 0));
  // dy = e11: dw is x's bottom-right 2x2 window.
  EXPECT_THAT(Run(Tiny(DnnConvolutionKind::kBackwardFilter), x, {-1, -1, -1, -1},
                  {0, 0, 0, 1})[1],
              ElementsAre(5, 6, 8, 9));
  const std::vector<FakeCudnnCall> calls = cudnn_.recorded();
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0].kind, DnnConvolutionKind::kForward);
  EXPECT_EQ(calls[1].kind, DnnConvolutionKind::kBackwardData);
  EXPECT_EQ(calls[2].kind, DnnConvolutionKind::kBackwardFilter);
  EXPECT_EQ(calls[0].conv.mode, CUDNN_CROSS_CORRELATION);
  EXPECT_EQ(calls[0].alpha, 1.0f);
  EXPECT_EQ(calls[0].beta, 0.0f);
  EXPECT_NE(calls[0].stream, nullptr);
}

// A convolution as a command-buffer node: captured from the fake cuDNN
// into a child graph, it runs at the graph launch; moved to another output
// it is captured again and its child node swapped, and the old output is
// left alone.
TEST_F(CudaDnnTest, ConvolutionInACommandBufferIsCapturedAndFollowsItsOutput) {
  ASSERT_TRUE(executor_->CommandBuffersCaptureLibraryCalls());
  absl::StatusOr<std::unique_ptr<DnnConvolutionPlan>> plan =
      executor_->PrepareConvolution(Tiny(DnnConvolutionKind::kForward), 1 << 20);
  ASSERT_TRUE(plan.ok()) << plan.status();
  OwningDeviceMemory x = Upload({1, 2, 3, 4, 5, 6, 7, 8, 9}), w = Upload({1, 2, 3, 4});
  OwningDeviceMemory y1 = Upload({-1, -1, -1, -1}), y2 = Upload({-2, -2, -2, -2});
  OwningDeviceMemory ws = Upload(std::vector<float>(8, 0)), bias = Upload({0});
  absl::StatusOr<std::unique_ptr<CommandBuffer>> buffer = executor_->CreateCommandBuffer();
  ASSERT_TRUE(buffer.ok()) << buffer.status();
  auto command = [&](const OwningDeviceMemory& y) {
    return DeviceCommand::Convolution(**plan, x.get(), w.get(), y.get(), ws.get(), bias.get());
  };
  ASSERT_TRUE((*buffer)->Append(command(y1)).ok());
  ASSERT_TRUE((*buffer)->Finalize().ok());
  EXPECT_EQ(cudnn_.recorded().size(), 1u);  // the capture called cuDNN
  EXPECT_THAT(Download(y1, 4), ElementsAre(-1, -1, -1, -1));  // and nothing ran
  ASSERT_TRUE((*buffer)->Submit(stream_.get()).ok());
  EXPECT_THAT(Download(y1, 4), ElementsAre(37, 47, 67, 77));

  // A command of another plan cannot replace it.
  absl::StatusOr<std::unique_ptr<DnnConvolutionPlan>> other =
      executor_->PrepareConvolution(Tiny(DnnConvolutionKind::kForward), 1 << 20);
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE((*buffer)
                   ->Update(0, DeviceCommand::Convolution(**other, x.get(), w.get(), y2.get(),
                                                          ws.get(), bias.get()))
                   .ok());

  const std::vector<float> reset = {-1, -1, -1, -1};
  ASSERT_TRUE(stream_->Memcpy(y1.ptr(), reset.data(), 16).ok());  // a stale node would rewrite it
  ASSERT_TRUE((*buffer)->Update(0, command(y2)).ok());
  ASSERT_TRUE((*buffer)->Submit(stream_.get()).ok());
  EXPECT_THAT(Download(y2, 4), ElementsAre(37, 47, 67, 77));
  EXPECT_THAT(Download(y1, 4), ElementsAre(-1, -1, -1, -1));
  EXPECT_EQ(driver_.calls("cuGraphExecChildGraphNodeSetParams"), 1);
  EXPECT_EQ(driver_.calls("cuStreamBeginCapture_v2"), 2);
  EXPECT_EQ(cudnn_.recorded().size(), 2u);

  // Made for stream_, a graph with a captured call runs only there.
  absl::StatusOr<std::unique_ptr<CommandBuffer>> bound = executor_->CreateCommandBuffer(stream_.get());
  ASSERT_TRUE(bound.ok());
  ASSERT_TRUE((*bound)->Append(command(y1)).ok());
  ASSERT_TRUE((*bound)->Finalize().ok());
  absl::StatusOr<std::unique_ptr<Stream>> other_stream = executor_->CreateStream();
  ASSERT_TRUE(other_stream.ok());
  EXPECT_THAT((*bound)->Submit(other_stream->get()).message(), HasSubstr("must be submitted on"));
  EXPECT_TRUE((*bound)->Submit(stream_.get()).ok());
  EXPECT_THAT(Download(y1, 4), ElementsAre(37, 47, 67, 77));
}

TEST_F(CudaDnnTest, AlgorithmByWorkspaceLimitAndTf32Rule) {
  DnnConvolutionConfig c = Tiny(DnnConvolutionKind::kForward);
  absl::StatusOr<std::unique_ptr<DnnConvolutionPlan>> exact = executor_->PrepareConvolution(c, 1 << 20);
  ASSERT_TRUE(exact.ok()) << exact.status();
  EXPECT_EQ((*exact)->algorithm(), 0);  // the tensor-core algorithm is not exact f32
  EXPECT_EQ((*exact)->workspace_bytes(), 0u);
  c.allow_tf32 = true;
  absl::StatusOr<std::unique_ptr<DnnConvolutionPlan>> fast = executor_->PrepareConvolution(c, 1 << 20);
  ASSERT_TRUE(fast.ok());
  EXPECT_EQ((*fast)->algorithm(), 1);
  EXPECT_EQ((*fast)->workspace_bytes(), kFakeCudnnWorkspaceBytes);
  absl::StatusOr<std::unique_ptr<DnnConvolutionPlan>> small =
      executor_->PrepareConvolution(c, kFakeCudnnWorkspaceBytes - 1);
  ASSERT_TRUE(small.ok());
  EXPECT_EQ((*small)->algorithm(), 0);
  EXPECT_EQ(cudnn_.live_handles(), 1);
}

TEST_F(CudaDnnTest, Tf32RoundsOperandsOnlyWhenAllowed) {
  // 1 + 2^-12 is not a TF32 value (10 mantissa bits): it rounds to 1.
  const float v = 1.0f + std::ldexp(1.0f, -12);
  DnnConvolutionConfig c = Tiny(DnnConvolutionKind::kForward);
  const std::vector<float> x(9, v), w = {1, 0, 0, 0};
  EXPECT_EQ(Run(c, x, w, {0, 0, 0, 0})[2][0], v);
  c.allow_tf32 = true;
  EXPECT_EQ(Run(c, x, w, {0, 0, 0, 0})[2][0], 1.0f);
}

TEST_F(CudaDnnTest, SmallBuffersAndWorkspaceAreRefusedAtEnqueue) {
  DnnConvolutionConfig c = Tiny(DnnConvolutionKind::kForward);
  c.allow_tf32 = true;
  absl::StatusOr<std::unique_ptr<DnnConvolutionPlan>> plan = executor_->PrepareConvolution(c, 1 << 20);
  ASSERT_TRUE(plan.ok());
  OwningDeviceMemory x = Upload(std::vector<float>(9, 1)), w = Upload({1, 2, 3, 4});
  OwningDeviceMemory y = Upload({0, 0, 0});
  OwningDeviceMemory ws = Upload(std::vector<float>(kFakeCudnnWorkspaceBytes / 4, 0));
  EXPECT_THAT(
      stream_->Convolution(**plan, x.get(), w.get(), y.get(), ws.get(), DeviceMemoryBase()).message(),
      HasSubstr("the y buffer has 12 bytes but the tensor spans 16"));
}

// Tiny with two output features: w[1] = -w[0], so y[1] = -y[0].
DnnConvolutionConfig TinyTwoFeatures(DnnEpilogue epilogue) {
  DnnConvolutionConfig c = Tiny(DnnConvolutionKind::kForward);
  c.filter_dims = {2, 1, 2, 2};
  c.output = {{1, 2, 2, 2}, {8, 4, 2, 1}};
  c.epilogue = epilogue;
  return c;
}

TEST_F(CudaDnnTest, BiasAndReluEpiloguesByHand) {
  const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w = {1, 2, 3, 4, -1, -2, -3, -4};
  const std::vector<float> bias = {-40, 50};
  // conv: {37, 47, 67, 77} and {-37, -47, -67, -77}.
  EXPECT_THAT(Run(TinyTwoFeatures(DnnEpilogue::kBias), x, w, std::vector<float>(8, 9), 1 << 20,
                  bias)[2],
              ElementsAre(-3, 7, 27, 37, 13, 3, -17, -27));
  EXPECT_THAT(Run(TinyTwoFeatures(DnnEpilogue::kBiasRelu), x, w, std::vector<float>(8, 9),
                  1 << 20, bias)[2],
              ElementsAre(0, 7, 27, 37, 13, 3, 0, 0));
  const std::vector<FakeCudnnCall> calls = cudnn_.recorded();
  ASSERT_EQ(calls.size(), 2u);
  for (const FakeCudnnCall& call : calls) {
    EXPECT_TRUE(call.fused);
    EXPECT_THAT(call.bias.dims, ElementsAre(1, 2, 1, 1));
    EXPECT_THAT(call.bias.strides, ElementsAre(2, 1, 1, 1));
    EXPECT_EQ(call.bias.type, CUDNN_DATA_FLOAT);
    EXPECT_EQ(call.activation.nan, CUDNN_PROPAGATE_NAN);
    EXPECT_EQ(call.alpha, 1.0f);
    EXPECT_EQ(call.alpha2, 0.0f);
    EXPECT_EQ(call.z_data, call.y_data);
    EXPECT_THAT(call.z.dims, ElementsAre(1, 2, 2, 2));
  }
  EXPECT_EQ(calls[0].activation.mode, CUDNN_ACTIVATION_IDENTITY);
  EXPECT_EQ(calls[1].activation.mode, CUDNN_ACTIVATION_RELU);
  // IDENTITY runs only with IMPLICIT_PRECOMP_GEMM (1), here with FMA math
  // (f32 without TF32); ReLU takes the heuristics' exact choice (0).
  EXPECT_EQ(calls[0].algorithm, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
  EXPECT_EQ(calls[0].conv.math, CUDNN_FMA_MATH);
  EXPECT_EQ(calls[1].algorithm, 0);
}

TEST_F(CudaDnnTest, ReluKeepsNanAndTheBiasOfEachFeature) {
  const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w = {1, 2, 3, 4, -1, -2, -3, -4};
  const std::vector<float> y = Run(TinyTwoFeatures(DnnEpilogue::kBiasRelu), x, w,
                                   std::vector<float>(8, 0), 1 << 20, {std::nanf(""), 50})[2];
  ASSERT_EQ(y.size(), 8u);
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(std::isnan(y[i])) << i;
  EXPECT_THAT(std::vector<float>(y.begin() + 4, y.end()), ElementsAre(13, 3, 0, 0));
}

TEST_F(CudaDnnTest, EpilogueBiasIsCheckedAtEnqueueAndOnlyForwardFusesOne) {
  absl::StatusOr<std::unique_ptr<DnnConvolutionPlan>> plan =
      executor_->PrepareConvolution(TinyTwoFeatures(DnnEpilogue::kBias), 1 << 20);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(cudnn_.live_descriptors(), 6);  // x, y, w, conv, bias, activation
  OwningDeviceMemory x = Upload(std::vector<float>(9, 1)), w = Upload(std::vector<float>(8, 1));
  OwningDeviceMemory y = Upload(std::vector<float>(8, 0)), small_bias = Upload({1});
  OwningDeviceMemory ws = Upload(std::vector<float>(kFakeCudnnWorkspaceBytes / 4, 0));
  EXPECT_THAT(
      stream_->Convolution(**plan, x.get(), w.get(), y.get(), ws.get(), DeviceMemoryBase()).message(),
      HasSubstr("the epilogue's bias buffer is null"));
  // A rejected enqueue is the stream's sticky error: check on another one.
  absl::StatusOr<std::unique_ptr<Stream>> other = executor_->CreateStream();
  ASSERT_TRUE(other.ok());
  EXPECT_THAT(
      (*other)->Convolution(**plan, x.get(), w.get(), y.get(), ws.get(), small_bias.get()).message(),
      HasSubstr("the bias buffer has 4 bytes but the tensor spans 8"));
  DnnConvolutionConfig data = Tiny(DnnConvolutionKind::kBackwardData);
  data.epilogue = DnnEpilogue::kBiasRelu;
  EXPECT_THAT(CheckDnnConvolution(data).message(),
              HasSubstr("a bias_relu epilogue on a backward_data convolution"));
}

TEST_F(CudaDnnTest, DescriptorsAreReleasedWithThePlan) {
  {
    absl::StatusOr<std::unique_ptr<DnnConvolutionPlan>> plan =
        executor_->PrepareConvolution(OddNhwc(), 0);
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_EQ(cudnn_.live_descriptors(), 4);
  }
  EXPECT_EQ(cudnn_.live_descriptors(), 0);
}

// The fake refuses the fused call as cuDNN does: IDENTITY off
// IMPLICIT_PRECOMP_GEMM, an activation the call does not take, a bias
// descriptor that is not [1, K, 1, 1]. (Refused before anything is
// enqueued, so no stream or buffers are needed.)
TEST_F(CudaDnnTest, FakeRefusesFusedCallsCudnnRefuses) {
  const CudnnApi& api = cudnn_.api();
  cudnnTensorDescriptor_t x, y, bias;
  cudnnFilterDescriptor_t w;
  cudnnConvolutionDescriptor_t conv;
  cudnnActivationDescriptor_t act;
  ASSERT_EQ(api.cudnnCreateTensorDescriptor(&x), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(api.cudnnCreateTensorDescriptor(&y), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(api.cudnnCreateTensorDescriptor(&bias), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(api.cudnnCreateFilterDescriptor(&w), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(api.cudnnCreateConvolutionDescriptor(&conv), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(api.cudnnCreateActivationDescriptor(&act), CUDNN_STATUS_SUCCESS);
  const int xd[] = {1, 1, 3, 3}, xs[] = {9, 9, 3, 1}, yd[] = {1, 2, 2, 2}, ys[] = {8, 4, 2, 1};
  const int wd[] = {2, 1, 2, 2}, bd[] = {1, 2, 1, 1}, bs[] = {2, 1, 1, 1}, bad[] = {1, 1, 1, 2};
  const int zero2[] = {0, 0}, one2[] = {1, 1};
  api.cudnnSetTensorNdDescriptor(x, CUDNN_DATA_FLOAT, 4, xd, xs);
  api.cudnnSetTensorNdDescriptor(y, CUDNN_DATA_FLOAT, 4, yd, ys);
  api.cudnnSetFilterNdDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, wd);
  api.cudnnSetConvolutionNdDescriptor(conv, 2, zero2, one2, one2, CUDNN_CROSS_CORRELATION,
                                      CUDNN_DATA_FLOAT);
  float data[16] = {};
  const float one = 1, zero = 0;
  auto run = [&](cudnnActivationMode_t mode, cudnnConvolutionFwdAlgo_t algo, const int* bias_dims) {
    api.cudnnSetActivationDescriptor(act, mode, CUDNN_PROPAGATE_NAN, 0.0);
    api.cudnnSetTensorNdDescriptor(bias, CUDNN_DATA_FLOAT, 4, bias_dims, bs);
    return api.cudnnConvolutionBiasActivationForward(
        nullptr, &one, x, data, w, data, conv, algo, nullptr, 0, &zero, y, data, bias, data, act,
        y, data);
  };
  EXPECT_EQ(run(CUDNN_ACTIVATION_IDENTITY, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, bd),
            CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(run(CUDNN_ACTIVATION_TANH, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, bd),
            CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(run(CUDNN_ACTIVATION_RELU, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, bad),
            CUDNN_STATUS_BAD_PARAM);
  for (cudnnTensorDescriptor_t t : {x, y, bias}) api.cudnnDestroyTensorDescriptor(t);
  api.cudnnDestroyFilterDescriptor(w);
  api.cudnnDestroyConvolutionDescriptor(conv);
  api.cudnnDestroyActivationDescriptor(act);
  EXPECT_EQ(cudnn_.live_descriptors(), 0);
}

// Without a testing table the loader looks for XLA_CUDNN_LIBRARY, which
// the BUILD rule points at a path that does not exist.
TEST(CudnnMissingTest, PrepareConvolutionNamesCudnnAndTheFix) {
  FakeCudaDriver driver;
  CudaPlatform platform(&driver.api());
  absl::StatusOr<StreamExecutor*> device = platform.GetDevice(0);
  ASSERT_TRUE(device.ok());
  absl::StatusOr<std::unique_ptr<DnnConvolutionPlan>> plan =
      (*device)->PrepareConvolution(Tiny(DnnConvolutionKind::kForward), 0);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(plan.status().message(), HasSubstr("cannot initialize cuDNN for CUDA device 0"));
  EXPECT_THAT(plan.status().message(), HasSubstr("/nonexistent/libcudnn.so.9"));
  EXPECT_THAT(plan.status().message(), HasSubstr("--emit_cudnn_convolutions"));
}

}  // namespace
}  // namespace stream_executor::cuda
