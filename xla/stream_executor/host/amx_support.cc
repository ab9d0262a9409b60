#include "xla/stream_executor/host/amx_support.h"

#include <cstdint>
#include <string>

#if defined(__x86_64__) && defined(__linux__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#endif

namespace stream_executor::host {
namespace {

struct Answer {
  bool usable = false;
  std::string reason;
};

#if defined(__x86_64__) && defined(__linux__)
// Linux's arch_prctl codes and the tile data's XSAVE feature number
// (arch/x86/include/uapi/asm/prctl.h, asm/fpu/types.h).
constexpr int kArchReqXcompPerm = 0x1023;
constexpr int kXfeatureXtiledata = 18;

constexpr uint32_t kCpuidAmxBf16 = 1u << 22;  // leaf 7, EDX
constexpr uint32_t kCpuidAmxTile = 1u << 24;  // leaf 7, EDX
constexpr uint32_t kCpuidOsxsave = 1u << 27;  // leaf 1, ECX
constexpr uint64_t kXcr0Tile = (uint64_t{1} << 17) | (uint64_t{1} << 18);

bool CpuidHasAmxBf16() {
  uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (edx & kCpuidAmxBf16) != 0 && (edx & kCpuidAmxTile) != 0;
}

bool OsEnablesTileState() {
  uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_count(1, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
  if ((ecx & kCpuidOsxsave) == 0) return false;
  uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  const uint64_t xcr0 = (static_cast<uint64_t>(hi) << 32) | lo;
  return (xcr0 & kXcr0Tile) == kXcr0Tile;
}

Answer Check() {
  if (!CpuidHasAmxBf16()) return {false, "no AMX-TILE/AMX-BF16 in CPUID"};
  if (!OsEnablesTileState()) return {false, "the OS has not enabled tile state in XCR0"};
  if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) != 0) {
    return {false, std::string("arch_prctl(ARCH_REQ_XCOMP_PERM) failed: ") + std::strerror(errno)};
  }
  return {true, "usable"};
}
#else
Answer Check() { return {false, "not an x86-64 Linux build"}; }
#endif

const Answer& Cached() {
  static const Answer* const answer = new Answer(Check());
  return *answer;
}

}  // namespace

bool HostAmxBf16Usable() { return Cached().usable; }

const std::string& HostAmxBf16Reason() { return Cached().reason; }

}  // namespace stream_executor::host
