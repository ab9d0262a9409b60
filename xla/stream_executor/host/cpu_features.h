// The x86-64 instruction-set extensions host kernels may use, and which of
// them this machine can run.
//
// Names are LLVM's x86 feature names ("avx2", "sse4.2", "bmi"), the
// spelling `xla_aot compile --host_cpu` artifacts record in
// ArtifactHeaderProto.host_cpu_features. The table covers the extensions of
// the x86-64 psABI levels v2, v3 and v4 (what LLVM's x86-64-v2/-v3/-v4 CPUs
// enable for generated code), plus AMD's SSE4a and Intel's AVX512-FP16, so
// that code for the other vendor's newer CPUs is caught. It only grows: a name
// is never removed or renamed (artifacts carry it), and a runtime skips
// names it does not know, so a newer compiler that records more never makes
// an older runtime refuse an artifact it could check before.
//
// Detection reads CPUID, and for the AVX and AVX-512 families also checks
// with XGETBV that the operating system saves those registers (a CPU with
// AVX under an OS that does not enable it cannot run AVX code).
//
// Thread-safety: every function is thread-safe; detection runs once.
#ifndef XLA_STREAM_EXECUTOR_HOST_CPU_FEATURES_H_
#define XLA_STREAM_EXECUTOR_HOST_CPU_FEATURES_H_

#include <set>
#include <string>
#include <vector>

namespace stream_executor::host {

// The table's feature names, in table order (no duplicates).
const std::vector<std::string>& KnownCpuFeatures();

// True when `name` is in KnownCpuFeatures().
bool IsKnownCpuFeature(const std::string& name);

// The known features this machine's CPU and operating system support.
// Empty on a non-x86-64 build.
const std::set<std::string>& MachineCpuFeatures();

}  // namespace stream_executor::host

#endif  // XLA_STREAM_EXECUTOR_HOST_CPU_FEATURES_H_
