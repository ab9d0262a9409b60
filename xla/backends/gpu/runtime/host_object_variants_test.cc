// Validation of host_object_variants and the choice of build per CPU.
#include "xla/backends/gpu/runtime/host_object_variants.h"

#include <set>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/stream_executor/host/test_kernel_files.h"

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

// The builds `xla_aot compile` stores by default (x86-64-v4, then
// x86-64-v3, with the extensions LLVM enables for them), chosen for CPUs
// described by their CPUID extensions: the psABI levels.
TEST(ChooseHostObjectVariant, V4OnAvx512CpusV3OnAvx2CpusElseTheBaseline) {
  const GpuExecutablePayloadProto p = WithBuilds(
      {{"sse3", "ssse3", "fma", "cx16", "sse4.1", "sse4.2", "movbe", "popcnt", "xsave", "avx",
        "f16c", "bmi", "avx2", "bmi2", "avx512f", "avx512dq", "avx512cd", "avx512bw", "avx512vl",
        "sahf", "lzcnt"},
       {"sse3", "ssse3", "fma", "cx16", "sse4.1", "sse4.2", "movbe", "popcnt", "xsave", "avx",
        "f16c", "bmi", "avx2", "bmi2", "sahf", "lzcnt"}});
  const std::set<std::string> v2 = {"sse3", "ssse3", "cx16", "sse4.1", "sse4.2", "popcnt", "sahf"};
  std::set<std::string> v3 = v2;
  v3.insert({"fma", "movbe", "xsave", "avx", "f16c", "bmi", "avx2", "bmi2", "lzcnt"});
  std::set<std::string> v4 = v3;
  v4.insert({"avx512f", "avx512dq", "avx512cd", "avx512bw", "avx512vl"});
  std::set<std::string> sapphire_rapids = v4;
  sapphire_rapids.insert({"avx512bf16", "avx512fp16", "amx-tile", "amx-bf16"});
  EXPECT_EQ(ChooseHostObjectVariant(p, sapphire_rapids), 0);
  EXPECT_EQ(ChooseHostObjectVariant(p, v4), 0);
  EXPECT_EQ(ChooseHostObjectVariant(p, v3), 1);
  // Knights Landing: AVX-512 F/CD but not BW/DQ/VL, so not x86-64-v4.
  std::set<std::string> knl = v3;
  knl.insert({"avx512f", "avx512cd"});
  EXPECT_EQ(ChooseHostObjectVariant(p, knl), 1);
  // A CPU without AVX (or whose OS does not save the AVX registers, which
  // detection reports as no AVX) runs the baseline.
  EXPECT_EQ(ChooseHostObjectVariant(p, v2), -1);
  std::set<std::string> no_fma = v3;
  no_fma.erase("fma");
  EXPECT_EQ(ChooseHostObjectVariant(p, no_fma), -1);
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

// A payload naming add_f32, with the test kernels exporting it as baseline
// and as the one variant.
GpuExecutablePayloadProto WithTestKernels() {
  GpuExecutablePayloadProto p;
  KernelProto* k = p.add_kernels();
  k->set_name("add");
  k->set_host_symbol("add_f32");
  p.set_host_shared_object(testing::TestKernelsExporting({"add_f32"}));
  HostObjectVariantProto* v = p.add_host_object_variants();
  v->set_shared_object(p.host_shared_object());
  v->add_cpu_features("avx2");
  return p;
}

TEST(CheckHostObjects, ChecksTheBaselineAndEveryVariantAgainstTheKernelTable) {
  const GpuExecutablePayloadProto p = WithTestKernels();
  EXPECT_TRUE(CheckHostObjects(p, p.host_shared_object()).ok()) << CheckHostObjects(p, p.host_shared_object());
  EXPECT_EQ(HostKernelSymbols(p), (std::set<std::string, std::less<>>{"add_f32"}));
  const std::vector<HostObjectField> objects = HostObjectsOf(p, p.host_shared_object());
  ASSERT_EQ(objects.size(), 2u);
  EXPECT_EQ(objects[0].field, "payload.host_shared_object");
  EXPECT_EQ(objects[1].field, "payload.host_object_variants[0].shared_object");

  // Every test kernel exported, only add_f32 in the table.
  const absl::Status extra = CheckHostObjects(p, testing::TestKernels());
  EXPECT_TRUE(absl::StartsWith(extra.message(), "payload.host_shared_object: exports '")) << extra;
  EXPECT_TRUE(absl::StrContains(extra.message(), "which is not a kernel of its artifact")) << extra;

  absl::StatusOr<std::string> constructor =
      stream_executor::host::ReadTestKernelFile("testdata/constructor.so");
  ASSERT_TRUE(constructor.ok()) << constructor.status();
  GpuExecutablePayloadProto variant = p;
  variant.mutable_host_object_variants(0)->set_shared_object(*constructor);
  const absl::Status refused = CheckHostObjects(variant, variant.host_shared_object());
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(refused.message(),
                               "payload.host_object_variants[0].shared_object: has an initializer (DT_INIT_ARRAY"))
      << refused;

  // No baseline (a GPU artifact): nothing to check.
  GpuExecutablePayloadProto none;
  EXPECT_TRUE(CheckHostObjects(none, "").ok());
}

}  // namespace
}  // namespace xla::gpu
