// Whether this process may run Intel AMX-BF16 tile instructions (TDPBF16PS,
// the kernel of host_gemm_bf16_amx.h).
//
// Three things must hold, checked in this order on the first call:
//   1. CPUID leaf 7 (subleaf 0) EDX reports AMX-TILE (bit 24) and AMX-BF16
//      (bit 22);
//   2. XCR0 has the tile state enabled by the OS: XTILECFG (bit 17) and
//      XTILEDATA (bit 18);
//   3. on Linux, the kernel grants this process the 8 KiB XTILEDATA state:
//      arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) (Linux 5.16 and
//      later; it refuses, for one, when a thread's signal stack is too small
//      for the larger signal frame). The grant is for the whole process, its
//      current and future threads.
// Any missing step makes the answer false and names the step in the reason;
// callers then keep their other kernels. Never true on a non-x86-64 build or
// an OS other than Linux.
//
// Thread-safety: both functions are thread-safe; the checks (and the
// permission request) run once per process.
#ifndef XLA_STREAM_EXECUTOR_HOST_AMX_SUPPORT_H_
#define XLA_STREAM_EXECUTOR_HOST_AMX_SUPPORT_H_

#include <string>

namespace stream_executor::host {

// True when the CPU, the OS and the kernel's permission all allow AMX-BF16
// tile instructions in this process (see the file comment). The first call
// asks Linux for the permission; later calls return the cached answer.
bool HostAmxBf16Usable();

// Why HostAmxBf16Usable() is what it is, for logs and test skips: "usable",
// or the first check that failed ("no AMX-TILE/AMX-BF16 in CPUID", "the OS
// has not enabled tile state in XCR0", "arch_prctl(ARCH_REQ_XCOMP_PERM)
// failed: <errno text>", "not an x86-64 Linux build").
const std::string& HostAmxBf16Reason();

}  // namespace stream_executor::host

#endif  // XLA_STREAM_EXECUTOR_HOST_AMX_SUPPORT_H_
