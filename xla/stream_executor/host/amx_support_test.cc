// AMX detection against the kernel's own view of the CPU (/proc/cpuinfo's
// flags, which Linux derives from CPUID and masks by what it enables).
#include "xla/stream_executor/host/amx_support.h"

#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace stream_executor::host {
namespace {

// The flags line of /proc/cpuinfo's first processor, "" when unreadable.
std::string CpuinfoFlags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) == 0) return line + " ";
  }
  return "";
}

bool HasFlag(const std::string& flags, const std::string& name) {
  return flags.find(" " + name + " ") != std::string::npos;
}

TEST(AmxSupport, AgreesWithCpuinfo) {
  const std::string flags = CpuinfoFlags();
  if (flags.empty()) GTEST_SKIP() << "no /proc/cpuinfo";
  const bool listed = HasFlag(flags, "amx_bf16") && HasFlag(flags, "amx_tile");
  if (HostAmxBf16Usable()) {
    EXPECT_TRUE(listed) << "usable, but /proc/cpuinfo lists no amx_bf16/amx_tile";
    EXPECT_EQ(HostAmxBf16Reason(), "usable");
    return;
  }
  EXPECT_NE(HostAmxBf16Reason(), "usable");
  // Linux lists the flags only where it enables tile state, so a machine that
  // lists them fails only at the permission request (a sanitizer's small
  // signal stack, for one).
  if (listed) {
    EXPECT_EQ(HostAmxBf16Reason().rfind("arch_prctl", 0), 0u) << HostAmxBf16Reason();
  }
}

TEST(AmxSupport, AnswerIsStable) {
  const bool first = HostAmxBf16Usable();
  const std::string reason = HostAmxBf16Reason();
  EXPECT_EQ(HostAmxBf16Usable(), first);
  EXPECT_EQ(HostAmxBf16Reason(), reason);
  EXPECT_FALSE(reason.empty());
}

}  // namespace
}  // namespace stream_executor::host
