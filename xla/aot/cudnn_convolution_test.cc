// cuDNN convolutions end to end (issue 29, part 3): HLO compiled for sm_90
// with --emit_cudnn_convolutions, loaded and run on the fake CUDA driver
// and the fake cuDNN (which computes from the descriptors it is given), and
// compared with the evaluator on the original module: forward NHWC, NCHW
// with feature groups, odd activation layouts (CNHW in, HWNC out), 1-D,
// backward data (a transposed convolution), backward filter (a weight
// gradient), bf16 and f16, and TF32 under
// DEFAULT precision. At odd sizes: batch 3, 7x5 spatial, 3 in-channels, 5
// out-channels, stride 2, padding, dilation. Also: the descriptors of the
// corpus layouts whose filter needs a transpose, the flag's default and
// --target_runtime, and the error at Initialize without cuDNN. Fused
// epilogues: a bias (+ ReLU) after a forward convolution runs inside the
// cuDNN call (no kernel left), in f32 and f16, and an older
// --target_runtime keeps it a kernel.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/aot/compile.h"
#include "xla/aot/executable.h"
#include "xla/aot/literal_execution.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/stream_executor/cuda/cuda_platform.h"
#include "xla/stream_executor/cuda/cudnn_api.h"
#include "xla/stream_executor/cuda/fake_cuda_driver.h"
#include "xla/stream_executor/cuda/fake_cudnn.h"
#include "xla/types/float_format.h"

namespace xla::aot {
namespace {

namespace se = ::stream_executor;

CompileOptions Options(bool cudnn = true, const std::string& target = "sm_90") {
  CompileOptions options;
  options.target = target;
  options.opt_level = 1;
  options.host_cpu_variants.clear();
  options.production_date = "2026-12-02T00:00:00Z";
  options.emit_cudnn_convolutions = cudnn;
  return options;
}

std::string Module(const std::string& params, const std::string& body) {
  return absl::StrCat("HloModule conv\n\nENTRY main {\n", params, body, "\n}\n");
}

// x and w parameters with `conv` as the root.
std::string Conv(const std::string& x, const std::string& w, const std::string& conv) {
  return Module(absl::StrCat("  x = ", x, " parameter(0)\n  w = ", w, " parameter(1)\n"),
                absl::StrCat("  ROOT c = ", conv));
}

// Non-zero values of varying magnitude in every element.
Literal Values(const Shape& shape, int salt) {
  Literal l(shape);
  const int64_t n = shape.ElementCount().value_or(0);
  for (int64_t i = 0; i < n; ++i) {
    l.SetDouble(i, std::sin(0.37 * static_cast<double>(i + 1) + salt) * (1.0 + (i % 5) / 3.0));
  }
  return l;
}

std::vector<Literal> Arguments(const std::string& hlo) {
  std::vector<Literal> args;
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return args;
  const HloComputation* entry = (*module)->entry_computation();
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    args.push_back(Values(entry->parameter_instruction(i)->shape(), static_cast<int>(i) + 1));
  }
  return args;
}

Literal Evaluate(const std::string& hlo, const std::vector<Literal>& args) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return Literal();
  absl::StatusOr<Literal> out = HloEvaluator().Evaluate(**module, args);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? std::move(*out) : Literal();
}

// The artifact's thunk kinds, in order ("kernel", "convolution", ...).
std::vector<std::string> ThunkKinds(const gpu::GpuExecutableProto& proto) {
  std::vector<std::string> kinds;
  for (const gpu::ThunkProto& t : proto.payload().thunks()) {
    kinds.push_back(t.has_convolution() ? "convolution" : t.has_kernel() ? "kernel" : "other");
  }
  return kinds;
}

// Compiles `hlo` and runs it on the fake driver (sm_90) with the fake cuDNN
// (none when !with_cudnn: the loader then finds no library).
absl::StatusOr<Literal> RunOnFakeCuda(const std::string& hlo, const CompileOptions& options,
                                      const std::vector<Literal>& args, bool with_cudnn = true,
                                      std::vector<se::cuda::FakeCudnnCall>* calls = nullptr) {
  absl::StatusOr<CompiledArtifact> compiled = Compile(hlo, options);
  if (!compiled.ok()) return compiled.status();
  se::cuda::FakeCudaDriver::Options device;
  device.attributes = {{CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 9},
                       {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0}};
  se::cuda::FakeCudaDriver driver(device);
  se::cuda::FakeCudnn cudnn(driver.api());
  if (with_cudnn) se::cuda::SetCudnnApiForTesting(&cudnn.api());
  absl::StatusOr<std::vector<Literal>> out = absl::InternalError("not run");
  {
    se::cuda::CudaPlatform platform(&driver.api());
    absl::StatusOr<se::StreamExecutor*> gpu = platform.GetDevice(0);
    absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(compiled->bytes);
    if (!gpu.ok()) return gpu.status();
    if (!exe.ok()) return exe.status();
    out = ExecuteOnLiterals(**exe, *gpu, args);
  }
  if (calls != nullptr) *calls = cudnn.recorded();
  se::cuda::SetCudnnApiForTesting(nullptr);
  if (!out.ok()) return out.status();
  if (out->size() != 1) return absl::InternalError("expected one result");
  return std::move((*out)[0]);
}

// Runs `hlo` (exact f32: operand_precision highest) on the fake and
// compares with the evaluator; returns the recorded cuDNN calls.
std::vector<se::cuda::FakeCudnnCall> ExpectMatchesEvaluator(const std::string& hlo,
                                                            double tolerance_scale = 1.0) {
  const std::vector<Literal> args = Arguments(hlo);
  const Literal want = Evaluate(hlo, args);
  std::vector<se::cuda::FakeCudnnCall> calls;
  absl::StatusOr<Literal> got = RunOnFakeCuda(hlo, Options(), args, true, &calls);
  EXPECT_TRUE(got.ok()) << got.status() << "\n" << hlo;
  if (got.ok()) {
    const absl::Status same = CompareOutputLeaf(want, *got, tolerance_scale);
    EXPECT_TRUE(same.ok()) << same << "\n" << hlo;
  }
  return calls;
}

constexpr char kExact[] = ", operand_precision={highest,highest}";

// batch 3, 7x5, 3 -> 5 channels, stride 2, padding 1 and 2, dilation 1x2;
// the filter already [o, 0, 1, i].
std::string ForwardNhwc(const std::string& type = "f32", const std::string& attrs = kExact) {
  return Conv(type + "[3,7,5,3]", type + "[5,3,3,3]",
              absl::StrCat(type, "[3,4,3,5] convolution(x, w), window={size=3x3 stride=2x2 "
                                 "pad=1_1x2_2 rhs_dilate=1x2}, dim_labels=b01f_o01i->b01f",
                           attrs));
}

TEST(CudnnConvolutionTest, ForwardNhwcMatchesEvaluatorWithTheDescriptorsOfItsDimensionNumbers) {
  const std::vector<se::cuda::FakeCudnnCall> calls = ExpectMatchesEvaluator(ForwardNhwc());
  ASSERT_EQ(calls.size(), 1u);
  const se::cuda::FakeCudnnCall& c = calls[0];
  EXPECT_EQ(c.kind, se::DnnConvolutionKind::kForward);
  EXPECT_EQ(c.x.dims, (std::vector<int>{3, 3, 7, 5}));
  EXPECT_EQ(c.x.strides, (std::vector<int>{105, 1, 15, 3}));
  EXPECT_EQ(c.y.dims, (std::vector<int>{3, 5, 4, 3}));
  EXPECT_EQ(c.y.strides, (std::vector<int>{60, 1, 15, 5}));
  EXPECT_EQ(c.w.dims, (std::vector<int>{5, 3, 3, 3}));
  EXPECT_EQ(c.w.format, CUDNN_TENSOR_NHWC);
  EXPECT_EQ(c.conv.padding, (std::vector<int>{1, 2}));
  EXPECT_EQ(c.conv.strides, (std::vector<int>{2, 2}));
  EXPECT_EQ(c.conv.dilations, (std::vector<int>{1, 2}));
  EXPECT_EQ(c.conv.math, CUDNN_FMA_MATH);  // HIGHEST: no TF32
  EXPECT_EQ(c.algorithm, 0);
}

TEST(CudnnConvolutionTest, NchwWithFeatureGroups) {
  const std::vector<se::cuda::FakeCudnnCall> calls = ExpectMatchesEvaluator(Conv(
      "f32[3,4,7,5]", "f32[6,2,3,3]",
      absl::StrCat("f32[3,6,3,3] convolution(x, w), window={size=3x3 stride=2x1 pad=1_1x0_0 "
                   "rhs_dilate=2x1}, dim_labels=bf01_oi01->bf01, feature_group_count=2",
                   kExact)));
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].x.strides, (std::vector<int>{140, 35, 5, 1}));
  EXPECT_EQ(calls[0].w.format, CUDNN_TENSOR_NCHW);
  EXPECT_EQ(calls[0].conv.groups, 2);
}

// MobileNet's weight-gradient layout with an [o, i, 0, 1] filter: the
// activations reach cuDNN as strided descriptors, nothing is transposed.
TEST(CudnnConvolutionTest, CnhwInHwncOutThroughStrides) {
  const std::vector<se::cuda::FakeCudnnCall> calls = ExpectMatchesEvaluator(Conv(
      "f32[3,2,7,5]", "f32[4,3,3,2]",
      absl::StrCat("f32[3,2,2,4] convolution(x, w), window={size=3x2 stride=2x2}, "
                   "dim_labels=fb01_oi01->01bf",
                   kExact)));
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].x.dims, (std::vector<int>{2, 3, 7, 5}));
  EXPECT_EQ(calls[0].x.strides, (std::vector<int>{35, 70, 5, 1}));
  EXPECT_EQ(calls[0].y.dims, (std::vector<int>{2, 4, 3, 2}));
  EXPECT_EQ(calls[0].y.strides, (std::vector<int>{4, 1, 16, 8}));
}

TEST(CudnnConvolutionTest, OneDimensionalAsTwoDimensional) {
  const std::vector<se::cuda::FakeCudnnCall> calls = ExpectMatchesEvaluator(Conv(
      "f32[3,9,3]", "f32[5,3,3]",
      absl::StrCat("f32[3,5,5] convolution(x, w), window={size=3 stride=2 pad=1_1}, "
                   "dim_labels=b0f_o0i->b0f",
                   kExact)));
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].x.dims, (std::vector<int>{3, 3, 9, 1}));
  EXPECT_EQ(calls[0].conv.padding, (std::vector<int>{1, 0}));
}

// A transposed convolution as JAX writes its input gradient:
// conv(dy, reverse(w)) with base dilation 2 -> cudnnConvolutionBackwardData
// with stride 2 and padding (3 - 1) - 1 = 1.
TEST(CudnnConvolutionTest, BackwardDataOfAStridedConvolution) {
  const std::string hlo = Module(
      "  dy = f32[3,4,3,5] parameter(0)\n  w = f32[5,3,3,3] parameter(1)\n",
      absl::StrCat("  r = f32[5,3,3,3] reverse(w), dimensions={1,2}\n"
                   "  ROOT dx = f32[3,8,6,3] convolution(dy, r), window={size=3x3 pad=1_2x1_2 "
                   "lhs_dilate=2x2}, dim_labels=b01f_i01o->b01f",
                   kExact));
  const std::vector<se::cuda::FakeCudnnCall> calls = ExpectMatchesEvaluator(hlo);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].kind, se::DnnConvolutionKind::kBackwardData);
  EXPECT_EQ(calls[0].x.dims, (std::vector<int>{3, 3, 8, 6}));
  EXPECT_EQ(calls[0].y.dims, (std::vector<int>{3, 5, 4, 3}));
  EXPECT_EQ(calls[0].w.dims, (std::vector<int>{5, 3, 3, 3}));
  EXPECT_EQ(calls[0].conv.strides, (std::vector<int>{2, 2}));
  EXPECT_EQ(calls[0].conv.padding, (std::vector<int>{1, 1}));
}

// A weight gradient (CNHW activations, IOHW output gradient, forward
// stride 2 as window dilation) -> cudnnConvolutionBackwardFilter, dw
// already [o, 0, 1, i].
TEST(CudnnConvolutionTest, BackwardFilterOfAStridedConvolution) {
  const std::vector<se::cuda::FakeCudnnCall> calls = ExpectMatchesEvaluator(Conv(
      "f32[3,2,7,7]", "f32[3,4,3,3]",
      absl::StrCat("f32[4,3,3,2] convolution(x, w), window={size=3x3 rhs_dilate=2x2}, "
                   "dim_labels=fb01_io01->f01b",
                   kExact)));
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].kind, se::DnnConvolutionKind::kBackwardFilter);
  EXPECT_EQ(calls[0].x.dims, (std::vector<int>{3, 2, 7, 7}));
  EXPECT_EQ(calls[0].x.strides, (std::vector<int>{98, 49, 7, 1}));
  EXPECT_EQ(calls[0].y.dims, (std::vector<int>{3, 4, 3, 3}));
  EXPECT_EQ(calls[0].w.dims, (std::vector<int>{4, 2, 3, 3}));
  EXPECT_EQ(calls[0].w.format, CUDNN_TENSOR_NHWC);
  EXPECT_EQ(calls[0].conv.strides, (std::vector<int>{2, 2}));
  EXPECT_EQ(calls[0].conv.dilations, (std::vector<int>{1, 1}));
}

TEST(CudnnConvolutionTest, Bf16AndF16) {
  for (const char* type : {"bf16", "f16"}) {
    const std::vector<se::cuda::FakeCudnnCall> calls =
        ExpectMatchesEvaluator(ForwardNhwc(type, ""), 4.0);
    ASSERT_EQ(calls.size(), 1u) << type;
    EXPECT_EQ(calls[0].x.type, std::string(type) == "bf16" ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF);
  }
}

// DEFAULT precision on sm_90: TF32 (the fake rounds the operands with the
// tensor-op algorithm), which equals the evaluator on TF32-rounded inputs
// and differs from exact f32.
TEST(CudnnConvolutionTest, DefaultPrecisionRunsTf32) {
  const std::string hlo = ForwardNhwc("f32", "");
  std::vector<Literal> args = Arguments(hlo);
  const Literal exact = Evaluate(hlo, args);
  std::vector<Literal> rounded;
  for (const Literal& a : args) {
    Literal r(a.shape());
    for (int64_t i = 0; i < a.element_count(); ++i) {
      r.SetDouble(i, RoundToTf32(static_cast<float>(a.GetDouble(i))));
    }
    rounded.push_back(std::move(r));
  }
  const Literal want = Evaluate(hlo, rounded);
  std::vector<se::cuda::FakeCudnnCall> calls;
  absl::StatusOr<Literal> got = RunOnFakeCuda(hlo, Options(), args, true, &calls);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(CompareOutputLeaf(want, *got).ok()) << CompareOutputLeaf(want, *got);
  EXPECT_FALSE(CompareLiterals(exact, *got, 0.01).ok()) << "TF32 should be visible";
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].algorithm, 1);  // the tensor-op algorithm, with workspace
  EXPECT_GE(calls[0].workspace_bytes, se::cuda::kFakeCudnnWorkspaceBytes);
}

TEST(CudnnConvolutionTest, MissingCudnnFailsAtInitializeOnlyForArtifactsWithConvolutions) {
  const std::string hlo = ForwardNhwc();
  absl::StatusOr<Literal> got = RunOnFakeCuda(hlo, Options(), Arguments(hlo), false);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), absl::StatusCode::kFailedPrecondition) << got.status();
  EXPECT_TRUE(absl::StrContains(got.status().message(), "cannot initialize cuDNN")) << got.status();
  EXPECT_TRUE(absl::StrContains(got.status().message(), "libcudnn.so.9")) << got.status();
  // The same module without the flag has no convolution thunk and needs no
  // cuDNN (it needs ptx kernels the fake cannot run, so only the artifact is
  // checked here).
  absl::StatusOr<gpu::GpuExecutableProto> plain = CompileToProto(hlo, Options(false));
  ASSERT_TRUE(plain.ok()) << plain.status();
  for (const std::string& kind : ThunkKinds(*plain)) EXPECT_NE(kind, "convolution");
  for (const std::string& f : plain->header().required_runtime_features()) {
    EXPECT_NE(f, "cudnn_convolutions");
  }
}

// ResNet-50's layout (NHWC x HWIO): one fused kernel transposes the filter
// to [o, 0, 1, i] and the convolution thunk reads it; its kernel still gets
// a cubin (with its PTX) when ptxas is found, as every other kernel.
TEST(CudnnConvolutionTest, ResnetLayoutTransposesTheFilterOnce) {
  const std::string hlo = Conv("f32[3,7,5,3]", "f32[3,3,3,5]",
                               "f32[3,4,5,5] convolution(x, w), window={size=3x3 stride=2x1 "
                               "pad=1_1x1_1}, dim_labels=b01f_01io->b01f");
  CompileOptions options = Options();
  options.emit_cubin_with_ptx = true;
  absl::StatusOr<gpu::GpuExecutableProto> proto = CompileToProto(hlo, options);
  ASSERT_TRUE(proto.ok()) << proto.status();
  EXPECT_EQ(ThunkKinds(*proto), (std::vector<std::string>{"kernel", "convolution"}));
  const gpu::ConvolutionThunkProto& c = proto->payload().thunks(1).convolution();
  EXPECT_EQ(c.kind(), gpu::CONVOLUTION_KIND_FORWARD);
  EXPECT_EQ(std::vector<int64_t>(c.input_dims().begin(), c.input_dims().end()),
            (std::vector<int64_t>{3, 3, 7, 5}));
  EXPECT_EQ(std::vector<int64_t>(c.input_strides().begin(), c.input_strides().end()),
            (std::vector<int64_t>{105, 1, 15, 3}));
  EXPECT_EQ(std::vector<int64_t>(c.filter_dims().begin(), c.filter_dims().end()),
            (std::vector<int64_t>{5, 3, 3, 3}));
  EXPECT_EQ(c.filter_layout(), gpu::CONVOLUTION_FILTER_LAYOUT_OHWI);
  EXPECT_TRUE(c.allow_tf32());
  EXPECT_GE(c.workspace().size(), int64_t{4} << 20);
  const auto& features = proto->header().required_runtime_features();
  EXPECT_NE(std::find(features.begin(), features.end(), "cudnn_convolutions"), features.end());
  ASSERT_EQ(proto->payload().kernels_size(), 1);
  if (std::system("ptxas --version > /dev/null 2>&1") == 0) {
    EXPECT_TRUE(proto->payload().kernels(0).has_cubin_with_ptx());
  }
}

TEST(CudnnConvolutionTest, FlagOffHostAndOlderRuntimesKeepIm2col) {
  const std::string hlo = ForwardNhwc();
  absl::StatusOr<CompiledArtifact> off = Compile(hlo, Options(false));
  ASSERT_TRUE(off.ok()) << off.status();
  CompileOptions old = Options();
  old.target_runtime = "2026-12-01";
  absl::StatusOr<CompiledArtifact> older = Compile(hlo, old);
  ASSERT_TRUE(older.ok()) << older.status();
  CompileOptions legacy_date = Options(false);
  legacy_date.target_runtime = "2026-12-01";
  absl::StatusOr<CompiledArtifact> older_off = Compile(hlo, legacy_date);
  ASSERT_TRUE(older_off.ok());
  EXPECT_EQ(older->bytes, older_off->bytes);
  absl::StatusOr<CompiledArtifact> host_on = Compile(hlo, Options(true, "host"));
  absl::StatusOr<CompiledArtifact> host_off = Compile(hlo, Options(false, "host"));
  ASSERT_TRUE(host_on.ok() && host_off.ok());
  EXPECT_EQ(host_on->bytes, host_off->bytes);
}

// ForwardNhwc (type `type`) + a bias along the output feature, then
// max(., 0) when `relu`.
std::string ForwardWithEpilogue(const std::string& type, bool relu) {
  const std::string y = type + "[3,4,3,5]";
  return Module(
      absl::StrCat("  x = ", type, "[3,7,5,3] parameter(0)\n  w = ", type,
                   "[5,3,3,3] parameter(1)\n  bias = ", type, "[5] parameter(2)\n"),
      absl::StrCat(
          "  c = ", y, " convolution(x, w), window={size=3x3 stride=2x2 pad=1_1x2_2 rhs_dilate=1x2}, ",
          "dim_labels=b01f_o01i->b01f", type == "f32" ? kExact : "", "\n  b = ", y,
          " broadcast(bias), dimensions={3}\n  ", relu ? "a" : "ROOT a", " = ", y, " add(c, b)",
          relu ? absl::StrCat("\n  zero = ", type, "[] constant(0)\n  z = ", y,
                              " broadcast(zero), dimensions={}\n  ROOT r = ", y, " maximum(z, a)")
               : ""));
}

TEST(CudnnConvolutionTest, BiasAndReluRunInsideTheCudnnCall) {
  for (const bool relu : {false, true}) {
    for (const std::string type : {"f32", "f16"}) {
      const std::string hlo = ForwardWithEpilogue(type, relu);
      absl::StatusOr<gpu::GpuExecutableProto> proto = CompileToProto(hlo, Options());
      ASSERT_TRUE(proto.ok()) << proto.status();
      EXPECT_EQ(ThunkKinds(*proto), std::vector<std::string>{"convolution"}) << hlo;
      const auto& features = proto->header().required_runtime_features();
      EXPECT_NE(std::find(features.begin(), features.end(), "cudnn_convolutions.fused_epilogue"),
                features.end());
      const std::vector<se::cuda::FakeCudnnCall> calls =
          ExpectMatchesEvaluator(hlo, type == "f16" ? 4.0 : 1.0);
      ASSERT_EQ(calls.size(), 1u);
      EXPECT_TRUE(calls[0].fused);
      EXPECT_EQ(calls[0].activation.mode, relu ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY);
      EXPECT_EQ(calls[0].bias.dims, (std::vector<int>{1, 5, 1, 1}));
      EXPECT_EQ(calls[0].bias.type, type == "f16" ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT);
    }
  }
}

// ReLU must clamp something for the test above to mean anything: a third
// of the outputs are negative before it.
TEST(CudnnConvolutionTest, TheReluCaseHasNegativeValuesToClamp) {
  const std::string hlo = ForwardWithEpilogue("f32", false);
  const Literal biased = Evaluate(hlo, Arguments(hlo));
  int64_t negative = 0;
  for (int64_t i = 0; i < biased.element_count(); ++i) negative += biased.GetDouble(i) < 0;
  EXPECT_GT(negative, biased.element_count() / 5);
  EXPECT_LT(negative, biased.element_count() * 4 / 5);
}

// ResNet-50's bias as JAX prints it (broadcast of a reshape to [1, K] of
// the parameter, in NHWC with the filter HWIO): the filter transpose is
// the only kernel left, and the bias slice is the parameter's buffer.
TEST(CudnnConvolutionTest, ResnetBiasAsJaxPrintsItLeavesNoEpilogueKernel) {
  const std::string hlo = Module(
      "  x = f32[1,7,5,3] parameter(0)\n  w = f32[3,3,3,5] parameter(1)\n"
      "  p = f32[5] parameter(2)\n",
      "  c = f32[1,4,5,5] convolution(x, w), window={size=3x3 stride=2x1 pad=1_1x1_1}, "
      "dim_labels=b01f_01io->b01f\n  r = f32[1,1,1,5] reshape(p)\n"
      "  b1 = f32[1,1,1,5] broadcast(r), dimensions={0,1,2,3}\n  r2 = f32[1,5] reshape(b1)\n"
      "  b = f32[1,4,5,5] broadcast(r2), dimensions={0,3}\n  ROOT a = f32[1,4,5,5] add(c, b)");
  absl::StatusOr<gpu::GpuExecutableProto> proto = CompileToProto(hlo, Options());
  ASSERT_TRUE(proto.ok()) << proto.status();
  EXPECT_EQ(ThunkKinds(*proto), (std::vector<std::string>{"kernel", "convolution"}));
  const gpu::ConvolutionThunkProto& c = proto->payload().thunks(1).convolution();
  ASSERT_TRUE(c.has_bias());
  EXPECT_EQ(c.activation(), gpu::CONVOLUTION_ACTIVATION_IDENTITY);
  EXPECT_EQ(c.bias().size(), 20);
  const gpu::BufferAllocationProto& bias =
      proto->payload().allocations(static_cast<int>(c.bias().allocation()));
  EXPECT_TRUE(bias.is_parameter()) << bias.DebugString();
}

TEST(CudnnConvolutionTest, OlderRuntimesKeepTheEpilogueAKernel) {
  const std::string hlo = ForwardWithEpilogue("f32", true);
  CompileOptions dec02 = Options();
  dec02.target_runtime = "2026-12-02";
  absl::StatusOr<gpu::GpuExecutableProto> proto = CompileToProto(hlo, dec02);
  ASSERT_TRUE(proto.ok()) << proto.status();
  EXPECT_EQ(ThunkKinds(*proto), (std::vector<std::string>{"convolution", "kernel"}));
  EXPECT_FALSE(proto->payload().thunks(0).convolution().has_bias());
  for (const std::string& f : proto->header().required_runtime_features()) {
    EXPECT_NE(f, "cudnn_convolutions.fused_epilogue");
  }
}

}  // namespace
}  // namespace xla::aot
