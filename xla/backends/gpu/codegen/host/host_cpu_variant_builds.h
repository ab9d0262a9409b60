// The builds of one host kernel module: the baseline (HostCompileOptions
// as given) and the wider CPU variants an artifact stores beside it
// (GpuExecutablePayloadProto.host_object_variants), planned and compiled
// together.
//
// The builds are independent: each variant gets its own copy of the
// unoptimized kernels in its own LLVMContext, so the variants compile on a
// helper thread while the calling thread compiles the baseline. On a small
// module (one part, one thread per build) that halves the kernel
// compilation's wall time on two idle cores; on a large one it overlaps the
// builds' last parts. A variant whose extensions include a narrower
// variant's (x86-64-v4 over x86-64-v3) is not optimized again: LLVM's code
// generator runs on the narrower one's optimized IR, on its own thread
// (HostVariantIrSources). Each build's bytes depend only on the module and
// the options (the variant list included), never on what ran beside it or
// on the thread count, so the artifact is the same whichever way the builds
// were scheduled.
//
// Thread-safety: the functions are thread-safe. PlanHostCpuVariantBuilds
// reads `kernels` (and its LLVMContext: no other thread may use it during
// the call); CompileHostBuilds compiles `baseline` in place (nothing else
// may use its context meanwhile) and each variant in its own context.
#ifndef XLA_BACKENDS_GPU_CODEGEN_HOST_HOST_CPU_VARIANT_BUILDS_H_
#define XLA_BACKENDS_GPU_CODEGEN_HOST_HOST_CPU_VARIANT_BUILDS_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "xla/backends/gpu/codegen/host/host_object_compiler.h"

namespace xla::gpu {

// One more build of the host kernels for a wider CPU.
struct HostCpuVariantBuild {
  // The baseline's options with `cpu` replaced; no observers or progress
  // (those describe the baseline build).
  HostCompileOptions options;
  // HostCpuFeaturesOf(options): what the build may use.
  std::vector<std::string> cpu_features;
  // A copy of the unoptimized kernels in its own context (declared first:
  // it outlives the module).
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
};

// The builds `cpus` (LLVM CPU names) ask for beyond a baseline whose
// extensions are `base_features`, those with more extensions first (in the
// given order among equals); a CPU that adds no extension to the
// baseline's is skipped. Errors: InvalidArgument "host CPU variant: ..." for
// an unknown CPU name; Internal when the kernels cannot be copied (a
// bitcode round trip; a compiler bug).
absl::StatusOr<std::vector<HostCpuVariantBuild>> PlanHostCpuVariantBuilds(
    const llvm::Module& kernels, const HostCompileOptions& base,
    const std::vector<std::string>& base_features, const std::vector<std::string>& cpus);

// Which variant's optimized IR each of `variants` (widest first, as
// PlanHostCpuVariantBuilds orders them) is generated from: its own index,
// or that of a narrower variant with the same options apart from the CPU
// whose extensions are a strict subset of its own (the narrowest such one).
// x86-64-v4 (AVX-512) is generated from x86-64-v3's IR: LLVM optimizes
// once, and only the code generator runs per CPU
// (CompileHostSharedObjectsSharingIr). A source's index maps to itself.
// Pure.
std::vector<int> HostVariantIrSources(const std::vector<HostCpuVariantBuild>& variants);

// How many of `builds` (the baseline and its variants) compile at once with
// `threads` compile threads (HostCompileOptions::threads; 0: the hardware
// threads): one when a single thread was asked for or there is only one
// build, else every build (the builds then share the cores with their own
// part workers). Pure apart from reading the hardware thread count.
int HostBuildsAtOnce(int threads, size_t builds);

// The shared objects of a baseline and its variants, in the variants'
// order, and the wall time the variants took after the baseline was done
// (all of theirs when they ran after it; what is left of it when they ran
// beside it).
struct HostBuildObjects {
  std::string baseline;
  std::vector<std::string> variants;
  double variants_extra_seconds = 0;
};

// Compiles `baseline` with `baseline_options` (CompileHostSharedObject, on
// the calling thread: its observers run there) and every variant, beside it
// on a helper thread when HostBuildsAtOnce (counting the variants that are
// their own HostVariantIrSources) says so, else after it; a variant that
// shares another's IR is generated with it. Errors:
// the baseline's error first, else the first failing variant's, prefixed
// with its CPU name.
absl::StatusOr<HostBuildObjects> CompileHostBuilds(llvm::Module& baseline,
                                                   const HostCompileOptions& baseline_options,
                                                   std::vector<HostCpuVariantBuild>& variants);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_CODEGEN_HOST_HOST_CPU_VARIANT_BUILDS_H_
