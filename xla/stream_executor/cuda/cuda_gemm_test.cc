// The row-major -> cuBLAS mapping of CublasHandle::Gemm, against a fake
// cuBLAS table: the arguments cublasGemmStridedBatchedEx receives for a few
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
#include "xla/stream_executor/cuda/fake_cuda_driver.h"
#include "xla/stream_executor/owning_device_memory.h"

namespace stream_executor::cuda {
namespace {

using ::testing::HasSubstr;

// What the fake cublasGemmStridedBatchedEx saw.
struct RecordedGemm {
  CublasGemmArgs args;
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  float alpha = 0, beta = 0;
  cublasGemmAlgo_t algo = CUBLAS_GEMM_DEFAULT;
  cudaStream_t stream = nullptr;
};

std::mutex fake_mu;
std::vector<RecordedGemm> recorded;           // guarded by fake_mu
cudaStream_t bound_stream = nullptr;          // guarded by fake_mu
cublasMath_t math_mode = CUBLAS_PEDANTIC_MATH;  // guarded by fake_mu
int live_handles = 0;                         // guarded by fake_mu
const CudaDriverApi* fake_driver = nullptr;
cublasStatus_t next_gemm_status = CUBLAS_STATUS_SUCCESS;

int handle_storage;

cublasStatus_t FakeCreate(cublasHandle_t* handle) {
  std::lock_guard<std::mutex> lock(fake_mu);
  ++live_handles;
  *handle = reinterpret_cast<cublasHandle_t>(&handle_storage);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t FakeDestroy(cublasHandle_t) {
  std::lock_guard<std::mutex> lock(fake_mu);
  --live_handles;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t FakeSetStream(cublasHandle_t, cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(fake_mu);
  bound_stream = stream;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t FakeSetMathMode(cublasHandle_t, cublasMath_t mode) {
  std::lock_guard<std::mutex> lock(fake_mu);
  math_mode = mode;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t FakeGetVersion(cublasHandle_t, int* version) {
  *version = 120400;
  return CUBLAS_STATUS_SUCCESS;
}
const char* FakeStatusName(cublasStatus_t status) {
  return status == CUBLAS_STATUS_EXECUTION_FAILED ? "CUBLAS_STATUS_EXECUTION_FAILED"
                                                  : "CUBLAS_STATUS_OTHER";
}
const char* FakeStatusString(cublasStatus_t) { return "the fake says no"; }

// Column-major BLAS: C[i + j*ldc] = alpha * sum_l opA(i,l) opB(l,j) + beta C,
// with op(X)(r,c) = X[r + c*ld] (N) or X[c + r*ld] (T). f32 only.
void ColumnMajorGemm(const RecordedGemm& g) {
  const CublasGemmArgs& p = g.args;
  for (int batch = 0; batch < p.batch_count; ++batch) {
    const float* a = static_cast<const float*>(g.a) + batch * p.stride_a;
    const float* b = static_cast<const float*>(g.b) + batch * p.stride_b;
    float* c = static_cast<float*>(g.c) + batch * p.stride_c;
    for (int i = 0; i < p.m; ++i) {
      for (int j = 0; j < p.n; ++j) {
        double sum = 0;
        for (int l = 0; l < p.k; ++l) {
          const float av = p.transa == CUBLAS_OP_N ? a[i + l * p.lda] : a[l + i * p.lda];
          const float bv = p.transb == CUBLAS_OP_N ? b[l + j * p.ldb] : b[j + l * p.ldb];
          sum += static_cast<double>(av) * bv;
        }
        float& out = c[i + j * p.ldc];
        out = static_cast<float>(g.alpha * sum + (g.beta == 0 ? 0.0 : g.beta * out));
      }
    }
  }
}

cublasStatus_t FakeGemm(cublasHandle_t, cublasOperation_t transa,
                        cublasOperation_t transb, int m, int n, int k,
                        const void* alpha, const void* a, cudaDataType a_type,
                        int lda, long long stride_a, const void* b,
                        cudaDataType b_type, int ldb, long long stride_b,
                        const void* beta, void* c, cudaDataType c_type, int ldc,
                        long long stride_c, int batch, cublasComputeType_t compute,
                        cublasGemmAlgo_t algo) {
  if (next_gemm_status != CUBLAS_STATUS_SUCCESS) {
    const cublasStatus_t status = next_gemm_status;
    next_gemm_status = CUBLAS_STATUS_SUCCESS;
    return status;
  }
  auto* g = new RecordedGemm();
  g->args = {transa, transb, m, n, k, lda, ldb, ldc, stride_a, stride_b,
             stride_c, batch, a_type, compute};
  EXPECT_EQ(a_type, b_type);
  EXPECT_EQ(a_type, c_type);
  g->a = a;
  g->b = b;
  g->c = c;
  g->algo = algo;
  if (compute != CUBLAS_COMPUTE_64F) {
    g->alpha = *static_cast<const float*>(alpha);
    g->beta = *static_cast<const float*>(beta);
  }
  {
    std::lock_guard<std::mutex> lock(fake_mu);
    g->stream = bound_stream;
    recorded.push_back(*g);
  }
  // Runs in stream order on the fake device, like the real kernel.
  if (a_type != CUDA_R_32F) {
    delete g;
    return CUBLAS_STATUS_SUCCESS;
  }
  const CUresult result = fake_driver->cuLaunchHostFunc(
      reinterpret_cast<CUstream>(g->stream),
      [](void* data) {
        auto* gemm = static_cast<RecordedGemm*>(data);
        ColumnMajorGemm(*gemm);
        delete gemm;
      },
      g);
  return result == CUDA_SUCCESS ? CUBLAS_STATUS_SUCCESS
                                : CUBLAS_STATUS_EXECUTION_FAILED;
}

CublasApi FakeCublas() {
  CublasApi api;
  api.cublasCreate_v2 = &FakeCreate;
  api.cublasDestroy_v2 = &FakeDestroy;
  api.cublasSetStream_v2 = &FakeSetStream;
  api.cublasSetMathMode = &FakeSetMathMode;
  api.cublasGetVersion_v2 = &FakeGetVersion;
  api.cublasGetStatusName = &FakeStatusName;
  api.cublasGetStatusString = &FakeStatusString;
  api.cublasGemmStridedBatchedEx = &FakeGemm;
  return api;
}

// Row-major reference: out[b] = alpha * op(lhs[b]) op(rhs[b]) + beta out[b].
std::vector<float> Reference(const CudaGemmConfig& c, const std::vector<float>& lhs,
                             const std::vector<float>& rhs, std::vector<float> out) {
  for (int64_t b = 0; b < std::max<int64_t>(c.batch_size, 1); ++b) {
    for (int64_t i = 0; i < c.m; ++i) {
      for (int64_t j = 0; j < c.n; ++j) {
        double sum = 0;
        for (int64_t l = 0; l < c.k; ++l) {
          const float x = c.transpose_lhs ? lhs[b * c.lhs_batch_stride + l * c.m + i]
                                          : lhs[b * c.lhs_batch_stride + i * c.k + l];
          const float y = c.transpose_rhs ? rhs[b * c.rhs_batch_stride + j * c.k + l]
                                          : rhs[b * c.rhs_batch_stride + l * c.n + j];
          sum += static_cast<double>(x) * y;
        }
        float& o = out[b * c.output_batch_stride + i * c.n + j];
        o = static_cast<float>(c.alpha * sum + c.beta * o);
      }
    }
  }
  return out;
}

class CudaGemmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fake_driver = &driver_.api();
    {
      std::lock_guard<std::mutex> lock(fake_mu);
      recorded.clear();
    }
    platform_ = std::make_unique<CudaPlatform>(&driver_.api());
    absl::StatusOr<StreamExecutor*> device = platform_->GetDevice(0);
    ASSERT_TRUE(device.ok()) << device.status();
    executor_ = static_cast<CudaExecutor*>(*device);
    absl::StatusOr<std::unique_ptr<Stream>> stream = executor_->CreateStream();
    ASSERT_TRUE(stream.ok());
    stream_.reset(static_cast<CudaStream*>(stream->release()));
    absl::StatusOr<std::unique_ptr<CublasHandle>> handle =
        CublasHandle::Create(cublas_, driver_.api(), executor_->context());
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
  RecordedGemm RunAndCheck(const CudaGemmConfig& config) {
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
    const std::vector<float> expected = Reference(config, lhs, rhs, out_init);
    for (size_t i = 0; i < out.size(); ++i) {
      EXPECT_NEAR(out[i], expected[i], 1e-4f * (1 + std::abs(expected[i])))
          << "element " << i;
    }
    std::lock_guard<std::mutex> lock(fake_mu);
    EXPECT_EQ(recorded.size(), 1u);
    RecordedGemm call = recorded.back();
    EXPECT_EQ(call.a, rhs_d.get().opaque);  // cuBLAS's A is the rhs
    EXPECT_EQ(call.b, lhs_d.get().opaque);
    EXPECT_EQ(call.c, out_d.get().opaque);
    EXPECT_EQ(call.stream, reinterpret_cast<cudaStream_t>(stream_->handle()));
    return call;
  }

  FakeCudaDriver driver_;
  CublasApi cublas_ = FakeCublas();
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
  RecordedGemm call = RunAndCheck(config);
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
  std::lock_guard<std::mutex> lock(fake_mu);
  EXPECT_EQ(math_mode, CUBLAS_DEFAULT_MATH);
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
  RecordedGemm call = RunAndCheck(config);
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
  RecordedGemm call = RunAndCheck(config);
  EXPECT_EQ(call.args.transa, CUBLAS_OP_T);
  EXPECT_EQ(call.args.transb, CUBLAS_OP_N);
  EXPECT_EQ(call.args.lda, 2);
  EXPECT_EQ(call.args.ldb, 2);
  EXPECT_EQ(call.args.ldc, 5);
}

TEST(CudaGemmMappingTest, TypesAndComputeTypes) {
  CudaGemmConfig config;
  config.type = CudaGemmType::kBF16;
  absl::StatusOr<CublasGemmArgs> args = MapRowMajorGemmToCublas(config);
  ASSERT_TRUE(args.ok());
  EXPECT_EQ(args->data_type, CUDA_R_16BF);
  EXPECT_EQ(args->compute_type, CUBLAS_COMPUTE_32F);
  config.type = CudaGemmType::kF16;
  EXPECT_EQ(MapRowMajorGemmToCublas(config)->data_type, CUDA_R_16F);
  EXPECT_EQ(MapRowMajorGemmToCublas(config)->compute_type, CUBLAS_COMPUTE_32F);
  config.type = CudaGemmType::kF64;
  EXPECT_EQ(MapRowMajorGemmToCublas(config)->compute_type, CUBLAS_COMPUTE_64F);
  config.type = CudaGemmType::kF32;
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
  next_gemm_status = CUBLAS_STATUS_EXECUTION_FAILED;
  ASSERT_TRUE(handle_->Gemm(*cuda_other, config, big.get(), big.get(), big.get()).ok());
  absl::Status failed = cuda_other->BlockHostUntilDone();
  EXPECT_EQ(failed.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(failed.message(),
            "gemm failed: cublasGemmStridedBatchedEx: "
            "CUBLAS_STATUS_EXECUTION_FAILED: the fake says no");
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
