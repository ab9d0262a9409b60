// The row-major -> cuBLASLt mapping (hand-checked descriptors for each
// transpose combination, odd shapes and strides), the pointer alignments
// given to the heuristic, and CublasLtHandle / CudaExecutor on the fake
// driver with the fake cuBLASLt (fake_cublaslt.h): the descriptors
// cublasLtMatmul receives and (f32) the numbers, computed by the fake with
// the column-major BLAS definition and compared with a row-major reference
// written here.
#include "xla/stream_executor/cuda/cuda_blaslt_gemm.h"

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/stream_executor/blas.h"
#include "xla/stream_executor/cuda/cublas_api.h"
#include "xla/stream_executor/cuda/cublaslt_api.h"
#include "xla/stream_executor/cuda/cuda_executor.h"
#include "xla/stream_executor/cuda/cuda_platform.h"
#include "xla/stream_executor/cuda/fake_cublas.h"
#include "xla/stream_executor/cuda/fake_cublaslt.h"
#include "xla/stream_executor/cuda/fake_cuda_driver.h"
#include "xla/stream_executor/owning_device_memory.h"
#include "xla/types/float_format.h"

namespace stream_executor::cuda {
namespace {

using ::testing::HasSubstr;

void ExpectLayout(const CublasLtLayout& layout, uint64_t rows, uint64_t cols,
                  int64_t ld, int32_t batch, int64_t stride) {
  EXPECT_EQ(layout.rows, rows);
  EXPECT_EQ(layout.cols, cols);
  EXPECT_EQ(layout.ld, ld);
  EXPECT_EQ(layout.batch_count, batch);
  EXPECT_EQ(layout.batch_stride, stride);
}

bool SameLayout(const CublasLtLayout& x, const CublasLtLayout& y) {
  return x.type == y.type && x.rows == y.rows && x.cols == y.cols &&
         x.ld == y.ld && x.batch_count == y.batch_count &&
         x.batch_stride == y.batch_stride;
}

// m=5, n=3, k=7, batch 3 with padded strides: row-major lhs is 5x7 (7x5
// transposed), rhs 7x3 (3x7), out 5x3. Column-major C^T (3x5) =
// op(A) (3x7) op(B) (7x5) with A = rhs, B = lhs.
CudaGemmConfig OddConfig(bool transpose_lhs, bool transpose_rhs) {
  CudaGemmConfig config;
  config.m = 5;
  config.n = 3;
  config.k = 7;
  config.transpose_lhs = transpose_lhs;
  config.transpose_rhs = transpose_rhs;
  config.batch_size = 3;
  config.lhs_batch_stride = 37;
  config.rhs_batch_stride = 22;
  config.output_batch_stride = 16;
  return config;
}

TEST(CublasLtMappingTest, NoTranspose) {
  absl::StatusOr<CublasLtGemmPlan> plan =
      MapRowMajorGemmToCublasLt(OddConfig(false, false));
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->transa, CUBLAS_OP_N);
  EXPECT_EQ(plan->transb, CUBLAS_OP_N);
  ExpectLayout(plan->a, 3, 7, 3, 3, 22);   // rhs 7x3 row-major = 3x7 col-major
  ExpectLayout(plan->b, 7, 5, 7, 3, 37);   // lhs 5x7 row-major = 7x5 col-major
  ExpectLayout(plan->c, 3, 5, 3, 3, 16);
  EXPECT_EQ(plan->compute_type, CUBLAS_COMPUTE_32F);
  EXPECT_EQ(plan->scale_type, CUDA_R_32F);
  EXPECT_EQ(plan->a.type, CUDA_R_32F);
}

TEST(CublasLtMappingTest, TransposedLhs) {
  // lhs stored 7x5 row-major = 5x7 col-major; op(B) = its transpose, 7x5.
  absl::StatusOr<CublasLtGemmPlan> plan =
      MapRowMajorGemmToCublasLt(OddConfig(true, false));
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->transa, CUBLAS_OP_N);
  EXPECT_EQ(plan->transb, CUBLAS_OP_T);
  ExpectLayout(plan->a, 3, 7, 3, 3, 22);
  ExpectLayout(plan->b, 5, 7, 5, 3, 37);
  ExpectLayout(plan->c, 3, 5, 3, 3, 16);
}

TEST(CublasLtMappingTest, TransposedRhs) {
  // rhs stored 3x7 row-major = 7x3 col-major; op(A) = its transpose, 3x7.
  absl::StatusOr<CublasLtGemmPlan> plan =
      MapRowMajorGemmToCublasLt(OddConfig(false, true));
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->transa, CUBLAS_OP_T);
  EXPECT_EQ(plan->transb, CUBLAS_OP_N);
  ExpectLayout(plan->a, 7, 3, 7, 3, 22);
  ExpectLayout(plan->b, 7, 5, 7, 3, 37);
  ExpectLayout(plan->c, 3, 5, 3, 3, 16);
}

TEST(CublasLtMappingTest, BothTransposed) {
  absl::StatusOr<CublasLtGemmPlan> plan =
      MapRowMajorGemmToCublasLt(OddConfig(true, true));
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->transa, CUBLAS_OP_T);
  EXPECT_EQ(plan->transb, CUBLAS_OP_T);
  ExpectLayout(plan->a, 7, 3, 7, 3, 22);
  ExpectLayout(plan->b, 5, 7, 5, 3, 37);
  ExpectLayout(plan->c, 3, 5, 3, 3, 16);
}

TEST(CublasLtMappingTest, UnbatchedReadsBatchZeroAsOne) {
  CudaGemmConfig config;
  config.m = 1;
  config.n = 9;
  config.k = 2;
  config.batch_size = 0;
  absl::StatusOr<CublasLtGemmPlan> plan = MapRowMajorGemmToCublasLt(config);
  ASSERT_TRUE(plan.ok());
  ExpectLayout(plan->a, 9, 2, 9, 1, 0);
  ExpectLayout(plan->b, 2, 1, 2, 1, 0);
  ExpectLayout(plan->c, 9, 1, 9, 1, 0);
}

TEST(CublasLtMappingTest, TypesComputeAndScaleTypes) {
  struct Case {
    CudaGemmType type;
    bool tf32;
    cudaDataType data;
    cublasComputeType_t compute;
    cudaDataType scale;
  };
  const Case cases[] = {
      {CudaGemmType::kF32, false, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F},
      {CudaGemmType::kF32, true, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32,
       CUDA_R_32F},
      {CudaGemmType::kBF16, false, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F},
      {CudaGemmType::kBF16, true, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F},
      {CudaGemmType::kF16, false, CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F},
      {CudaGemmType::kF64, false, CUDA_R_64F, CUBLAS_COMPUTE_64F, CUDA_R_64F},
  };
  for (const Case& c : cases) {
    CudaGemmConfig config = OddConfig(false, true);
    config.element_type = c.type;
    config.allow_tf32 = c.tf32;
    absl::StatusOr<CublasLtGemmPlan> plan = MapRowMajorGemmToCublasLt(config);
    ASSERT_TRUE(plan.ok());
    EXPECT_EQ(plan->a.type, c.data);
    EXPECT_EQ(plan->b.type, c.data);
    EXPECT_EQ(plan->c.type, c.data);
    EXPECT_EQ(plan->compute_type, c.compute) << static_cast<int>(c.type);
    EXPECT_EQ(plan->scale_type, c.scale);
  }
}

TEST(CublasLtMappingTest, InvalidConfigsAreRejected) {
  CudaGemmConfig config = OddConfig(false, false);
  config.k = 0;
  EXPECT_EQ(MapRowMajorGemmToCublasLt(config).status().code(),
            absl::StatusCode::kInvalidArgument);
  config = OddConfig(false, false);
  config.rhs_batch_stride = -1;
  EXPECT_EQ(MapRowMajorGemmToCublasLt(config).status().code(),
            absl::StatusCode::kInvalidArgument);
  config = OddConfig(false, false);
  config.n = int64_t{1} << 32;
  EXPECT_THAT(MapRowMajorGemmToCublasLt(config).status().message(),
              HasSubstr("32-bit"));
}

TEST(CublasLtMappingTest, OperandAlignment) {
  auto at = [](uintptr_t address) { return reinterpret_cast<const void*>(address); };
  EXPECT_EQ(CublasLtOperandAlignment(at(0x10000), 1, 0), 256u);
  EXPECT_EQ(CublasLtOperandAlignment(at(0x10080), 1, 0), 128u);
  EXPECT_EQ(CublasLtOperandAlignment(at(0x10004), 1, 0), 4u);
  EXPECT_EQ(CublasLtOperandAlignment(at(0x10002), 1, 0), 2u);
  EXPECT_EQ(CublasLtOperandAlignment(at(0x10000), 3, 4 * 37), 4u);
  EXPECT_EQ(CublasLtOperandAlignment(at(0x10000), 3, 4 * 16), 64u);
  EXPECT_EQ(CublasLtOperandAlignment(at(0x10000), 3, 1024), 256u);
  EXPECT_EQ(CublasLtOperandAlignment(at(0x10000), 3, 0), 256u);   // broadcast
  EXPECT_EQ(CublasLtOperandAlignment(at(0x10000), 1, 4 * 37), 256u);  // 1 batch
}

class CublasLtGemmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    platform_ = std::make_unique<CudaPlatform>(&driver_.api());
    absl::StatusOr<StreamExecutor*> device = platform_->GetDevice(0);
    ASSERT_TRUE(device.ok()) << device.status();
    executor_ = static_cast<CudaExecutor*>(*device);
    stream_ = NewStream();
    absl::StatusOr<std::unique_ptr<CublasLtHandle>> handle =
        CublasLtHandle::Create(lt_.api(), driver_.api(), executor_->context());
    ASSERT_TRUE(handle.ok()) << handle.status();
    handle_ = *std::move(handle);
  }
  void TearDown() override { SetCublasLtApiForTesting(nullptr); }

  std::unique_ptr<CudaStream> NewStream() {
    absl::StatusOr<std::unique_ptr<Stream>> stream = executor_->CreateStream();
    EXPECT_TRUE(stream.ok());
    return std::unique_ptr<CudaStream>(static_cast<CudaStream*>(stream->release()));
  }

  OwningDeviceMemory Upload(const std::vector<float>& host) {
    absl::StatusOr<OwningDeviceMemory> memory =
        OwningDeviceMemory::Allocate(executor_, host.size() * 4);
    EXPECT_TRUE(memory.ok());
    EXPECT_TRUE(stream_->Memcpy(memory->ptr(), host.data(), host.size() * 4).ok());
    EXPECT_TRUE(stream_->BlockHostUntilDone().ok());
    return std::move(memory).value();
  }

  // Runs `config` on random data through `gemm` (which enqueues on
  // stream_); checks the numbers against Reference.
  template <typename GemmFn>
  void RunAndCheckWith(const CudaGemmConfig& config, GemmFn gemm) {
    std::mt19937 rng(99 + config.m * 7 + config.n * 3 + config.k);
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
    ASSERT_TRUE(gemm(lhs_d.get(), rhs_d.get(), out_d.get()).ok());
    std::vector<float> out(out_init.size());
    ASSERT_TRUE(stream_->Memcpy(out.data(), out_d.get(), out.size() * 4).ok());
    ASSERT_TRUE(stream_->BlockHostUntilDone().ok());
    const std::vector<float> expected = RowMajorGemmReference(config, lhs, rhs, out_init);
    int checked = 0;
    for (size_t i = 0; i < out.size(); ++i) {
      EXPECT_NEAR(out[i], expected[i], 1e-4f * (1 + std::abs(expected[i])))
          << "element " << i;
      checked += expected[i] != out_init[i];
    }
    EXPECT_GT(checked, 0);  // the GEMM changed something
    last_ = {lhs_d.get().opaque, rhs_d.get().opaque, out_d.get().opaque};
  }

  void RunAndCheck(const CudaGemmConfig& config) {
    RunAndCheckWith(config, [&](const DeviceMemoryBase& l, const DeviceMemoryBase& r,
                                const DeviceMemoryBase& o) {
      return handle_->Gemm(*stream_, config, l, r, o);
    });
  }

  FakeCudaDriver driver_;
  FakeCublasLt lt_{driver_.api()};
  std::unique_ptr<CudaPlatform> platform_;
  CudaExecutor* executor_ = nullptr;
  std::unique_ptr<CublasLtHandle> handle_;
  std::unique_ptr<CudaStream> stream_;  // destroyed (synchronized) first
  struct {
    const void* lhs;
    const void* rhs;
    const void* out;
  } last_ = {};
};

TEST_F(CublasLtGemmTest, EachTransposeCombinationComputesTheRowMajorProduct) {
  for (int t = 0; t < 4; ++t) {
    SCOPED_TRACE(t);
    CudaGemmConfig config = OddConfig(t & 1, t & 2);
    config.alpha = -0.75;
    config.beta = 1.5;
    const size_t before = lt_.matmuls().size();
    RunAndCheck(config);
    const std::vector<FakeCublasLtMatmul> calls = lt_.matmuls();
    ASSERT_EQ(calls.size(), before + 1);
    const FakeCublasLtMatmul& call = calls.back();
    absl::StatusOr<CublasLtGemmPlan> plan = MapRowMajorGemmToCublasLt(config);
    ASSERT_TRUE(plan.ok());
    EXPECT_EQ(call.plan.transa, plan->transa);
    EXPECT_EQ(call.plan.transb, plan->transb);
    EXPECT_EQ(call.plan.compute_type, CUBLAS_COMPUTE_32F);
    EXPECT_EQ(call.plan.scale_type, CUDA_R_32F);
    EXPECT_TRUE(SameLayout(call.plan.a, plan->a));
    EXPECT_TRUE(SameLayout(call.plan.b, plan->b));
    EXPECT_TRUE(SameLayout(call.plan.c, plan->c));
    EXPECT_EQ(call.a, last_.rhs);  // cuBLASLt's A is the rhs
    EXPECT_EQ(call.b, last_.lhs);
    EXPECT_EQ(call.c, last_.out);
    EXPECT_EQ(call.d, last_.out);
    EXPECT_EQ(call.alpha, -0.75f);
    EXPECT_EQ(call.beta, 1.5f);
    EXPECT_EQ(call.algo_id, FakeCublasLt::kAlgoId);
    EXPECT_NE(call.workspace, nullptr);
    EXPECT_EQ(call.workspace_bytes, kCublasLtWorkspaceBytes);
    EXPECT_EQ(call.stream, reinterpret_cast<cudaStream_t>(stream_->handle()));
  }
  EXPECT_EQ(lt_.live_descriptors(), 0);  // every descriptor destroyed
}

TEST_F(CublasLtGemmTest, UnbatchedBetaZeroGemm) {
  CudaGemmConfig config;
  config.m = 33;
  config.n = 17;
  config.k = 9;
  config.alpha = 2.0;
  RunAndCheck(config);
}

TEST_F(CublasLtGemmTest, HeuristicIsCachedPerPlanAndAlignment) {
  CudaGemmConfig config = OddConfig(false, true);
  RunAndCheck(config);
  RunAndCheck(config);  // fresh buffers, same plan, 256-byte aligned again
  EXPECT_EQ(handle_->heuristic_queries(), 1);
  std::vector<FakeCublasLtPreference> queries = lt_.heuristic_queries();
  ASSERT_EQ(queries.size(), 1u);
  EXPECT_EQ(queries[0].max_workspace_bytes, kCublasLtWorkspaceBytes);
  // Batch strides 22 and 37 floats: 8 and 4 bytes; output 16 floats: 64.
  EXPECT_EQ(queries[0].min_alignment[0], 8u);
  EXPECT_EQ(queries[0].min_alignment[1], 4u);
  EXPECT_EQ(queries[0].min_alignment[2], 64u);
  EXPECT_EQ(queries[0].min_alignment[3], 64u);

  // An output slice 4 bytes in: a new alignment, a new query.
  CudaGemmConfig single;
  single.m = 3;
  single.n = 5;
  single.k = 2;
  OwningDeviceMemory ones = Upload(std::vector<float>(16, 1.0f));
  OwningDeviceMemory out = Upload(std::vector<float>(17, 0.5f));
  DeviceMemoryBase slice(static_cast<char*>(out.get().opaque) + 4, 64);
  ASSERT_TRUE(handle_->Gemm(*stream_, single, ones.get(), ones.get(), slice).ok());
  std::vector<float> host(17);
  ASSERT_TRUE(stream_->Memcpy(host.data(), out.get(), 68).ok());
  ASSERT_TRUE(stream_->BlockHostUntilDone().ok());
  EXPECT_EQ(host[0], 0.5f);
  for (int i = 1; i <= 15; ++i) EXPECT_EQ(host[i], 2.0f) << i;  // k ones
  EXPECT_EQ(host[16], 0.5f);
  queries = lt_.heuristic_queries();
  ASSERT_EQ(queries.size(), 2u);
  EXPECT_EQ(queries[1].min_alignment[2], 4u);
  EXPECT_EQ(queries[1].min_alignment[0], 256u);
}

TEST_F(CublasLtGemmTest, OneWorkspacePerStream) {
  CudaGemmConfig config;
  config.m = config.n = config.k = 3;
  // The operands are shared (both streams only read them); each stream writes
  // its own output, so the two streams' workers never touch the same bytes.
  OwningDeviceMemory m = Upload(std::vector<float>(9, 1.0f));
  OwningDeviceMemory my_out = Upload(std::vector<float>(9, 0.0f));
  OwningDeviceMemory their_out = Upload(std::vector<float>(9, 0.0f));
  std::unique_ptr<CudaStream> other = NewStream();
  ASSERT_TRUE(handle_->Gemm(*stream_, config, m.get(), m.get(), my_out.get()).ok());
  ASSERT_TRUE(handle_->Gemm(*other, config, m.get(), m.get(), their_out.get()).ok());
  ASSERT_TRUE(handle_->Gemm(*stream_, config, m.get(), m.get(), my_out.get()).ok());
  ASSERT_TRUE(stream_->BlockHostUntilDone().ok());
  ASSERT_TRUE(other->BlockHostUntilDone().ok());
  // The two streams' workers run concurrently: group the calls by stream.
  const cudaStream_t mine = reinterpret_cast<cudaStream_t>(stream_->handle());
  const cudaStream_t theirs = reinterpret_cast<cudaStream_t>(other->handle());
  std::vector<void*> my_workspaces, their_workspaces;
  for (const FakeCublasLtMatmul& call : lt_.matmuls()) {
    EXPECT_NE(call.workspace, nullptr);
    if (call.stream == mine) my_workspaces.push_back(call.workspace);
    if (call.stream == theirs) their_workspaces.push_back(call.workspace);
  }
  ASSERT_EQ(my_workspaces.size(), 2u);
  ASSERT_EQ(their_workspaces.size(), 1u);
  EXPECT_EQ(my_workspaces[0], my_workspaces[1]);
  EXPECT_NE(my_workspaces[0], their_workspaces[0]);
  // Ones times ones over k = 3, with beta = 0: every element is 3.
  std::vector<float> mine_host(9), theirs_host(9);
  ASSERT_TRUE(stream_->Memcpy(mine_host.data(), my_out.get(), 36).ok());
  ASSERT_TRUE(other->Memcpy(theirs_host.data(), their_out.get(), 36).ok());
  ASSERT_TRUE(stream_->BlockHostUntilDone().ok());
  ASSERT_TRUE(other->BlockHostUntilDone().ok());
  EXPECT_EQ(mine_host, std::vector<float>(9, 3.0f));
  EXPECT_EQ(theirs_host, std::vector<float>(9, 3.0f));
}

TEST_F(CublasLtGemmTest, ErrorsAreStreamErrorsNamingTheEntryPoint) {
  CudaGemmConfig config;
  config.m = config.n = config.k = 4;
  OwningDeviceMemory small = Upload(std::vector<float>(15, 1.0f));
  OwningDeviceMemory big = Upload(std::vector<float>(16, 1.0f));
  OwningDeviceMemory out = Upload(std::vector<float>(20, 1.0f));
  absl::Status status = handle_->Gemm(*stream_, config, big.get(), small.get(), big.get());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("rhs buffer has 60 bytes but needs 64"));
  EXPECT_EQ(stream_->BlockHostUntilDone(), status);  // sticky
  EXPECT_TRUE(lt_.matmuls().empty());

  std::unique_ptr<CudaStream> second = NewStream();
  lt_.FailNextMatmul(CUBLAS_STATUS_EXECUTION_FAILED);
  ASSERT_TRUE(handle_->Gemm(*second, config, big.get(), big.get(), big.get()).ok());
  absl::Status failed = second->BlockHostUntilDone();
  EXPECT_EQ(failed.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(failed.message(),
            "gemm failed: cublasLtMatmul: CUBLAS_STATUS_EXECUTION_FAILED: "
            "the fake says no");

  std::unique_ptr<CudaStream> third = NewStream();
  lt_.AnswerNoAlgorithm();
  config.m = 5;  // a plan not in the cache
  ASSERT_TRUE(handle_->Gemm(*third, config, out.get(), big.get(), out.get()).ok());
  absl::Status none = third->BlockHostUntilDone();
  EXPECT_EQ(none.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(none.message(), HasSubstr("no cuBLASLt algorithm for the gemm"));
  EXPECT_THAT(none.message(), HasSubstr("XLA_CUBLASLT_LIBRARY"));
  EXPECT_EQ(lt_.live_descriptors(), 0);  // destroyed on the error paths too
}

// The executor prefers cuBLASLt: Stream::Gemm runs through it.
TEST_F(CublasLtGemmTest, ExecutorUsesCublasLtWhenItLoads) {
  EXPECT_EQ(executor_->blas_backend(), "");
  SetCublasLtApiForTesting(&lt_.api());
  ASSERT_TRUE(executor_->InitializeBlas().ok());
  ASSERT_TRUE(executor_->InitializeBlas().ok());
  EXPECT_EQ(executor_->blas_backend(), "cuBLASLt");
  EXPECT_TRUE(executor_->cublaslt_unavailable_reason().ok());
  EXPECT_EQ(lt_.live_handles(), 2);  // the fixture's and the executor's
  SetCublasLtApiForTesting(nullptr);
  CudaGemmConfig config = OddConfig(true, false);
  config.beta = 0.25;
  RunAndCheckWith(config, [&](const DeviceMemoryBase& l, const DeviceMemoryBase& r,
                              const DeviceMemoryBase& o) {
    return static_cast<Stream&>(*stream_).Gemm(config, l, r, o);
  });
  ASSERT_EQ(lt_.matmuls().size(), 1u);
  EXPECT_EQ(lt_.matmuls()[0].c, last_.out);
}

TEST_F(CublasLtGemmTest, ExecutorFallsBackToClassicCublas) {
  // Only a classic table injected: the executor uses it.
  FakeCublas cublas(driver_.api());
  SetCublasApiForTesting(&cublas.api());
  ASSERT_TRUE(executor_->InitializeBlas().ok());
  SetCublasApiForTesting(nullptr);
  EXPECT_EQ(executor_->blas_backend(), "cuBLAS");
  EXPECT_THAT(executor_->cublaslt_unavailable_reason().message(),
              HasSubstr("no cuBLASLt one"));
  CudaGemmConfig config = OddConfig(false, true);
  RunAndCheckWith(config, [&](const DeviceMemoryBase& l, const DeviceMemoryBase& r,
                              const DeviceMemoryBase& o) {
    return static_cast<Stream&>(*stream_).Gemm(config, l, r, o);
  });
  EXPECT_EQ(cublas.recorded().size(), 1u);
  EXPECT_TRUE(lt_.matmuls().empty());
  // The executor's cuBLAS handle goes before the fake it was made by.
  stream_.reset();
  handle_.reset();
  platform_.reset();
  EXPECT_EQ(cublas.live_handles(), 0);
}

TEST_F(CublasLtGemmTest, ExecutorFallsBackWhenCublasLtHasNoHandle) {
  FakeCublas cublas(driver_.api());
  lt_.FailCreate(CUBLAS_STATUS_NOT_INITIALIZED);
  SetCublasLtApiForTesting(&lt_.api());
  SetCublasApiForTesting(&cublas.api());
  ASSERT_TRUE(executor_->InitializeBlas().ok());
  SetCublasApiForTesting(nullptr);
  EXPECT_EQ(executor_->blas_backend(), "cuBLAS");
  EXPECT_EQ(executor_->cublaslt_unavailable_reason().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(executor_->cublaslt_unavailable_reason().message(),
              HasSubstr("cuBLASLt loaded but cannot create a handle: "
                        "cublasLtCreate: CUBLAS_STATUS_OTHER"));
  EXPECT_EQ(cublas.live_handles(), 1);
  EXPECT_EQ(lt_.live_handles(), 1);  // only the fixture's
  stream_.reset();
  handle_.reset();
  platform_.reset();
  EXPECT_EQ(cublas.live_handles(), 0);
}

TEST_F(CublasLtGemmTest, NeitherLibraryIsAnErrorNamingBoth) {
  // XLA_CUBLAS_LIBRARY and XLA_CUBLASLT_LIBRARY point nowhere (see BUILD).
  absl::Status status = executor_->InitializeBlas();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(),
              HasSubstr("cuBLAS not found: cannot dlopen /nonexistent/libcublas.so"));
  EXPECT_THAT(status.message(),
              HasSubstr("cuBLASLt was not used either: cuBLASLt not found: "
                        "cannot dlopen /nonexistent/libcublasLt.so"));
  EXPECT_EQ(executor_->blas_backend(), "");
  EXPECT_EQ(executor_->InitializeBlas(), status);  // kept
}

}  // namespace
}  // namespace stream_executor::cuda

namespace stream_executor::cuda {
namespace {

// ---- FP8 GEMMs (issue 25) ----

// m=16, n=48, k=32 in the TN form (lhs [m,k], rhs [n,k] row-major),
// f8e4m3fn x f8e5m2 -> `out`, batch 2 with padded strides.
CudaGemmConfig Fp8Config(BlasElementType out) {
  CudaGemmConfig config;
  config.element_type = out;
  config.lhs_type = BlasElementType::kF8E4M3FN;
  config.rhs_type = BlasElementType::kF8E5M2;
  config.m = 16;
  config.n = 48;
  config.k = 32;
  config.transpose_rhs = true;
  config.batch_size = 2;
  config.lhs_batch_stride = 16 * 32 + 32;
  config.rhs_batch_stride = 48 * 32 + 16;
  config.output_batch_stride = 16 * 48 + 16;
  return config;
}

TEST(CublasLtMappingTest, Fp8PlanKeepsOperandTypesAndComputesInF32) {
  absl::StatusOr<CublasLtGemmPlan> plan =
      MapRowMajorGemmToCublasLt(Fp8Config(BlasElementType::kBF16));
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(static_cast<int>(CUDA_R_8F_E4M3), 28);  // the values cuBLASLt documents
  EXPECT_EQ(static_cast<int>(CUDA_R_8F_E5M2), 29);
  EXPECT_EQ(plan->a.type, CUDA_R_8F_E5M2);  // A is rhs
  EXPECT_EQ(plan->b.type, CUDA_R_8F_E4M3);  // B is lhs
  EXPECT_EQ(plan->c.type, CUDA_R_16BF);
  EXPECT_EQ(plan->transa, CUBLAS_OP_T);  // TN
  EXPECT_EQ(plan->transb, CUBLAS_OP_N);
  EXPECT_EQ(plan->compute_type, CUBLAS_COMPUTE_32F);
  EXPECT_EQ(plan->scale_type, CUDA_R_32F);
  // rhs [48,32] row-major = 32x48 column-major, op T -> 48x32.
  ExpectLayout(plan->a, 32, 48, 32, 2, 48 * 32 + 16);
  ExpectLayout(plan->b, 32, 16, 32, 2, 16 * 32 + 32);
  ExpectLayout(plan->c, 48, 16, 48, 2, 16 * 48 + 16);
}

TEST(CublasLtMappingTest, Fp8RulesAreCheckedBeforeTheLibrary) {
  struct Case {
    const char* what;
    void (*change)(CudaGemmConfig&);
    const char* message;
  };
  const Case cases[] = {
      {"non-TN", [](CudaGemmConfig& c) { c.transpose_rhs = false; }, "TN form"},
      {"lhs transposed", [](CudaGemmConfig& c) { c.transpose_lhs = true; }, "TN form"},
      {"m", [](CudaGemmConfig& c) { c.m = 17; }, "multiples of 16"},
      {"k", [](CudaGemmConfig& c) { c.k = 40; }, "multiples of 16"},
      {"e5m2 pair", [](CudaGemmConfig& c) { c.lhs_type = BlasElementType::kF8E5M2; },
       "f8e5m2 x f8e5m2"},
      {"f64 out", [](CudaGemmConfig& c) { c.element_type = BlasElementType::kF64; },
       "f16, bf16 or f32"},
      {"one fp8", [](CudaGemmConfig& c) { c.lhs_type.reset(); }, "both operands"},
  };
  for (const Case& test : cases) {
    SCOPED_TRACE(test.what);
    CudaGemmConfig config = Fp8Config(BlasElementType::kF32);
    test.change(config);
    absl::Status status = CheckBlasFp8Gemm(config);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(status.message(), HasSubstr(test.message));
  }
  EXPECT_TRUE(CheckBlasFp8Gemm(Fp8Config(BlasElementType::kF16)).ok());
}

// Exactly representable values near the formats' limits, with signs.
constexpr double kE4m3Values[] = {448, -448, 0.001953125, -0.013671875, 1.125, -240,
                                  3.5, 0.0625, -18, 96, -0.5, 2.75, 13, -6.5};
constexpr double kE5m2Values[] = {57344, -0.25, 0.0000152587890625,
                                  -3, 0.75, 10240, -1.25, 0.375, 6, -28, 2, -0.09375};

template <size_t N>
std::vector<uint8_t> Fp8Bytes(xla::FloatFormatId format, const double (&values)[N],
                              int64_t size, int64_t salt, std::vector<double>* exact) {
  std::vector<uint8_t> bytes(size);
  exact->resize(size);
  for (int64_t i = 0; i < size; ++i) {
    const double v = values[(i * 5 + salt) % N];
    EXPECT_EQ(xla::RoundToFormat(format, v), v) << "not exact in the format: " << v;
    bytes[i] = static_cast<uint8_t>(xla::EncodeFloat(format, v));
    (*exact)[i] = v;
  }
  return bytes;
}

class CublasLtFp8GemmTest : public CublasLtGemmTest {
 protected:
  OwningDeviceMemory UploadBytes(const void* data, size_t bytes) {
    absl::StatusOr<OwningDeviceMemory> memory = OwningDeviceMemory::Allocate(executor_, bytes);
    EXPECT_TRUE(memory.ok());
    EXPECT_TRUE(stream_->Memcpy(memory->ptr(), data, bytes).ok());
    EXPECT_TRUE(stream_->BlockHostUntilDone().ok());
    return std::move(memory).value();
  }
};

// f8e4m3fn x f8e5m2 with scales 0.5 (lhs) and 3 (rhs), f32 and bf16
// outputs, against a double-precision row-major reference on the exact
// values (the fake decodes the bytes with float_format).
TEST_F(CublasLtFp8GemmTest, ScaledBatchedGemmMatchesAHandComputedReference) {
  for (BlasElementType out_type : {BlasElementType::kF32, BlasElementType::kBF16}) {
    SCOPED_TRACE(static_cast<int>(out_type));
    CudaGemmConfig config = Fp8Config(out_type);
    const int64_t lhs_size = config.lhs_batch_stride + config.m * config.k;
    const int64_t rhs_size = config.rhs_batch_stride + config.n * config.k;
    const int64_t out_size = config.output_batch_stride + config.m * config.n;
    std::vector<double> lhs, rhs;
    const std::vector<uint8_t> lhs_bytes =
        Fp8Bytes(xla::FloatFormatId::kF8E4M3FN, kE4m3Values, lhs_size, 1, &lhs);
    const std::vector<uint8_t> rhs_bytes =
        Fp8Bytes(xla::FloatFormatId::kF8E5M2, kE5m2Values, rhs_size, 3, &rhs);
    const float scales[2] = {0.5f, 3.0f};
    OwningDeviceMemory lhs_d = UploadBytes(lhs_bytes.data(), lhs_bytes.size());
    OwningDeviceMemory rhs_d = UploadBytes(rhs_bytes.data(), rhs_bytes.size());
    OwningDeviceMemory lhs_scale = UploadBytes(&scales[0], 4);
    OwningDeviceMemory rhs_scale = UploadBytes(&scales[1], 4);
    const int64_t width = out_type == BlasElementType::kF32 ? 4 : 2;
    const std::vector<uint8_t> zeros(out_size * width, 0);
    OwningDeviceMemory out_d = UploadBytes(zeros.data(), zeros.size());
    config.lhs_scale = lhs_scale.get();
    config.rhs_scale = rhs_scale.get();
    ASSERT_TRUE(handle_->Gemm(*stream_, config, lhs_d.get(), rhs_d.get(), out_d.get()).ok());
    std::vector<uint8_t> out(zeros.size());
    ASSERT_TRUE(stream_->Memcpy(out.data(), out_d.get(), out.size()).ok());
    ASSERT_TRUE(stream_->BlockHostUntilDone().ok());
    const FakeCublasLtMatmul call = lt_.matmuls().back();
    EXPECT_EQ(call.a_scale, rhs_scale.get().opaque);  // A is rhs
    EXPECT_EQ(call.b_scale, lhs_scale.get().opaque);
    int nonzero = 0;
    for (int64_t b = 0; b < 2; ++b) {
      for (int64_t i = 0; i < config.m; ++i) {
        for (int64_t j = 0; j < config.n; ++j) {
          double sum = 0;
          for (int64_t l = 0; l < config.k; ++l) {
            sum += lhs[b * config.lhs_batch_stride + i * config.k + l] *
                   rhs[b * config.rhs_batch_stride + j * config.k + l];
          }
          const double expected = 1.5 * sum;
          const int64_t at = b * config.output_batch_stride + i * config.n + j;
          double got = 0;
          if (width == 4) {
            float f;
            std::memcpy(&f, &out[at * 4], 4);
            got = f;
          } else {
            uint16_t h;
            std::memcpy(&h, &out[at * 2], 2);
            got = xla::DecodeFloat(xla::FloatFormatId::kBF16, h);
          }
          const double tolerance = (width == 4 ? 1e-5 : 1.0 / 128) * (1 + std::abs(expected));
          EXPECT_NEAR(got, expected, tolerance) << b << "," << i << "," << j;
          nonzero += got != 0;
        }
      }
    }
    EXPECT_GT(nonzero, 1000);
  }
}

TEST_F(CublasLtFp8GemmTest, NonTnFp8IsRefusedAtEnqueue) {
  CudaGemmConfig config = Fp8Config(BlasElementType::kF32);
  config.transpose_rhs = false;
  const std::vector<uint8_t> bytes(64 * 1024, 0x38);
  OwningDeviceMemory big = UploadBytes(bytes.data(), bytes.size());
  OwningDeviceMemory out = UploadBytes(bytes.data(), bytes.size());
  absl::Status status = handle_->Gemm(*stream_, config, big.get(), big.get(), out.get());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("TN form"));
  EXPECT_TRUE(lt_.matmuls().empty());
}

// The fake answers CUBLAS_STATUS_NOT_SUPPORTED, like cuBLASLt, for an fp8
// plan that is not TN or not 16-aligned.
TEST(FakeCublasLtFp8Test, RefusesNonTnAndMisalignedFp8) {
  FakeCudaDriver driver;
  FakeCublasLt fake(driver.api());
  const CublasLtApi& lt = fake.api();
  cublasLtHandle_t handle = nullptr;
  ASSERT_EQ(lt.cublasLtCreate(&handle), CUBLAS_STATUS_SUCCESS);
  auto heuristic = [&](int32_t transa, uint64_t k, uint32_t alignment) {
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t a, b, c;
    cublasLtMatmulPreference_t pref;
    EXPECT_EQ(lt.cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F),
              CUBLAS_STATUS_SUCCESS);
    EXPECT_EQ(lt.cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &transa,
                                                sizeof(transa)),
              CUBLAS_STATUS_SUCCESS);
    const bool t = transa == CUBLAS_OP_T;
    // op(A) is 32 x k; B is k x 16; C is 32 x 16.
    lt.cublasLtMatrixLayoutCreate(&a, CUDA_R_8F_E4M3, t ? k : 32, t ? 32 : k, t ? k : 32);
    lt.cublasLtMatrixLayoutCreate(&b, CUDA_R_8F_E4M3, k, 16, k);
    lt.cublasLtMatrixLayoutCreate(&c, CUDA_R_32F, 32, 16, 32);
    lt.cublasLtMatmulPreferenceCreate(&pref);
    for (int attr = 0; attr < 4; ++attr) {
      lt.cublasLtMatmulPreferenceSetAttribute(
          pref,
          static_cast<cublasLtMatmulPreferenceAttributes_t>(
              CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES + attr),
          &alignment, sizeof(alignment));
    }
    cublasLtMatmulHeuristicResult_t result = {};
    int returned = 0;
    const cublasStatus_t status =
        lt.cublasLtMatmulAlgoGetHeuristic(handle, desc, a, b, c, c, pref, 1, &result, &returned);
    lt.cublasLtMatmulPreferenceDestroy(pref);
    lt.cublasLtMatrixLayoutDestroy(a);
    lt.cublasLtMatrixLayoutDestroy(b);
    lt.cublasLtMatrixLayoutDestroy(c);
    lt.cublasLtMatmulDescDestroy(desc);
    return status;
  };
  EXPECT_EQ(heuristic(CUBLAS_OP_T, 32, 256), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(heuristic(CUBLAS_OP_N, 32, 256), CUBLAS_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(heuristic(CUBLAS_OP_T, 24, 256), CUBLAS_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(heuristic(CUBLAS_OP_T, 32, 8), CUBLAS_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(lt.cublasLtDestroy(handle), CUBLAS_STATUS_SUCCESS);
}

}  // namespace
}  // namespace stream_executor::cuda
