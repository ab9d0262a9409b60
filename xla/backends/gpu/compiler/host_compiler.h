// The end-to-end compiler for the host target: HLO text in, serialized
// GpuExecutableProto artifact (`.xaot` bytes) out.
//
//   parse -> verify -> RunMiddleEnd -> EmitThunks (kernels into one LLVM
//   module) -> CompileHostSharedObject (the module split into parts compiled
//   on HostCompileOptions::threads threads) -> header + checksum -> bytes
//
// The bytes are deterministic for the same input and options apart from the
// header's production_date (set HostCompilerOptions::production_date to fix
// it too).
//
// Thread-safety: CompileHloToHostArtifact is thread-safe; each call owns its
// module, LLVM context and temporary directory.
#ifndef XLA_BACKENDS_GPU_COMPILER_HOST_COMPILER_H_
#define XLA_BACKENDS_GPU_COMPILER_HOST_COMPILER_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/backends/gpu/codegen/host/host_object_compiler.h"
#include "xla/backends/gpu/compiler/compile_progress.h"
#include "xla/backends/gpu/compiler/thunk_emitter.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/service/middle_end.h"

namespace xla::gpu {

// The wider builds `xla_aot compile` stores by default (cpu_variants,
// xla::aot::CompileOptions::host_cpu_variants): x86-64-v3 (AVX2 and FMA,
// which x86-64 server CPUs have had since 2013-2015; measured on softmax:
// 1.7x faster than the baseline) and x86-64-v4 (AVX-512 F/BW/CD/DQ/VL:
// Intel Xeons since Skylake-SP, AMD since Zen 4), code-generated from the
// x86-64-v3 build's optimized IR; other CPUs run the x86-64-v2 baseline.

struct HostCompilerOptions {
  MiddleEndOptions middle_end;
  ThunkEmitterOptions thunks;
  HostCompileOptions object;
  // More builds of the host kernels, one per LLVM CPU name here (e.g.
  // "x86-64-v3", "x86-64-v4"), stored as the payload's
  // host_object_variants, those with more extensions first: a runtime runs
  // the first whose extensions its CPU has instead of the baseline
  // (object.cpu), with the same results. A CPU that adds no extension to
  // the baseline's is skipped. Each build costs about
  // one more kernel compilation (LLVM optimization and code generation) of
  // CPU time; the builds compile beside the baseline on a helper thread
  // unless object.threads is 1 (host_cpu_variant_builds.h), with the same
  // bytes either way; a variant whose extensions include a narrower one's
  // (x86-64-v4 over x86-64-v3) only runs LLVM's code generator, on the
  // narrower one's optimized IR (HostVariantIrSources).
  // Empty here (library users and tests opt in); `xla_aot compile` asks for
  // the builds named above the struct.
  std::vector<std::string> cpu_variants;
  // The LLVM optimization level of the baseline build (object.cpu) when a
  // wider variant is stored too; the variants keep object.opt_level. Every
  // CPU with a variant's extensions runs the variant, so the baseline is the
  // fallback for older CPUs, and a cheaper pipeline there saves about a
  // third of the host compile time of a large module (docs/perf.md,
  // "Kernel reuse"). The results are the same bits at every level. Negative:
  // object.opt_level for the baseline too. Unused without variants.
  int fallback_opt_level = -1;
  // The baseline's code generator level (HostCompileOptions::
  // machine_code_level) when a wider variant is stored; negative: the
  // baseline's opt level. 0 makes the baseline's code generation several
  // times cheaper (LLVM's fast instruction selection and register
  // allocation) for code with more spills on the CPUs that run no variant.
  int fallback_machine_code_level = -1;
  // Written to header.compiler_version.
  std::string compiler_version = "xla-aot-host-dev";
  // header.production_date; nullopt means the current UTC time
  // ("2026-01-31T12:00:00Z").
  std::optional<std::string> production_date;
  // Store the optimized HLO text in the payload (for humans only).
  bool include_optimized_hlo = true;
  // When set, called once per finished compile phase with its wall time, in
  // order: "middle_end", "thunk_emission" (kernel IR included), then the
  // object compiler's phases (see HostCompileOptions::phase_observer; an
  // observer set there too is called as well; for the baseline build),
  // "host_variants" when wider builds are stored (the wall time they took
  // after the baseline was done), then "serialize_hlo" and "seal". Called
  // on the compiling thread.
  std::function<void(const std::string& phase, double seconds)> phase_observer;
  // The build date ("YYYY-MM-DD") of the oldest runtime that must read the
  // artifact; empty: this build's. See target_runtime.h.
  std::string target_runtime;
  // The payload checksum: FNV1A_64 (what every runtime reads) or CRC32C
  // (runtime feature `payload_checksum.crc32c`, stage 1: opt-in; lowered
  // to FNV1A_64 for an older target_runtime).
  ChecksumAlgorithmProto checksum = CHECKSUM_ALGORITHM_FNV1A_64;
  // When set, receives progress reports (compile_progress.h): the phases
  // "middle_end" (with its passes), "thunk_emission", "kernel_compilation"
  // (with kernels compiled i/N; skipped when there are no kernels) and
  // "finalize", in that order. May be called from worker threads, never
  // twice at once.
  CompileProgressCallback progress;
  // Throttling of `progress` (see CompileProgress).
  absl::Duration progress_interval = absl::Seconds(1);
  double progress_fraction = 0.05;
};

// Compiles `hlo_text` into an artifact proto (header sealed with the
// payload checksum). Errors: parse and verifier errors (with line/
// instruction), middle-end errors, Unimplemented from thunk emission naming
// the instruction and opcode that the host target cannot run, and
// object-compilation/link errors (naming the linker or the symbol).
absl::StatusOr<GpuExecutableProto> CompileHloToHostArtifactProto(
    absl::string_view hlo_text, const HostCompilerOptions& options);

// The same from a parsed and verified module, which is compiled in place
// (it ends fused and scheduled). When `middle_end` is not null it receives
// the middle end's schedule, buffer assignment, statistics and timings (for
// dumps). Errors as CompileHloToHostArtifactProto, minus parsing.
absl::StatusOr<GpuExecutableProto> CompileModuleToHostArtifactProto(
    HloModule* module, const HostCompilerOptions& options, MiddleEndResult* middle_end);

// CompileHloToHostArtifactProto, serialized deterministically: the bytes
// xla::aot::Executable::LoadFromBytes reads.
absl::StatusOr<std::string> CompileHloToHostArtifact(absl::string_view hlo_text,
                                                     const HostCompilerOptions& options);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_COMPILER_HOST_COMPILER_H_
