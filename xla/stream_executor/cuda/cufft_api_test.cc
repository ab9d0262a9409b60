// cuFFT loading: the real libcufft of this machine resolves every entry
// point and reports its version (a host-only call: no GPU needed).
#include "xla/stream_executor/cuda/cufft_api.h"

#include "gtest/gtest.h"

namespace stream_executor::cuda {
namespace {

// Fails (never skips) when the library is absent: this machine is expected
// to have the CUDA toolkit (/usr/local/cuda/lib64, known to ldconfig).
TEST(CufftApiTest, RealLibraryResolvesEveryEntryPointAndReportsItsVersion) {
  absl::StatusOr<const CufftApi*> loaded = LoadCufftApi();
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const CufftApi& api = **loaded;
  int resolved = 0;
#define XLA_CUFFT_CHECK(name, type) \
  EXPECT_NE(api.name, nullptr) << #name; \
  resolved += api.name != nullptr;
  XLA_CUFFT_API(XLA_CUFFT_CHECK)
#undef XLA_CUFFT_CHECK
  EXPECT_EQ(resolved, 13);
  int version = 0;
  ASSERT_EQ(api.cufftGetVersion(&version), CUFFT_SUCCESS);
  EXPECT_GE(version, 10000);  // cuFFT 10 (CUDA 11) or newer
}

}  // namespace
}  // namespace stream_executor::cuda
