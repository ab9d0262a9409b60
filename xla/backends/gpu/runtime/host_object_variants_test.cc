// Validation of host_object_variants and the choice of build per CPU.
#include "xla/backends/gpu/runtime/host_object_variants.h"

#include <set>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace xla::gpu {
namespace {

Target Host() {
  absl::StatusOr<Target> t = ParseTarget("host");
  EXPECT_TRUE(t.ok());
  return *t;
}

GpuExecutablePayloadProto WithBuilds(std::initializer_list<std::initializer_list<const char*>> builds) {
  GpuExecutablePayloadProto p;
  p.set_host_shared_object("baseline");
  for (const auto& features : builds) {
    HostObjectVariantProto* v = p.add_host_object_variants();
    v->set_shared_object("wider");
    for (const char* f : features) v->add_cpu_features(f);
  }
  return p;
}

TEST(ChooseHostObjectVariant, TheFirstBuildTheCpuRunsWins) {
  const GpuExecutablePayloadProto p = WithBuilds({{"sse4.2", "avx2", "avx512f"}, {"sse4.2", "avx2", "fma"}});
  EXPECT_EQ(ChooseHostObjectVariant(p, {"sse4.2", "avx2", "fma", "avx512f"}), 0);
  EXPECT_EQ(ChooseHostObjectVariant(p, {"sse4.2", "avx2", "fma"}), 1);
  EXPECT_EQ(ChooseHostObjectVariant(p, {"sse4.2", "avx2"}), -1);
  EXPECT_EQ(ChooseHostObjectVariant(p, {}), -1);
  EXPECT_EQ(ChooseHostObjectVariant(WithBuilds({}), {"avx2"}), -1);
}

TEST(ChooseHostObjectVariant, ABuildNamingAnUnknownExtensionIsNeverPicked) {
  // This runtime cannot tell whether the CPU has it, so the build might
  // not run here; the next one (or the baseline) is safe.
  const GpuExecutablePayloadProto p = WithBuilds({{"avx2", "avx10.2-512"}, {"avx2"}});
  EXPECT_EQ(ChooseHostObjectVariant(p, {"avx2", "avx10.2-512"}), 1);
}

TEST(ValidateHostObjectVariants, ChecksTargetBaselineBytesAndNames) {
  EXPECT_TRUE(ValidateHostObjectVariants(WithBuilds({{"avx2"}}), Host(), "baseline").ok());
  EXPECT_TRUE(ValidateHostObjectVariants(WithBuilds({}), Host(), "").ok());

  absl::Status no_base = ValidateHostObjectVariants(WithBuilds({{"avx2"}}), Host(), "");
  EXPECT_TRUE(absl::StrContains(no_base.message(), "without the baseline host_shared_object")) << no_base;

  absl::StatusOr<Target> sm90 = ParseTarget("sm_90");
  ASSERT_TRUE(sm90.ok());
  absl::Status on_gpu = ValidateHostObjectVariants(WithBuilds({{"avx2"}}), *sm90, "baseline");
  EXPECT_TRUE(absl::StrContains(on_gpu.message(), "target sm_90 has no host kernels")) << on_gpu;

  GpuExecutablePayloadProto empty = WithBuilds({{"avx2"}, {"fma"}});
  empty.mutable_host_object_variants(1)->clear_shared_object();
  absl::Status e = ValidateHostObjectVariants(empty, Host(), "baseline");
  EXPECT_EQ(e.message(), "host_object_variants[1].shared_object: is empty");

  absl::Status bad = ValidateHostObjectVariants(WithBuilds({{"avx2", "AVX 2"}}), Host(), "baseline");
  EXPECT_TRUE(absl::StrContains(bad.message(),
                                "host_object_variants[0].cpu_features[1]: 'AVX 2' is not a CPU feature name"))
      << bad;
}

}  // namespace
}  // namespace xla::gpu
