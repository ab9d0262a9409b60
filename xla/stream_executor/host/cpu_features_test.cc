// The CPU feature table and its detection, checked against GCC's own CPU
// detection (__builtin_cpu_supports, libgcc's CPUID and XGETBV reading) for
// every name GCC knows.
#include "xla/stream_executor/host/cpu_features.h"

#include <set>
#include <string>

#include "gtest/gtest.h"

namespace stream_executor::host {
namespace {

TEST(CpuFeatures, NamesAreUniqueAndKnown) {
  const std::vector<std::string>& known = KnownCpuFeatures();
  EXPECT_EQ(std::set<std::string>(known.begin(), known.end()).size(), known.size());
  // The psABI levels' extensions are all there.
  for (const char* name : {"sse4.2", "popcnt", "avx2", "fma", "bmi2", "avx512f", "avx512vl"}) {
    EXPECT_TRUE(IsKnownCpuFeature(name)) << name;
  }
  EXPECT_FALSE(IsKnownCpuFeature("avx10.1"));
  EXPECT_FALSE(IsKnownCpuFeature(""));
  for (const std::string& f : MachineCpuFeatures()) EXPECT_TRUE(IsKnownCpuFeature(f)) << f;
}

#if defined(__x86_64__)
TEST(CpuFeatures, DetectionAgreesWithGcc) {
  const std::set<std::string>& machine = MachineCpuFeatures();
  // __builtin_cpu_supports needs a literal, hence the macro.
#define XLA_EXPECT_AGREES(name) \
  EXPECT_EQ(machine.count(name) == 1, __builtin_cpu_supports(name) != 0) << name
  XLA_EXPECT_AGREES("sse3");
  XLA_EXPECT_AGREES("ssse3");
  XLA_EXPECT_AGREES("sse4.1");
  XLA_EXPECT_AGREES("sse4.2");
  XLA_EXPECT_AGREES("popcnt");
  XLA_EXPECT_AGREES("avx");
  XLA_EXPECT_AGREES("avx2");
  XLA_EXPECT_AGREES("fma");
  XLA_EXPECT_AGREES("bmi");
  XLA_EXPECT_AGREES("bmi2");
  XLA_EXPECT_AGREES("avx512f");
  XLA_EXPECT_AGREES("avx512dq");
  XLA_EXPECT_AGREES("avx512cd");
  XLA_EXPECT_AGREES("avx512bw");
  XLA_EXPECT_AGREES("avx512vl");
  XLA_EXPECT_AGREES("sse4a");
#undef XLA_EXPECT_AGREES
  // Every x86-64 CPU that runs this build has SSE3 (2004 on).
  EXPECT_EQ(machine.count("sse3"), 1u);
  // No CPU has both vendors' extensions.
  EXPECT_FALSE(machine.count("sse4a") == 1 && machine.count("avx512fp16") == 1);
  std::string list;
  for (const std::string& f : machine) list += f + " ";
  std::printf("this machine: %s\n", list.c_str());
}
#endif

}  // namespace
}  // namespace stream_executor::host
