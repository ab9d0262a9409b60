#include "xla/backends/gpu/compiler/target_runtime.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace xla::gpu {
namespace {

GpuExecutableProto ArtifactWithCubinAndPtx() {
  GpuExecutableProto a;
  CubinWithPtxKernelSpecProto* both = a.mutable_payload()->add_kernels()->mutable_cubin_with_ptx();
  both->set_cubin("ELF...");
  both->set_ptx(".version 7.8");
  both->set_entry("fusion_1");
  a.mutable_payload()->add_thunks()->mutable_custom_call();
  return a;
}

TEST(TargetRuntime, ThisBuildKeepsTheNewFormAndListsItsFeatures) {
  GpuExecutableProto a = ArtifactWithCubinAndPtx();
  ASSERT_TRUE(FinalizeRuntimeFeatures("", &a).ok());
  EXPECT_TRUE(a.payload().kernels(0).has_cubin_with_ptx());
  ASSERT_EQ(a.header().required_runtime_features_size(), 2);
  EXPECT_EQ(a.header().required_runtime_features(0), "custom_calls");
  EXPECT_EQ(a.header().required_runtime_features(1), "kernel_spec.cubin_with_ptx");
}

TEST(TargetRuntime, OlderRuntimeGetsTheLegacyForm) {
  GpuExecutableProto a = ArtifactWithCubinAndPtx();
  // A runtime from before cubin_with_ptx (simulated: the first format's
  // features are dated the same day, so use a table-independent check on
  // the lowering by targeting a date before every feature).
  absl::Status s = FinalizeRuntimeFeatures("2026-11-28", &a);
  // custom_calls has no legacy form: refused, naming it and the dates.
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(s.message(), "custom_calls")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "2026-11-28")) << s;
  // Without the custom call, the kernel is lowered to a plain cubin.
  GpuExecutableProto b = ArtifactWithCubinAndPtx();
  b.mutable_payload()->clear_thunks();
  ASSERT_TRUE(FinalizeRuntimeFeatures("2026-11-28", &b).ok());
  ASSERT_TRUE(b.payload().kernels(0).has_cubin());
  EXPECT_EQ(b.payload().kernels(0).cubin().cubin(), "ELF...");
  EXPECT_EQ(b.payload().kernels(0).cubin().entry(), "fusion_1");
  EXPECT_EQ(b.header().required_runtime_features_size(), 0);
}

// A CRC-32C checksum is listed as a feature for today's runtimes and falls
// back to FNV-1a for runtimes from before its support (2026-11-30).
TEST(TargetRuntime, Crc32cChecksumIsListedOrLoweredToFnv) {
  GpuExecutableProto a;
  a.mutable_header()->set_checksum_algorithm(CHECKSUM_ALGORITHM_CRC32C);
  ASSERT_TRUE(FinalizeRuntimeFeatures("2026-11-30", &a).ok());
  EXPECT_EQ(a.header().checksum_algorithm(), CHECKSUM_ALGORITHM_CRC32C);
  ASSERT_EQ(a.header().required_runtime_features_size(), 1);
  EXPECT_EQ(a.header().required_runtime_features(0), "payload_checksum.crc32c");
  GpuExecutableProto b;
  b.mutable_header()->set_checksum_algorithm(CHECKSUM_ALGORITHM_CRC32C);
  ASSERT_TRUE(FinalizeRuntimeFeatures("2026-11-29", &b).ok());
  EXPECT_EQ(b.header().checksum_algorithm(), CHECKSUM_ALGORITHM_FNV1A_64);
  EXPECT_EQ(b.header().required_runtime_features_size(), 0);
}

TEST(TargetRuntime, MalformedDateIsAnError) {
  GpuExecutableProto a = ArtifactWithCubinAndPtx();
  absl::Status s = FinalizeRuntimeFeatures("last tuesday", &a);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
}

TEST(TargetRuntime, CollectivesAreListedAndRefusedForOlderRuntimes) {
  GpuExecutableProto a;
  ThunkProto* seq = a.mutable_payload()->add_thunks();
  seq->mutable_sequential()->add_thunks()->mutable_collective()->set_op(COLLECTIVE_OP_REPLICA_ID);
  ASSERT_TRUE(FinalizeRuntimeFeatures("", &a).ok());
  ASSERT_EQ(a.header().required_runtime_features_size(), 1);
  EXPECT_EQ(a.header().required_runtime_features(0), "collectives");
  // A runtime built the day before collectives landed cannot read them and
  // there is no legacy form.
  absl::Status s = FinalizeRuntimeFeatures("2026-11-29", &a);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(s.message(), "`collectives` (ThunkProto.collective)")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "since 2026-11-30")) << s;
  EXPECT_TRUE(FinalizeRuntimeFeatures("2026-11-30", &a).ok());
}

}  // namespace
}  // namespace xla::gpu
