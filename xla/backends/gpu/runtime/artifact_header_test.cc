// CheckHostCpuFeatures against machines given as feature sets.
#include "xla/backends/gpu/runtime/artifact_header.h"

#include <set>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace xla::gpu {
namespace {

ArtifactHeaderProto HostHeader(std::initializer_list<const char*> features) {
  ArtifactHeaderProto h;
  h.set_format_version(kArtifactFormatVersion);
  h.set_target("host");
  h.set_checksum_algorithm(CHECKSUM_ALGORITHM_FNV1A_64);
  for (const char* f : features) h.add_host_cpu_features(f);
  return h;
}

TEST(CheckHostCpuFeatures, AMachineWithEveryFeaturePasses) {
  const std::set<std::string> machine = {"sse3", "sse4.2", "popcnt", "avx", "avx2", "fma"};
  EXPECT_TRUE(CheckHostCpuFeatures(HostHeader({"sse3", "sse4.2", "popcnt", "avx2", "fma"}), machine).ok());
  EXPECT_TRUE(CheckHostCpuFeatures(HostHeader({}), machine).ok());
  EXPECT_TRUE(CheckHostCpuFeatures(HostHeader({}), {}).ok());
}

TEST(CheckHostCpuFeatures, TheFirstMissingFeatureIsNamedWithTheFix) {
  const std::set<std::string> machine = {"sse3", "sse4.2", "popcnt", "avx"};
  absl::Status s = CheckHostCpuFeatures(HostHeader({"sse3", "avx2", "fma", "avx512f"}), machine);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(s.message(), "use the CPU feature 'avx2', which this machine's CPU lacks"))
      << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "it has: avx, popcnt, sse3, sse4.2")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "--host_cpu")) << s;
}

TEST(CheckHostCpuFeatures, NamesThisRuntimeDoesNotKnowAreNotChecked) {
  // A newer compiler's table may name extensions this runtime cannot
  // detect; refusing them would break the 2-week forward window.
  const std::set<std::string> machine = {"sse3"};
  EXPECT_TRUE(CheckHostCpuFeatures(HostHeader({"sse3", "avx10.2-512", "apx_f"}), machine).ok());
  EXPECT_FALSE(CheckHostCpuFeatures(HostHeader({"avx10.2-512", "sse4a"}), machine).ok());
}

TEST(ValidateHeader, HostCpuFeatureNamesAreCheckedForShapeOnly) {
  EXPECT_TRUE(ValidateHeader(HostHeader({"avx2", "avx10.2-512", "amx_tile"})).ok());
  absl::StatusOr<Target> bad = ValidateHeader(HostHeader({"avx2", "avx\n2"}));
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "header.host_cpu_features[1]: 'avx\\n2'"))
      << bad.status();
}

}  // namespace
}  // namespace xla::gpu
