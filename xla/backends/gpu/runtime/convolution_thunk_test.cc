// Round trip and golden of ConvolutionThunk, what its FromProto rejects,
// and the thunk on the fake CUDA platform (fake driver + fake cuDNN): a
// hand-computed strided NHWC convolution, one plan per executor, and the
// errors at Initialize when cuDNN is missing and on the host platform.
// The fused bias (+ ReLU) epilogue: its golden, its load checks, and by hand
// on the fake (the bias slice is read, the ReLU applied).
#include "xla/backends/gpu/runtime/convolution_thunk.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/buffer_allocation.h"
#include "xla/backends/gpu/runtime/fake_cuda_thunk_test.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/stream_executor/cuda/cuda_platform.h"
#include "xla/stream_executor/cuda/cudnn_api.h"
#include "xla/stream_executor/cuda/fake_cuda_driver.h"
#include "xla/stream_executor/cuda/fake_cudnn.h"
#include "xla/stream_executor/owning_device_memory.h"

namespace xla::gpu {
namespace {

namespace se = ::stream_executor;
using ::xla::gpu::testing::DeserializeError;
using ::xla::gpu::testing::WholeSlice;

TEST(ConvolutionThunk, RoundTripMatchesGolden) {
  testing::ExpectRoundTripMatchesGolden("convolution_thunk.textproto");
}

TEST(ConvolutionThunk, FusedEpilogueRoundTripMatchesGolden) {
  testing::ExpectRoundTripMatchesGolden("convolution_thunk_fused_epilogue.textproto");
}

// The golden's thunk (`file`) with `edit` applied to its text.
std::string Golden(absl::string_view from, absl::string_view to,
                   absl::string_view file = "convolution_thunk.textproto") {
  std::string text = testing::ReadTestdata(file);
  const size_t at = text.find(std::string(from));
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), std::string(to));
  return text;
}

TEST(ConvolutionThunk, RejectsWhatCudnnCannotRunOrTheSlicesCannotHold) {
  struct Case {
    std::string text;
    const char* message;
  };
  const Case cases[] = {
      {Golden("kind: CONVOLUTION_KIND_FORWARD", ""), "thunk.convolution.kind: unknown convolution kind 0"},
      {Golden("PRIMITIVE_TYPE_F32", "PRIMITIVE_TYPE_F64"),
       "thunk.convolution.element_type: convolutions run in f16, bf16 or f32, not f64"},
      {Golden("filter_layout: CONVOLUTION_FILTER_LAYOUT_OHWI", ""), "unknown filter layout 0"},
      {Golden("strides: 2\n  strides: 2", "strides: 1\n  strides: 2"),
       "y's spatial dimension 0 is 2 but the window gives 3"},
      {Golden("feature_groups: 1", "feature_groups: 3"),
       "feature_groups 3 must divide C = 1"},
      {Golden("element_type: PRIMITIVE_TYPE_F32", "element_type: PRIMITIVE_TYPE_BF16"),
       "TF32 is only for f32"},
      {Golden("allocation: 2\n    size: 16", "allocation: 2\n    size: 12"),
       "thunk.convolution.output: the tensor spans 4 elements (16 bytes) but the slice has 12"},
      {Golden("allocation: 2\n    size: 16", "allocation: 1\n    size: 16"), "overlaps"},
      {Golden("allocation: 4\n    size: 1024", "allocation: 0\n    offset: 0\n    size: 4"),
       "workspace: allocation 0 is not a temp allocation"},
      {Golden("input_dims: 1\n  input_dims: 1\n", "input_dims: 1\n  input_dims: 1\n  input_dims: 1\n  input_dims: 1\n  input_dims: 1\n"),
       "input_dims: 7 entries; at most 5"},
  };
  for (const Case& c : cases) {
    const std::string error = DeserializeError(c.text);
    EXPECT_TRUE(absl::StrContains(error, c.message)) << c.text << "\n -> " << error;
  }
}

TEST(ConvolutionThunk, RejectsAnEpilogueItCannotRun) {
  constexpr absl::string_view kFused = "convolution_thunk_fused_epilogue.textproto";
  constexpr absl::string_view kBias = "  bias {\n    allocation: 3\n    size: 4\n  }\n";
  struct Case {
    std::string text;
    const char* message;
  };
  const Case cases[] = {
      {Golden(kBias, "", kFused),
       "thunk.convolution.activation: activation 1 without a bias; an epilogue needs both"},
      {Golden("activation: CONVOLUTION_ACTIVATION_RELU", "activation: 7", kFused),
       "unknown epilogue activation 7; identity and relu are known"},
      {Golden("allocation: 3\n    size: 4", "allocation: 3\n    size: 2", kFused),
       "thunk.convolution.bias: the tensor spans 1 elements (4 bytes) but the slice has 2"},
      {Golden("allocation: 3\n    size: 4", "allocation: 2\n    offset: 4\n    size: 4", kFused),
       "overlaps allocation 2"},
      {Golden("kind: CONVOLUTION_KIND_FORWARD", "kind: CONVOLUTION_KIND_BACKWARD_FILTER", kFused),
       "a bias_relu epilogue on a backward_filter convolution"},
  };
  for (const Case& c : cases) {
    const std::string error = DeserializeError(c.text);
    EXPECT_TRUE(absl::StrContains(error, c.message)) << c.text << "\n -> " << error;
  }
}

// The golden's convolution: x [1, 1, 4, 4], w [1, 1, 2, 2] OHWI, stride 2.
se::DnnConvolutionConfig Strided() {
  se::DnnConvolutionConfig c;
  c.input = {{1, 1, 4, 4}, {16, 1, 4, 1}};
  c.filter_dims = {1, 1, 2, 2};
  c.filter_layout = se::DnnFilterLayout::kOHWI;
  c.padding = {0, 0};
  c.strides = {2, 2};
  c.dilations = {1, 1};
  c.output = {{1, 1, 2, 2}, {4, 1, 2, 1}};
  return c;
}

// On the fake driver, with the fake cuDNN (installed by the tests that
// want it).
class ConvolutionThunkOnFakeCudaTest : public testing::FakeCudaThunkTest {
 protected:
  void TearDown() override {
    FakeCudaThunkTest::TearDown();
    se::cuda::SetCudnnApiForTesting(nullptr);
  }

  se::cuda::FakeCudnn cudnn_{driver_.api()};
};

TEST_F(ConvolutionThunkOnFakeCudaTest, StridedNhwcByHandOnePlanPerExecutor) {
  se::cuda::SetCudnnApiForTesting(&cudnn_.api());
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[i] = static_cast<float>(i + 1);
  se::OwningDeviceMemory x_d = Upload(x), w_d = Upload({1, 0, 0, -2}),
                         y_d = Upload({9, 9, 9, 9}), ws_d = Upload(std::vector<float>(1024, 0));
  const BufferAllocations buffers({x_d.get(), w_d.get(), y_d.get(), ws_d.get()});
  ConvolutionThunk thunk(ThunkInfo{0, "convolution.3"}, Strided(), WholeSlice(0, 64),
                         WholeSlice(1, 16), WholeSlice(2, 16), WholeSlice(3, 4096));
  InitializeParams init;
  init.executor = executor_;
  ASSERT_TRUE(thunk.Initialize(init).ok());
  ASSERT_TRUE(thunk.Initialize(init).ok());
  EXPECT_EQ(cudnn_.heuristics_calls(), 1);
  ASSERT_NE(thunk.plan(executor_), nullptr);
  ASSERT_TRUE(thunk.ExecuteOnStream(Params(buffers)).ok());
  const std::vector<float> y = Download(y_d, 4);
  // y[i][j] = x[2i][2j] - 2 x[2i+1][2j+1] with x row-major 1..16.
  EXPECT_EQ(y, (std::vector<float>{1 - 2 * 6, 3 - 2 * 8, 9 - 2 * 14, 11 - 2 * 16}));
}

TEST_F(ConvolutionThunkOnFakeCudaTest, BiasAndReluEpilogueByHand) {
  se::cuda::SetCudnnApiForTesting(&cudnn_.api());
  std::vector<float> x(16);
  for (int i = 0; i < 16; ++i) x[i] = static_cast<float>(i + 1);
  se::OwningDeviceMemory x_d = Upload(x), w_d = Upload({1, 0, 0, -2}),
                         y_d = Upload({9, 9, 9, 9}), ws_d = Upload(std::vector<float>(1024, 0)),
                         b_d = Upload({7.5f, -100});
  const BufferAllocations buffers({x_d.get(), w_d.get(), y_d.get(), ws_d.get(), b_d.get()});
  se::DnnConvolutionConfig relu = Strided();
  relu.epilogue = se::DnnEpilogue::kBiasRelu;
  // The bias is the first float of allocation 4; a thunk pointed at the
  // second would add -100 and clamp everything to 0.
  ConvolutionThunk thunk(ThunkInfo{0, "convolution.3"}, relu, WholeSlice(0, 64),
                         WholeSlice(1, 16), WholeSlice(2, 16), WholeSlice(3, 4096),
                         WholeSlice(4, 4));
  InitializeParams init;
  init.executor = executor_;
  ASSERT_TRUE(thunk.Initialize(init).ok());
  ASSERT_TRUE(thunk.ExecuteOnStream(Params(buffers)).ok());
  // conv = {-11, -13, -19, -21}; + 7.5 -> {-3.5, -5.5, -11.5, -13.5}: all
  // clamped; so the filter is negated to make both signs appear.
  EXPECT_EQ(Download(y_d, 4), (std::vector<float>{0, 0, 0, 0}));
  se::OwningDeviceMemory w_neg = Upload({-1, 0, 0, 2});
  const BufferAllocations negated({x_d.get(), w_neg.get(), y_d.get(), ws_d.get(), b_d.get()});
  ASSERT_TRUE(thunk.ExecuteOnStream(Params(negated)).ok());
  EXPECT_EQ(Download(y_d, 4), (std::vector<float>{18.5f, 20.5f, 26.5f, 28.5f}));
  const std::vector<se::cuda::FakeCudnnCall> calls = cudnn_.recorded();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_TRUE(calls[1].fused);
  EXPECT_EQ(calls[1].bias_data, b_d.get().opaque);
  EXPECT_EQ(calls[1].activation.mode, CUDNN_ACTIVATION_RELU);
}

TEST_F(ConvolutionThunkOnFakeCudaTest, MissingCudnnFailsAtInitializeNamingIt) {
  // No testing table: the loader tries XLA_CUDNN_LIBRARY (set by the BUILD
  // rule to a path that does not exist).
  ConvolutionThunk thunk(ThunkInfo{0, "convolution.3"}, Strided(), WholeSlice(0, 64),
                         WholeSlice(1, 16), WholeSlice(2, 16), WholeSlice(3, 4096));
  InitializeParams init;
  init.executor = executor_;
  const absl::Status status = thunk.Initialize(init);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(status.message(), "cannot initialize cuDNN")) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "convolution.3")) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "--emit_cudnn_convolutions")) << status;
}

TEST(ConvolutionThunkOnHost, InitializeSaysTheHostHasNoDnnLibrary) {
  ConvolutionThunk thunk(ThunkInfo{0, "convolution.3"}, Strided(), WholeSlice(0, 64),
                         WholeSlice(1, 16), WholeSlice(2, 16), WholeSlice(3, 4096));
  InitializeParams init;
  init.executor = testing::HostExecutor();
  const absl::Status status = thunk.Initialize(init);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(status.message(), "platform host has no DNN library")) << status;
}

}  // namespace
}  // namespace xla::gpu
