// The row-major -> cuBLAS mapping of CublasHandle::Gemm, against the fake
// cuBLAS table (fake_cublas.h): the arguments cublasGemmStridedBatchedEx receives for a few
// shapes, and (f32) the numbers, computed by the fake with the column-major
// BLAS definition and compared with a row-major reference written here.
#include "xla/stream_executor/cuda/cuda_gemm.h"

#include <cstring>
#include <mutex>
#include <random>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/stream_executor/cuda/cuda_executor.h"
#include "xla/stream_executor/cuda/cuda_platform.h"
#include "xla/stream_executor/cuda/fake_cublas.h"
#include "xla/stream_executor/cuda/fake_cuda_driver.h"
#include "xla/stream_executor/owning_device_memory.h"

namespace stream_executor::cuda {
namespace {

using ::testing::HasSubstr;

class CudaGemmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    platform_ = std::make_unique<CudaPlatform>(&driver_.api());
    absl::StatusOr<StreamExecutor*> device = platform_->GetDevice(0);
    ASSERT_TRUE(device.ok()) << device.status();
    executor_ = static_cast<CudaExecutor*>(*device);
    absl::StatusOr<std::unique_ptr<Stream>> stream = executor_->CreateStream();
    ASSERT_TRUE(stream.ok());
    stream_.reset(static_cast<CudaStream*>(stream->release()));
    absl::StatusOr<std::unique_ptr<CublasHandle>> handle =
        CublasHandle::Create(cublas_.api(), driver_.api(), executor_->context());
    ASSERT_TRUE(handle.ok()) << handle.status();
    handle_ = *std::move(handle);
  }

  OwningDeviceMemory Upload(const std::vector<float>& host) {
    absl::StatusOr<OwningDeviceMemory> memory =
        OwningDeviceMemory::Allocate(executor_, host.size() * 4);
    EXPECT_TRUE(memory.ok());
    EXPECT_TRUE(stream_->Memcpy(memory->ptr(), host.data(), host.size() * 4).ok());
    // `host` may be a temporary: the copy must have run before it goes.
    EXPECT_TRUE(stream_->BlockHostUntilDone().ok());
    return std::move(memory).value();
  }

  // Runs `config` on random data; checks the numbers against Reference and
  // returns the recorded cuBLAS call.
  FakeCublasGemm RunAndCheck(const CudaGemmConfig& config) {
    std::mt19937 rng(1234 + config.m * 7 + config.n * 3 + config.k);
    std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
    const int64_t batch = std::max<int64_t>(config.batch_size, 1);
    auto random = [&](int64_t size) {
      std::vector<float> v(size);
      for (float& x : v) x = dist(rng);
      return v;
    };
    const std::vector<float> lhs =
        random((batch - 1) * config.lhs_batch_stride + config.m * config.k);
    const std::vector<float> rhs =
        random((batch - 1) * config.rhs_batch_stride + config.k * config.n);
    const std::vector<float> out_init =
        random((batch - 1) * config.output_batch_stride + config.m * config.n);
    OwningDeviceMemory lhs_d = Upload(lhs), rhs_d = Upload(rhs),
                       out_d = Upload(out_init);
    EXPECT_TRUE(
        handle_->Gemm(*stream_, config, lhs_d.get(), rhs_d.get(), out_d.get()).ok());
    std::vector<float> out(out_init.size());
    EXPECT_TRUE(stream_->Memcpy(out.data(), out_d.get(), out.size() * 4).ok());
    EXPECT_TRUE(stream_->BlockHostUntilDone().ok());
    const std::vector<float> expected = RowMajorGemmReference(config, lhs, rhs, out_init);
    for (size_t i = 0; i < out.size(); ++i) {
      EXPECT_NEAR(out[i], expected[i], 1e-4f * (1 + std::abs(expected[i])))
          << "element " << i;
    }
    const std::vector<FakeCublasGemm> recorded = cublas_.recorded();
    EXPECT_EQ(recorded.size(), 1u);
    if (recorded.empty()) return FakeCublasGemm();
    FakeCublasGemm call = recorded.back();
    EXPECT_EQ(call.a, rhs_d.get().opaque);  // cuBLAS's A is the rhs
    EXPECT_EQ(call.b, lhs_d.get().opaque);
    EXPECT_EQ(call.c, out_d.get().opaque);
    EXPECT_EQ(call.stream, reinterpret_cast<cudaStream_t>(stream_->handle()));
    return call;
  }

  FakeCudaDriver driver_;
  FakeCublas cublas_{driver_.api()};
  std::unique_ptr<CudaPlatform> platform_;
  CudaExecutor* executor_ = nullptr;
  std::unique_ptr<CudaStream> stream_;
  std::unique_ptr<CublasHandle> handle_;
};

TEST_F(CudaGemmTest, PlainGemmSwapsOperandsAndExtents) {
  CudaGemmConfig config;
  config.m = 5;
  config.n = 3;
  config.k = 7;
  config.alpha = 1.5;
  config.beta = 0.0;
  FakeCublasGemm call = RunAndCheck(config);
  EXPECT_EQ(call.args.transa, CUBLAS_OP_N);
  EXPECT_EQ(call.args.transb, CUBLAS_OP_N);
  EXPECT_EQ(call.args.m, 3);  // n
  EXPECT_EQ(call.args.n, 5);  // m
  EXPECT_EQ(call.args.k, 7);
  EXPECT_EQ(call.args.lda, 3);  // rhs row length n
  EXPECT_EQ(call.args.ldb, 7);  // lhs row length k
  EXPECT_EQ(call.args.ldc, 3);  // out row length n
  EXPECT_EQ(call.args.batch_count, 1);
  EXPECT_EQ(call.args.data_type, CUDA_R_32F);
  EXPECT_EQ(call.args.compute_type, CUBLAS_COMPUTE_32F);  // no TF32
  EXPECT_EQ(call.alpha, 1.5f);
  EXPECT_EQ(call.beta, 0.0f);
  EXPECT_EQ(cublas_.math_mode(), CUBLAS_DEFAULT_MATH);
}

TEST_F(CudaGemmTest, TransposedBatchedGemmWithBeta) {
  CudaGemmConfig config;
  config.m = 4;
  config.n = 6;
  config.k = 3;
  config.transpose_lhs = true;   // stored 3 x 4
  config.transpose_rhs = true;   // stored 6 x 3
  config.batch_size = 3;
  config.lhs_batch_stride = 13;  // padded: 12 + 1
  config.rhs_batch_stride = 18;
  config.output_batch_stride = 25;
  config.alpha = -0.5;
  config.beta = 2.0;
  FakeCublasGemm call = RunAndCheck(config);
  EXPECT_EQ(call.args.transa, CUBLAS_OP_T);
  EXPECT_EQ(call.args.transb, CUBLAS_OP_T);
  EXPECT_EQ(call.args.m, 6);
  EXPECT_EQ(call.args.n, 4);
  EXPECT_EQ(call.args.k, 3);
  EXPECT_EQ(call.args.lda, 3);  // rhs stored n x k: row length k
  EXPECT_EQ(call.args.ldb, 4);  // lhs stored k x m: row length m
  EXPECT_EQ(call.args.ldc, 6);
  EXPECT_EQ(call.args.stride_a, 18);
  EXPECT_EQ(call.args.stride_b, 13);
  EXPECT_EQ(call.args.stride_c, 25);
  EXPECT_EQ(call.args.batch_count, 3);
  EXPECT_EQ(call.beta, 2.0f);
}

TEST_F(CudaGemmTest, OneSideTransposed) {
  CudaGemmConfig config;
  config.m = 3;
  config.n = 5;
  config.k = 2;
  config.transpose_rhs = true;  // stored 5 x 2
  config.batch_size = 2;
  config.lhs_batch_stride = 6;
  config.rhs_batch_stride = 10;
  config.output_batch_stride = 15;
  FakeCublasGemm call = RunAndCheck(config);
  EXPECT_EQ(call.args.transa, CUBLAS_OP_T);
  EXPECT_EQ(call.args.transb, CUBLAS_OP_N);
  EXPECT_EQ(call.args.lda, 2);
  EXPECT_EQ(call.args.ldb, 2);
  EXPECT_EQ(call.args.ldc, 5);
}

TEST(CudaGemmMappingTest, TypesAndComputeTypes) {
  CudaGemmConfig config;
  config.element_type = CudaGemmType::kBF16;
  absl::StatusOr<CublasGemmArgs> args = MapRowMajorGemmToCublas(config);
  ASSERT_TRUE(args.ok());
  EXPECT_EQ(args->data_type, CUDA_R_16BF);
  EXPECT_EQ(args->compute_type, CUBLAS_COMPUTE_32F);
  config.element_type = CudaGemmType::kF16;
  EXPECT_EQ(MapRowMajorGemmToCublas(config)->data_type, CUDA_R_16F);
  EXPECT_EQ(MapRowMajorGemmToCublas(config)->compute_type, CUBLAS_COMPUTE_32F);
  config.element_type = CudaGemmType::kF64;
  EXPECT_EQ(MapRowMajorGemmToCublas(config)->compute_type, CUBLAS_COMPUTE_64F);
  config.element_type = CudaGemmType::kF32;
  config.allow_tf32 = true;
  EXPECT_EQ(MapRowMajorGemmToCublas(config)->compute_type,
            CUBLAS_COMPUTE_32F_FAST_TF32);
  config.m = 0;
  EXPECT_EQ(MapRowMajorGemmToCublas(config).status().code(),
            absl::StatusCode::kInvalidArgument);
  config.m = int64_t{1} << 33;
  EXPECT_THAT(MapRowMajorGemmToCublas(config).status().message(),
              HasSubstr("32-bit"));
}

TEST_F(CudaGemmTest, SmallBuffersAndCublasErrorsAreStreamErrors) {
  CudaGemmConfig config;
  config.m = 4;
  config.n = 4;
  config.k = 4;
  OwningDeviceMemory small = Upload(std::vector<float>(15, 1.0f));
  OwningDeviceMemory big = Upload(std::vector<float>(16, 1.0f));
  ASSERT_TRUE(stream_->BlockHostUntilDone().ok());
  absl::Status status = handle_->Gemm(*stream_, config, small.get(), big.get(), big.get());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("lhs buffer has 60 bytes but needs 64"));
  EXPECT_THAT(status.message(), HasSubstr("gemm failed"));
  EXPECT_EQ(stream_->BlockHostUntilDone(), status);  // sticky

  absl::StatusOr<std::unique_ptr<Stream>> other = executor_->CreateStream();
  ASSERT_TRUE(other.ok());
  auto* cuda_other = static_cast<CudaStream*>(other->get());
  cublas_.FailNextGemm(CUBLAS_STATUS_EXECUTION_FAILED);
  ASSERT_TRUE(handle_->Gemm(*cuda_other, config, big.get(), big.get(), big.get()).ok());
  absl::Status failed = cuda_other->BlockHostUntilDone();
  EXPECT_EQ(failed.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(failed.message(),
            "gemm failed: cublasGemmStridedBatchedEx: "
            "CUBLAS_STATUS_EXECUTION_FAILED: the fake says no");
}

// The platform-neutral path: Stream::Gemm needs InitializeBlas, which
// creates one handle per executor however often it is called.
TEST_F(CudaGemmTest, StreamGemmNeedsInitializeBlas) {
  OwningDeviceMemory m = Upload(std::vector<float>(16, 1.0f));
  OwningDeviceMemory out = Upload(std::vector<float>(16, 0.0f));
  BlasGemmConfig config;
  config.m = config.n = config.k = 4;
  Stream& stream = *stream_;
  absl::Status early = stream.Gemm(config, m.get(), m.get(), m.get());
  EXPECT_EQ(early.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(early.message(), HasSubstr("call StreamExecutor::InitializeBlas"));
  EXPECT_EQ(stream_->BlockHostUntilDone(), early);  // sticky, like any enqueue error

  SetCublasApiForTesting(&cublas_.api());
  EXPECT_EQ(cublas_.live_handles(), 1);  // the fixture's
  EXPECT_TRUE(executor_->InitializeBlas().ok());
  EXPECT_TRUE(executor_->InitializeBlas().ok());
  EXPECT_EQ(cublas_.live_handles(), 2);
  SetCublasApiForTesting(nullptr);

  absl::StatusOr<std::unique_ptr<Stream>> fresh = executor_->CreateStream();
  ASSERT_TRUE(fresh.ok());
  ASSERT_TRUE((*fresh)->Gemm(config, m.get(), m.get(), out.get()).ok());
  std::vector<float> host(16);
  ASSERT_TRUE((*fresh)->Memcpy(host.data(), out.get(), 64).ok());
  ASSERT_TRUE((*fresh)->BlockHostUntilDone().ok());
  EXPECT_EQ(host, std::vector<float>(16, 4.0f));  // k ones times ones
}

TEST(CublasApiTest, MissingLibrariesAreAClearError) {
  // XLA_CUBLAS_LIBRARY and XLA_NCCL_LIBRARY point nowhere (see BUILD).
  absl::StatusOr<const CublasApi*> cublas = LoadCublasApi();
  ASSERT_FALSE(cublas.ok());
  EXPECT_EQ(cublas.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(cublas.status().message(),
              HasSubstr("cuBLAS not found: cannot dlopen /nonexistent/libcublas.so"));
  EXPECT_THAT(cublas.status().message(), HasSubstr("--target=host"));
}

}  // namespace
}  // namespace stream_executor::cuda
