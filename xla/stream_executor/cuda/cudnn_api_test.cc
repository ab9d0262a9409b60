// cuDNN loading: the real libcudnn.so.9 of this machine (no GPU needed:
// only cudnnGetVersion and cudnnGetErrorString, which need no device, are
// called) and error translation.
#include "xla/stream_executor/cuda/cudnn_api.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace stream_executor::cuda {
namespace {

using ::testing::HasSubstr;

// Fails (never skips) when the library is absent: this machine is expected
// to have the CUDA toolkit with cuDNN 9 (/usr/local/cuda/lib).
TEST(CudnnApiTest, RealLibraryResolvesEveryEntryPoint) {
  absl::StatusOr<const CudnnApi*> loaded = LoadCudnnApi();
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const CudnnApi& api = **loaded;
  int resolved = 0;
#define XLA_CUDNN_CHECK(name)        \
  EXPECT_NE(api.name, nullptr) << #name; \
  resolved += api.name != nullptr;
  XLA_CUDNN_API(XLA_CUDNN_CHECK)
#undef XLA_CUDNN_CHECK
  EXPECT_EQ(resolved, 29);
  EXPECT_GE(api.cudnnGetVersion(), 90000u);
  EXPECT_LT(api.cudnnGetVersion(), 100000u);
}

TEST(CudnnApiTest, StatusCarriesTheCallAndTheLibrarysText) {
  absl::StatusOr<const CudnnApi*> loaded = LoadCudnnApi();
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(CudnnStatus(**loaded, "cudnnCreate", CUDNN_STATUS_SUCCESS).ok());
  const absl::Status bad = CudnnStatus(**loaded, "cudnnConvolutionForward", CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.message(), HasSubstr("cudnnConvolutionForward: CUDNN_STATUS_BAD_PARAM"));
  CudnnApi empty;
  EXPECT_THAT(CudnnStatus(empty, "x", CUDNN_STATUS_NOT_SUPPORTED).message(),
              HasSubstr("cudnnStatus_t 3000"));
}

}  // namespace
}  // namespace stream_executor::cuda
