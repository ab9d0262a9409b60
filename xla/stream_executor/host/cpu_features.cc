#include "xla/stream_executor/host/cpu_features.h"

#include <algorithm>
#include <cstdint>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace stream_executor::host {
namespace {

enum class Reg : uint8_t { kEbx, kEcx, kEdx };

// Register state the OS must save for a feature (XCR0 bits).
enum class OsState : uint8_t {
  kNone,
  kAvx,     // XMM and YMM: XCR0 bits 1 and 2
  kAvx512,  // and opmask, ZMM_Hi256, Hi16_ZMM: bits 5, 6 and 7
};

struct FeatureBit {
  const char* name;
  uint32_t leaf;  // subleaf 0
  Reg reg;
  int bit;
  OsState os;
};

// CPUID leaf 1, 7 (subleaf 0) and 0x80000001 bits, as Intel's and AMD's
// manuals number them.
constexpr FeatureBit kFeatures[] = {
    {"sse3", 1, Reg::kEcx, 0, OsState::kNone},
    {"ssse3", 1, Reg::kEcx, 9, OsState::kNone},
    {"fma", 1, Reg::kEcx, 12, OsState::kAvx},
    {"cx16", 1, Reg::kEcx, 13, OsState::kNone},
    {"sse4.1", 1, Reg::kEcx, 19, OsState::kNone},
    {"sse4.2", 1, Reg::kEcx, 20, OsState::kNone},
    {"movbe", 1, Reg::kEcx, 22, OsState::kNone},
    {"popcnt", 1, Reg::kEcx, 23, OsState::kNone},
    {"xsave", 1, Reg::kEcx, 26, OsState::kNone},
    {"avx", 1, Reg::kEcx, 28, OsState::kAvx},
    {"f16c", 1, Reg::kEcx, 29, OsState::kAvx},
    {"bmi", 7, Reg::kEbx, 3, OsState::kNone},
    {"avx2", 7, Reg::kEbx, 5, OsState::kAvx},
    {"bmi2", 7, Reg::kEbx, 8, OsState::kNone},
    {"avx512f", 7, Reg::kEbx, 16, OsState::kAvx512},
    {"avx512dq", 7, Reg::kEbx, 17, OsState::kAvx512},
    {"avx512cd", 7, Reg::kEbx, 28, OsState::kAvx512},
    {"avx512bw", 7, Reg::kEbx, 30, OsState::kAvx512},
    {"avx512vl", 7, Reg::kEbx, 31, OsState::kAvx512},
    {"sahf", 0x80000001, Reg::kEcx, 0, OsState::kNone},
    {"lzcnt", 0x80000001, Reg::kEcx, 5, OsState::kNone},
    // One vendor's only: AMD's SSE4a, Intel's AVX512-FP16 (no CPU has both).
    {"sse4a", 0x80000001, Reg::kEcx, 6, OsState::kNone},
    {"avx512fp16", 7, Reg::kEdx, 23, OsState::kAvx512},
};

#if defined(__x86_64__)
struct CpuidRegs {
  bool valid = false;
  uint32_t ebx = 0, ecx = 0, edx = 0;
};

CpuidRegs Query(uint32_t leaf, uint32_t subleaf) {
  CpuidRegs r;
  uint32_t eax = 0;
  // __get_cpuid_count checks the leaf against the highest one supported.
  r.valid = __get_cpuid_count(leaf, subleaf, &eax, &r.ebx, &r.ecx, &r.edx) != 0;
  return r;
}

// XCR0, or 0 when the OS has not enabled XGETBV (CPUID.1:ECX.OSXSAVE).
uint64_t Xcr0() {
  const CpuidRegs one = Query(1, 0);
  if (!one.valid || (one.ecx & (1u << 27)) == 0) return 0;
  uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

bool OsSaves(OsState state, uint64_t xcr0) {
  constexpr uint64_t kAvxBits = 0x6;      // XMM | YMM
  constexpr uint64_t kAvx512Bits = 0xe6;  // and opmask, ZMM_Hi256, Hi16_ZMM
  switch (state) {
    case OsState::kNone:
      return true;
    case OsState::kAvx:
      return (xcr0 & kAvxBits) == kAvxBits;
    case OsState::kAvx512:
      return (xcr0 & kAvx512Bits) == kAvx512Bits;
  }
  return false;
}

std::set<std::string> Detect() {
  std::set<std::string> found;
  const uint64_t xcr0 = Xcr0();
  for (const FeatureBit& f : kFeatures) {
    const CpuidRegs r = Query(f.leaf, 0);
    if (!r.valid) continue;
    const uint32_t word = f.reg == Reg::kEbx ? r.ebx : (f.reg == Reg::kEcx ? r.ecx : r.edx);
    if ((word >> f.bit) & 1u && OsSaves(f.os, xcr0)) found.insert(f.name);
  }
  return found;
}
#else
std::set<std::string> Detect() { return {}; }
#endif

}  // namespace

const std::vector<std::string>& KnownCpuFeatures() {
  static const auto* names = [] {
    auto* v = new std::vector<std::string>;
    for (const FeatureBit& f : kFeatures) v->push_back(f.name);
    return v;
  }();
  return *names;
}

bool IsKnownCpuFeature(const std::string& name) {
  const std::vector<std::string>& known = KnownCpuFeatures();
  return std::find(known.begin(), known.end(), name) != known.end();
}

const std::set<std::string>& MachineCpuFeatures() {
  static const auto* features = new std::set<std::string>(Detect());
  return *features;
}

}  // namespace stream_executor::host
