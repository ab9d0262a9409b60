// The end-to-end compiler for the NVPTX targets (sm_80, sm_86, sm_89,
// sm_90): HLO text in, serialized GpuExecutableProto artifact out.
//
//   parse -> verify -> RunMiddleEnd -> EmitThunksWithBackend with an
//   NvptxKernelBackend (one LLVM module per kernel; GEMMs stay gemm thunks
//   for cuBLAS) -> Finalize (PTX, cubin through ptxas when found) ->
//   header (target, cuda_driver requirement) + checksum -> bytes
//
// Header toolchain requirement (component "cuda_driver", the only one
// ValidateHeader in runtime/artifact_header.cc accepts): when any kernel is
// stored as a cubin, the CUDA version (major.minor) of the ptxas that made
// it, e.g. "13.0" (a cubin from a newer toolkit is not guaranteed to load
// on an older driver); otherwise the CUDA version introducing the PTX ISA
// the target emits (ISA 7.8 -> "11.8"), the minimum a driver needs to JIT
// the PTX. Artifacts with no kernels still carry the PTX-ISA minimum.
//
// The bytes are deterministic for the same input, options and ptxas apart
// from header.production_date (fix it with GpuCompilerOptions).
//
// Thread-safety: thread-safe; each call owns its module and LLVM context.
#ifndef XLA_BACKENDS_GPU_COMPILER_GPU_COMPILER_H_
#define XLA_BACKENDS_GPU_COMPILER_GPU_COMPILER_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/backends/gpu/codegen/nvptx/nvptx_compiler.h"
#include "xla/backends/gpu/compiler/compile_progress.h"
#include "xla/backends/gpu/compiler/kernel_timings.h"
#include "xla/backends/gpu/compiler/nvptx_kernel_backend.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/service/canonicalize/dot_precision.h"
#include "xla/service/middle_end.h"

namespace xla::gpu {

struct GpuCompilerOptions {
  MiddleEndOptions middle_end;
  // LLVM opt level, ptxas search and whether to make cubins.
  NvptxCompileOptions nvptx;
  // Which of PTX/cubin a kernel stores (KernelProto.spec is a oneof).
  NvptxSpecChoice spec = NvptxSpecChoice::kCubinWhenAvailable;
  // Fail (NotFound, saying where ptxas was looked for) instead of storing
  // PTX only when no ptxas is found.
  bool require_cubin = false;
  // Allow the emitters' 4-wide f32 loop path.
  bool vectorize = true;
  // Lower collectives to CollectiveThunks (ThunkEmitterOptions). On GPUs
  // they run through NCCL under a replicated execution
  // (xla/aot/replicated_execution.h: `xla_aot run --replicas=N`).
  bool emit_collectives = false;
  // Lower fft to FftThunks (ThunkEmitterOptions::emit_fft; cuFFT).
  bool emit_fft = false;
  // Lower host transfers to host send/recv thunks
  // (ThunkEmitterOptions::emit_host_transfers).
  bool emit_host_transfers = false;
  // Custom-call targets the runtime resolves (ThunkEmitterOptions).
  std::vector<std::string> allowed_custom_calls;
  // F32 dots whose precision allows it run on TF32 tensor cores, as on
  // XLA:GPU (ThunkEmitterOptions::tf32_gemms; dot_precision.h), with
  // DEFAULT read as f32_dot_default_precision.
  bool tf32_gemms = true;
  DotPrecision f32_dot_default_precision = DotPrecision::kDefault;
  // Written to header.compiler_version.
  std::string compiler_version = "xla-aot-gpu-dev";
  // header.production_date; nullopt means the current UTC time.
  std::optional<std::string> production_date;
  // Store the optimized HLO text in the payload (for humans only).
  bool include_optimized_hlo = true;
  // The build date ("YYYY-MM-DD") of the oldest runtime that must read the
  // artifact; empty: this build's. See target_runtime.h.
  std::string target_runtime;
  // The payload checksum: FNV1A_64 (what every runtime reads) or CRC32C
  // (runtime feature `payload_checksum.crc32c`, stage 1: opt-in; lowered
  // to FNV1A_64 for an older target_runtime).
  ChecksumAlgorithmProto checksum = CHECKSUM_ALGORITHM_FNV1A_64;
  // When set, receives progress reports (compile_progress.h) on the
  // compiling thread: "middle_end" (with its passes), "kernel_emission",
  // "kernel_compilation" (PTX and cubins) and "finalize", in that order. No
  // kernel counts yet (the kernels compile one by one inside Finalize).
  CompileProgressCallback progress;
  absl::Duration progress_interval = absl::Seconds(1);
  // When set, receives each phase's seconds on the compiling thread, in
  // order: "middle_end", "thunk_emission" (wall), "llvm_optimize",
  // "ptx_codegen", "ptxas" (sums over the kernels of the compiling
  // threads' wall times, so above the wall time with several threads),
  // "nvptx_parallel_wall" (the wall time of those three together) and
  // "finalize" (wall). Not called for a phase that failed.
  std::function<void(const std::string& phase, double seconds)> phase_observer;
  // When set, called once per kernel thunk emission emits, on the
  // compiling thread (ThunkEmitterOptions::kernel_observer).
  std::function<void(const KernelEmissionTiming& kernel)> kernel_observer;
};

// The CUDA driver version a GPU artifact needs (see the header comment):
// `ptxas_version` ("13.0.88") when `has_cubin`, else the CUDA version of
// `target`'s PTX ISA. Errors: an unparsable ptxas version or a PTX ISA
// missing from the table (add it next to the target).
absl::StatusOr<std::string> RequiredCudaDriverVersion(const NvptxTarget& target, bool has_cubin,
                                                      absl::string_view ptxas_version);

// Compiles `hlo_text` for `target_name` ("sm_80", "sm_86", "sm_89",
// "sm_90") into an artifact proto (sealed). When `report` is not null it
// receives every kernel's PTX and whether it got a cubin. Errors:
// InvalidArgument for an unknown target (listing the supported ones),
// parse/verifier/middle-end errors, Unimplemented from thunk emission or
// the NVPTX emitters naming the instruction, CompileNvptx errors naming the
// kernel, and NotFound when options.require_cubin and ptxas is missing.
absl::StatusOr<GpuExecutableProto> CompileHloToGpuArtifactProto(absl::string_view hlo_text,
                                                                absl::string_view target_name,
                                                                const GpuCompilerOptions& options,
                                                                NvptxFinalizeResult* report);

// The same from a parsed and verified module, compiled in place. When
// `middle_end` is not null it receives the middle end's result.
absl::StatusOr<GpuExecutableProto> CompileModuleToGpuArtifactProto(
    HloModule* module, absl::string_view target_name, const GpuCompilerOptions& options,
    MiddleEndResult* middle_end, NvptxFinalizeResult* report);

// CompileHloToGpuArtifactProto serialized deterministically: the bytes
// xla::aot::Executable::LoadFromBytes reads.
absl::StatusOr<std::string> CompileHloToGpuArtifact(absl::string_view hlo_text,
                                                    absl::string_view target_name,
                                                    const GpuCompilerOptions& options);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_COMPILER_GPU_COMPILER_H_
