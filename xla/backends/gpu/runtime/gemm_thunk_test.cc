// Round trip and golden of GemmThunk, what its FromProto rejects, and the
// thunk on the fake CUDA platform (fake driver + fake cuBLAS) against
// HostGemm on the same inputs.
#include "xla/backends/gpu/runtime/gemm_thunk.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/buffer_allocation.h"
#include "xla/backends/gpu/runtime/fake_cuda_thunk_test.h"
#include "xla/stream_executor/host/host_gemm.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/stream_executor/cuda/cublas_api.h"
#include "xla/stream_executor/cuda/cuda_platform.h"
#include "xla/stream_executor/cuda/fake_cublas.h"
#include "xla/stream_executor/cuda/fake_cuda_driver.h"
#include "xla/stream_executor/owning_device_memory.h"
#include "xla/types/float_format.h"

namespace xla::gpu {
namespace {

using ::xla::gpu::testing::DeserializeError;
using ::xla::gpu::testing::WholeSlice;

TEST(GemmThunk, RoundTripMatchesGolden) {
  testing::ExpectRoundTripMatchesGolden("gemm_thunk.textproto");
}

TEST(GemmThunk, RejectsOperandTooSmall) {
  const std::string error = DeserializeError(R"pb(gemm { lhs { allocation: 0 size: 64 } rhs { allocation: 1 size: 64 } output { allocation: 4 size: 256 } element_type: PRIMITIVE_TYPE_F32 m: 8 n: 8 k: 4 })pb");
  EXPECT_TRUE(absl::StrContains(error, "thunk.gemm.lhs: needs 32 elements")) << error;
}

TEST(GemmThunk, RejectsIntegerType) {
  const std::string error = DeserializeError(R"pb(gemm { element_type: PRIMITIVE_TYPE_S32 m: 1 n: 1 k: 1 })pb");
  EXPECT_TRUE(absl::StrContains(error, "thunk.gemm.element_type: GEMM supports f16, bf16, f32 and f64, not s32")) << error;
}

TEST(GemmThunk, RejectsUnknownEnumValue) {
  const std::string error = DeserializeError(R"pb(gemm { element_type: 999 m: 1 n: 1 k: 1 })pb");
  EXPECT_TRUE(absl::StrContains(error, "thunk.gemm.element_type")) << error;
}

TEST(GemmThunk, RejectsOutputOverlappingInput) {
  const std::string error = DeserializeError(R"pb(gemm { lhs { allocation: 4 size: 64 } rhs { allocation: 1 size: 64 } output { allocation: 4 offset: 32 size: 64 } element_type: PRIMITIVE_TYPE_F32 m: 4 n: 4 k: 4 })pb");
  EXPECT_TRUE(absl::StrContains(error, "overlaps an operand")) << error;
}

TEST(GemmThunk, AllowTf32RoundTripsAndIsRefusedOffF32) {
  const std::string f32 =
      R"pb(gemm { lhs { allocation: 4 size: 64 } rhs { allocation: 1 size: 64 } output { allocation: 4 offset: 128 size: 64 } element_type: PRIMITIVE_TYPE_F32 m: 4 n: 4 k: 4 allow_tf32: true })pb";
  EXPECT_EQ(DeserializeError(f32), "");
  ThunkProto proto;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(f32, &proto));
  testing::ThunkTestContext ctx;
  absl::StatusOr<std::unique_ptr<Thunk>> thunk = ctx.Deserialize(proto);
  ASSERT_TRUE(thunk.ok()) << thunk.status();
  EXPECT_TRUE(static_cast<const GemmThunk*>(thunk->get())->config().allow_tf32);
  absl::StatusOr<ThunkProto> back = (*thunk)->ToProto();
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->gemm().has_allow_tf32());
  EXPECT_TRUE(back->gemm().allow_tf32());
  // Unset stays unset (the bytes of older artifacts round-trip).
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(gemm { lhs { allocation: 4 size: 64 } rhs { allocation: 1 size: 64 } output { allocation: 4 offset: 128 size: 64 } element_type: PRIMITIVE_TYPE_F32 m: 4 n: 4 k: 4 })pb",
      &proto));
  thunk = ctx.Deserialize(proto);
  ASSERT_TRUE(thunk.ok()) << thunk.status();
  back = (*thunk)->ToProto();
  ASSERT_TRUE(back.ok());
  EXPECT_FALSE(back->gemm().has_allow_tf32());

  const std::string bf16 = DeserializeError(
      R"pb(gemm { lhs { allocation: 4 size: 32 } rhs { allocation: 1 size: 32 } output { allocation: 4 offset: 128 size: 32 } element_type: PRIMITIVE_TYPE_BF16 m: 4 n: 4 k: 4 allow_tf32: true })pb");
  EXPECT_TRUE(absl::StrContains(
      bf16, "thunk.gemm.allow_tf32: TF32 is only for F32 GEMMs with F32 operands, not bf16 x bf16 -> bf16"))
      << bf16;
}

namespace se = ::stream_executor;

// ---- FP8 GEMMs (runtime feature "gemm.fp8") ----

// A valid fp8 GEMM: 16x16x16, f8e4m3fn x f8e5m2 -> bf16, TN, scales in
// allocation 3 (4 bytes); operands and output in allocation 4 (1024 bytes).
std::string Fp8Gemm(absl::string_view extra, absl::string_view lhs_type = "PRIMITIVE_TYPE_F8E4M3FN",
                    absl::string_view scale_size = "4") {
  return absl::StrCat(
      "gemm { lhs { allocation: 4 size: 256 } rhs { allocation: 4 offset: 256 size: 256 } "
      "output { allocation: 4 offset: 512 size: 512 } element_type: PRIMITIVE_TYPE_BF16 "
      "m: 16 n: 16 k: 16 lhs_type: ", lhs_type, " rhs_type: PRIMITIVE_TYPE_F8E5M2 ",
      "lhs_scale { allocation: 3 size: ", scale_size, " } rhs_scale { allocation: 3 size: 4 } ",
      extra, " }");
}

TEST(GemmThunkFp8, AcceptsTheTnFormAndRoundTrips) {
  const std::string text = Fp8Gemm("transpose_rhs: true");
  EXPECT_EQ(DeserializeError(text), "");
  ThunkProto proto;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &proto));
  testing::ThunkTestContext ctx;
  absl::StatusOr<std::unique_ptr<Thunk>> thunk = ctx.Deserialize(proto);
  ASSERT_TRUE(thunk.ok()) << thunk.status();
  absl::StatusOr<ThunkProto> back = (*thunk)->ToProto();
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->gemm().lhs_type(), PRIMITIVE_TYPE_F8E4M3FN);
  EXPECT_EQ(back->gemm().rhs_type(), PRIMITIVE_TYPE_F8E5M2);
  EXPECT_EQ(back->gemm().lhs_scale().size(), 4);
  EXPECT_TRUE(back->gemm().has_rhs_scale());
  const auto* gemm = static_cast<const GemmThunk*>(thunk->get());
  EXPECT_EQ(gemm->config().lhs_type, PrimitiveType::F8E4M3FN);
  EXPECT_EQ(gemm->config().element_type, PrimitiveType::BF16);
}

TEST(GemmThunkFp8, RejectsWhatCublasLtCannotRun) {
  struct Case {
    std::string text;
    const char* message;
  };
  const Case cases[] = {
      {Fp8Gemm(""), "TN form"},
      {Fp8Gemm("transpose_rhs: true", "PRIMITIVE_TYPE_F16"),
       "thunk.gemm.lhs_type: an operand type of its own must be f8e4m3fn or f8e5m2"},
      {Fp8Gemm("transpose_rhs: true", "PRIMITIVE_TYPE_F8E5M2"), "f8e5m2 x f8e5m2"},
      {Fp8Gemm("transpose_rhs: true", "PRIMITIVE_TYPE_F8E4M3FN", "2"),
       "thunk.gemm.lhs_scale: a scale is one f32 (4 bytes), but the slice has 2 bytes"},
      {Fp8Gemm("transpose_rhs: true", "PRIMITIVE_TYPE_F8E4M3FN", "8"), "thunk.gemm.lhs_scale"},
      {R"pb(gemm { lhs { allocation: 4 size: 1024 } rhs { allocation: 0 size: 64 } output { allocation: 1 size: 64 } element_type: PRIMITIVE_TYPE_F32 m: 4 n: 4 k: 4 lhs_scale { allocation: 3 size: 4 } })pb",
       "thunk.gemm.lhs_scale: a scale needs fp8 operands"},
      {R"pb(gemm { lhs { allocation: 4 size: 1024 } rhs { allocation: 4 size: 1024 } output { allocation: 2 size: 64 } element_type: PRIMITIVE_TYPE_BF16 m: 4 n: 8 k: 16 transpose_rhs: true lhs_type: PRIMITIVE_TYPE_F8E4M3FN rhs_type: PRIMITIVE_TYPE_F8E4M3FN })pb",
       "multiples of 16"},
      // 16x16 bf16 output is 512 bytes; the slice holds 256.
      {R"pb(gemm { lhs { allocation: 4 size: 256 } rhs { allocation: 4 offset: 256 size: 256 } output { allocation: 4 offset: 512 size: 256 } element_type: PRIMITIVE_TYPE_BF16 m: 16 n: 16 k: 16 transpose_rhs: true lhs_type: PRIMITIVE_TYPE_F8E4M3FN rhs_type: PRIMITIVE_TYPE_F8E4M3FN })pb",
       "thunk.gemm.output: needs 256 elements"},
  };
  for (const Case& c : cases) {
    const std::string error = DeserializeError(c.text);
    EXPECT_TRUE(absl::StrContains(error, c.message)) << c.text << "\n -> " << error;
  }
}


// A GemmThunk on the "cuda" platform of a fake driver, with a fake cuBLAS
// (installed by the tests that want it).
class GemmThunkOnFakeCudaTest : public testing::FakeCudaThunkTest {
 protected:
  void TearDown() override {
    FakeCudaThunkTest::TearDown();
    se::cuda::SetCublasApiForTesting(nullptr);
  }

  se::cuda::FakeCublas cublas_{driver_.api()};
};

std::vector<float> RandomFloats(int64_t size, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> values(size);
  for (float& v : values) v = dist(rng);
  return values;
}

TEST_F(GemmThunkOnFakeCudaTest, BatchedTransposedF32MatchesHostGemm) {
  se::cuda::SetCublasApiForTesting(&cublas_.api());
  GemmConfig config;
  config.element_type = PrimitiveType::F32;
  config.m = 3;
  config.n = 5;
  config.k = 7;
  config.transpose_lhs = true;  // stored k x m = 7 x 3
  config.batch_size = 2;
  config.lhs_batch_stride = 22;  // 21 + 1 padding
  config.rhs_batch_stride = 35;
  config.output_batch_stride = 16;  // 15 + 1 padding
  config.alpha = 1.25;
  config.beta = -0.5;
  std::mt19937 rng(7);
  const std::vector<float> lhs = RandomFloats(22 + 21, rng);
  const std::vector<float> rhs = RandomFloats(35 + 35, rng);
  const std::vector<float> out_init = RandomFloats(16 + 15, rng);

  std::vector<float> expected = out_init;
  ASSERT_TRUE(se::host::HostGemm(*ToBlasConfig(config), lhs.data(), rhs.data(), expected.data()).ok());

  se::OwningDeviceMemory lhs_d = Upload(lhs), rhs_d = Upload(rhs), out_d = Upload(out_init);
  const BufferAllocations buffers({lhs_d.get(), rhs_d.get(), out_d.get()});
  auto bytes = [](const std::vector<float>& v) {
    return static_cast<int64_t>(v.size() * sizeof(float));
  };
  GemmThunk thunk(ThunkInfo{0, "dot.7"}, config, WholeSlice(0, bytes(lhs)),
                  WholeSlice(1, bytes(rhs)), WholeSlice(2, bytes(out_init)));
  InitializeParams init;
  init.executor = executor_;
  ASSERT_TRUE(thunk.Initialize(init).ok());
  ASSERT_TRUE(thunk.ExecuteOnStream(Params(buffers)).ok());
  std::vector<float> out(out_init.size());
  ASSERT_TRUE(stream_->Memcpy(out.data(), out_d.get(), bytes(out)).ok());
  ASSERT_TRUE(stream_->BlockHostUntilDone().ok());

  // It went through cuBLAS, once, as f32 with TF32 off.
  const std::vector<se::cuda::FakeCublasGemm> calls = cublas_.recorded();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].args.batch_count, 2);
  EXPECT_EQ(calls[0].args.compute_type, CUBLAS_COMPUTE_32F);
  for (size_t i = 0; i < out.size(); ++i) {
    EXPECT_NEAR(out[i], expected[i], 1e-5f * (1 + std::abs(expected[i]))) << "element " << i;
  }
  // The padding element between the output batches is untouched.
  EXPECT_EQ(out[15], out_init[15]);
  EXPECT_NE(out[0], out_init[0]);
}

// allow_tf32 reaches cuBLAS as CUBLAS_COMPUTE_32F_FAST_TF32, and the fake
// rounds the operands: the result is the product of the TF32-rounded
// operands (computed here in double), and differs from the f32 product by
// far more than f32 rounding.
TEST_F(GemmThunkOnFakeCudaTest, AllowTf32RoundsTheOperands) {
  se::cuda::SetCublasApiForTesting(&cublas_.api());
  GemmConfig config;
  config.element_type = PrimitiveType::F32;
  config.m = 5;
  config.n = 3;
  config.k = 33;
  config.allow_tf32 = true;
  std::mt19937 rng(11);
  const std::vector<float> lhs = RandomFloats(5 * 33, rng);
  const std::vector<float> rhs = RandomFloats(33 * 3, rng);
  std::vector<float> tf32(15), f32(15);
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 3; ++j) {
      double rounded = 0, exact = 0;
      for (int l = 0; l < 33; ++l) {
        rounded += static_cast<double>(RoundToTf32(lhs[i * 33 + l])) * RoundToTf32(rhs[l * 3 + j]);
        exact += static_cast<double>(lhs[i * 33 + l]) * rhs[l * 3 + j];
      }
      tf32[i * 3 + j] = static_cast<float>(rounded);
      f32[i * 3 + j] = static_cast<float>(exact);
    }
  }
  se::OwningDeviceMemory lhs_d = Upload(lhs), rhs_d = Upload(rhs),
                         out_d = Upload(std::vector<float>(15, 0.0f));
  const BufferAllocations buffers({lhs_d.get(), rhs_d.get(), out_d.get()});
  GemmThunk thunk(ThunkInfo{0, "dot.tf32"}, config, WholeSlice(0, 5 * 33 * 4), WholeSlice(1, 33 * 3 * 4),
                  WholeSlice(2, 15 * 4));
  InitializeParams init;
  init.executor = executor_;
  ASSERT_TRUE(thunk.Initialize(init).ok());
  ASSERT_TRUE(thunk.ExecuteOnStream(Params(buffers)).ok());
  std::vector<float> out(15);
  ASSERT_TRUE(stream_->Memcpy(out.data(), out_d.get(), 15 * sizeof(float)).ok());
  ASSERT_TRUE(stream_->BlockHostUntilDone().ok());
  const std::vector<se::cuda::FakeCublasGemm> calls = cublas_.recorded();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].args.compute_type, CUBLAS_COMPUTE_32F_FAST_TF32);
  double largest_gap = 0;
  for (int i = 0; i < 15; ++i) {
    EXPECT_EQ(out[i], tf32[i]) << "element " << i;
    largest_gap = std::max(largest_gap, static_cast<double>(std::abs(tf32[i] - f32[i])));
  }
  EXPECT_GT(largest_gap, 1e-4) << "TF32 rounding should move some result well past f32 rounding";
}

TEST_F(GemmThunkOnFakeCudaTest, MissingCublasIsAClearInitializeError) {
  // XLA_CUBLAS_LIBRARY points nowhere (see BUILD); no fake is installed.
  GemmConfig config;
  GemmThunk thunk(ThunkInfo{0, "dot.3"}, config, WholeSlice(0, 4), WholeSlice(1, 4),
                  WholeSlice(2, 4));
  InitializeParams init;
  init.executor = executor_;
  const absl::Status status = thunk.Initialize(init);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(status.message(), "gemm thunk 'dot.3': ")) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "cannot initialize cuBLAS for CUDA device 0"))
      << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "cuBLAS not found")) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "--target=host")) << status;
}

TEST_F(GemmThunkOnFakeCudaTest, ExecuteWithoutInitializeFails) {
  se::OwningDeviceMemory m = Upload(std::vector<float>{1.5f});
  const BufferAllocations buffers({m.get(), m.get(), m.get()});
  GemmThunk thunk(ThunkInfo{0, "dot.9"}, GemmConfig(), WholeSlice(0, 4),
                  WholeSlice(1, 4), WholeSlice(2, 4));
  const absl::Status status = thunk.ExecuteOnStream(Params(buffers));
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(status.message(), "gemm thunk 'dot.9': ")) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), "InitializeBlas")) << status;
}

}  // namespace
}  // namespace xla::gpu
