// Compute capability parsing and the artifact/device/driver compatibility
// rules, against hand-written cases.
#include "xla/stream_executor/cuda/cuda_compatibility.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace stream_executor::cuda {
namespace {

using ::testing::HasSubstr;

TEST(CudaCompatibilityTest, ParsesTheUsualSpellings) {
  struct Case {
    const char* text;
    int major, minor;
    bool arch_specific;
  };
  for (const Case& c : {Case{"sm_90", 9, 0, false}, Case{"sm_90a", 9, 0, true},
                        Case{"sm_86", 8, 6, false}, Case{"compute_75", 7, 5, false},
                        Case{"sm_100", 10, 0, false}, Case{"8.9", 8, 9, false},
                        Case{"12.0", 12, 0, false}, Case{"75", 7, 5, false}}) {
    absl::StatusOr<CudaComputeCapability> cc = ParseCudaComputeCapability(c.text);
    ASSERT_TRUE(cc.ok()) << c.text << ": " << cc.status();
    EXPECT_EQ(cc->major, c.major) << c.text;
    EXPECT_EQ(cc->minor, c.minor) << c.text;
    EXPECT_EQ(cc->arch_specific, c.arch_specific) << c.text;
  }
  for (const char* bad : {"", "sm_", "sm_9", "host", "sm_x0", "9.", ".0"}) {
    absl::StatusOr<CudaComputeCapability> cc = ParseCudaComputeCapability(bad);
    EXPECT_EQ(cc.status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_EQ((CudaComputeCapability{8, 6, false}).ToSmString(), "sm_86");
  EXPECT_EQ((CudaComputeCapability{9, 0, true}).ToSmString(), "sm_90a");
  EXPECT_EQ((CudaComputeCapability{9, 0, false}).ToDotString(), "9.0");
  EXPECT_EQ(CudaVersionToString(12040), "12.4 (12040)");
  EXPECT_EQ(CudaVersionToString(11080), "11.8 (11080)");
}

TEST(CudaCompatibilityTest, ComputeCapabilityRules) {
  const CudaComputeCapability sm86{8, 6, false};
  const CudaComputeCapability sm90{9, 0, false};
  // PTX: any device at least as new.
  EXPECT_TRUE(CheckCudaCompatibility(sm90, 12040, "sm_80", 0, true).ok());
  EXPECT_TRUE(CheckCudaCompatibility(sm86, 12040, "sm_86", 0, true).ok());
  EXPECT_FALSE(CheckCudaCompatibility(sm86, 12040, "sm_90", 0, true).ok());
  // Cubin only: same major, minor at least.
  EXPECT_TRUE(CheckCudaCompatibility(sm86, 12040, "sm_80", 0, false).ok());
  absl::Status cubin = CheckCudaCompatibility(sm90, 12040, "sm_80", 0, false);
  EXPECT_EQ(cubin.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(cubin.message(), HasSubstr("compiled for sm_80"));
  EXPECT_THAT(cubin.message(), HasSubstr("device is sm_90 (compute capability 9.0)"));
  EXPECT_THAT(cubin.message(), HasSubstr("no PTX"));
  // Arch-specific: exactly that device.
  EXPECT_TRUE(CheckCudaCompatibility(sm90, 12040, "sm_90a", 0, true).ok());
  EXPECT_FALSE(
      CheckCudaCompatibility(CudaComputeCapability{10, 0, false}, 12080,
                             "sm_90a", 0, true)
          .ok());
  EXPECT_EQ(CheckCudaCompatibility(sm90, 12040, "gfx90a", 0, true).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(CudaCompatibilityTest, DriverVersionRule) {
  const CudaComputeCapability sm90{9, 0, false};
  EXPECT_TRUE(CheckCudaCompatibility(sm90, 12040, "sm_90", 12040, true).ok());
  EXPECT_TRUE(CheckCudaCompatibility(sm90, 12080, "sm_90", 12040, true).ok());
  absl::Status old = CheckCudaCompatibility(sm90, 12020, "sm_90", 12040, true);
  EXPECT_EQ(old.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(old.message(), HasSubstr("needs CUDA 12.4 (12040)"));
  EXPECT_THAT(old.message(), HasSubstr("supports CUDA 12.2 (12020)"));
  EXPECT_THAT(old.message(), HasSubstr("update the NVIDIA driver"));
}

}  // namespace
}  // namespace stream_executor::cuda
