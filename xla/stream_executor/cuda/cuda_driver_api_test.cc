// The driver loader and error translation: what a machine without a driver
// sees (this test runs with XLA_CUDA_DRIVER_LIBRARY pointing nowhere), what
// a library without the entry points gives, and the message of a failed
// driver call (through the fake driver's error strings).
#include "xla/stream_executor/cuda/cuda_driver_api.h"

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "xla/stream_executor/cuda/fake_cuda_driver.h"
#include "xla/stream_executor/platform_registry.h"

namespace stream_executor::cuda {
namespace {

using ::testing::HasSubstr;

TEST(CudaDriverApiTest, MissingDriverIsAClearError) {
  absl::StatusOr<const CudaDriverApi*> api = LoadCudaDriverApi();
  ASSERT_FALSE(api.ok());
  EXPECT_EQ(api.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(api.status().message(), HasSubstr("no NVIDIA driver"));
  EXPECT_THAT(api.status().message(),
              HasSubstr("cannot dlopen /nonexistent/libcuda.so.1"));
  EXPECT_THAT(api.status().message(), HasSubstr("--target=host"));
  // Same answer the second time (loaded once).
  EXPECT_EQ(LoadCudaDriverApi().status(), api.status());

  absl::StatusOr<const CudaDriverApi*> for_artifact =
      LoadCudaDriverApiForArtifact("sm_90");
  ASSERT_FALSE(for_artifact.ok());
  EXPECT_THAT(for_artifact.status().message(),
              HasSubstr("this artifact was compiled for sm_90"));
  EXPECT_THAT(for_artifact.status().message(), HasSubstr("--target=host"));
}

TEST(CudaDriverApiTest, PlatformWithoutDriverHasNoDevicesAndSaysWhy) {
  absl::StatusOr<Platform*> platform = PlatformRegistry::GetPlatform("cuda");
  ASSERT_TRUE(platform.ok()) << platform.status();
  EXPECT_EQ((*platform)->name(), "cuda");
  EXPECT_EQ((*platform)->device_count(), 0);
  absl::StatusOr<StreamExecutor*> device = (*platform)->GetDevice(0);
  ASSERT_FALSE(device.ok());
  EXPECT_THAT(device.status().message(), HasSubstr("libcuda.so.1"));
  EXPECT_THAT(device.status().message(), HasSubstr("--target=host"));
}

TEST(CudaDriverApiTest, LibraryWithoutEntryPointsNamesTheSymbol) {
  // libm is everywhere and has no driver symbols.
  absl::StatusOr<CudaDriverApi> api = OpenCudaDriverLibrary("libm.so.6");
  ASSERT_FALSE(api.ok());
  EXPECT_EQ(api.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(api.status().message(), HasSubstr("libm.so.6"));
  EXPECT_THAT(api.status().message(), HasSubstr("'cuGetErrorName'"));
}

TEST(CudaDriverApiTest, TestingOverrideReplacesTheLoader) {
  FakeCudaDriver driver;
  SetCudaDriverApiForTesting(&driver.api());
  absl::StatusOr<const CudaDriverApi*> api = LoadCudaDriverApi();
  ASSERT_TRUE(api.ok()) << api.status();
  EXPECT_EQ(*api, &driver.api());
  SetCudaDriverApiForTesting(nullptr);
  EXPECT_FALSE(LoadCudaDriverApi().ok());
}

TEST(CudaDriverApiTest, FailedCallNamesCallErrorNameAndDescription) {
  FakeCudaDriver driver;
  const CudaDriverApi& api = driver.api();
  EXPECT_TRUE(CudaStatus(api, "cuInit", CUDA_SUCCESS).ok());

  absl::Status status =
      CudaStatus(api, "cuMemAlloc_v2", CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(status.message(),
            "cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY: out of memory");

  EXPECT_EQ(CudaStatus(api, "x", CUDA_ERROR_INVALID_VALUE).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CudaStatus(api, "x", CUDA_ERROR_NOT_FOUND).code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(CudaStatus(api, "x", CUDA_ERROR_ILLEGAL_ADDRESS).code(),
            absl::StatusCode::kInternal);
  // A value the driver has no name for still gives a usable message.
  absl::Status unknown = CudaStatus(api, "cuInit", static_cast<CUresult>(4242));
  EXPECT_EQ(unknown.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(unknown.message(), HasSubstr("cuInit: CUresult 4242"));
}

// The macro: returns the translated error from the enclosing function, with
// the stringified entry point name.
absl::Status InitTwice(const CudaDriverApi& api) {
  CU_RETURN_IF_ERROR(api, cuInit, 0);
  CU_RETURN_IF_ERROR(api, cuInit, 0);
  return absl::OkStatus();
}

TEST(CudaDriverApiTest, MacroReturnsTheFirstFailure) {
  FakeCudaDriver driver;
  EXPECT_TRUE(InitTwice(driver.api()).ok());
  EXPECT_EQ(driver.calls("cuInit"), 2);
  driver.InjectError("cuInit", CUDA_ERROR_NO_DEVICE);
  absl::Status status = InitTwice(driver.api());
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(),
            "cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected");
  EXPECT_EQ(driver.calls("cuInit"), 3);  // returned after the first
}

// The graph entry points are optional: a table has all of them or graphs
// are off, and the first missing one is named.
TEST(CudaDriverApiTest, GraphEntryPointsAreOptionalAndTheFirstMissingIsNamed) {
  {
    FakeCudaDriver driver;
    EXPECT_TRUE(HasCudaGraphApi(driver.api()));
    EXPECT_EQ(MissingCudaGraphEntryPoint(driver.api()), "");
    CudaDriverApi partial = driver.api();
    partial.cuGraphLaunch = nullptr;
    EXPECT_FALSE(HasCudaGraphApi(partial));
    EXPECT_EQ(MissingCudaGraphEntryPoint(partial), "cuGraphLaunch");
  }
  FakeCudaDriver::Options old;
  old.graph_api = false;
  FakeCudaDriver driver(old);
  EXPECT_FALSE(HasCudaGraphApi(driver.api()));
  EXPECT_EQ(MissingCudaGraphEntryPoint(driver.api()), "cuGraphCreate");
}

}  // namespace
}  // namespace stream_executor::cuda
