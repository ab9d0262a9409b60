// The public C++ API of the compiler: HLO text in, a `.xaot` artifact out,
// for the host or an NVPTX target, with one options struct.
//
//   xla::aot::CompileOptions options;
//   options.target = "sm_90";
//   ASSIGN_OR_RETURN(xla::aot::CompiledArtifact compiled,
//                    xla::aot::Compile(hlo_text, options));
//   // compiled.bytes is what xla::aot::Executable::LoadFromBytes reads.
//
// Compile parses and verifies the module, runs the middle end (optimization,
// fusion, scheduling, buffer assignment), then the target's back end: the
// host compiler (xla/backends/gpu/compiler/host_compiler.h) for "host", the
// NVPTX compiler (gpu_compiler.h) for "sm_XX". The bytes are deterministic
// for the same input and options apart from the header's production date.
//
// This is a separate library (//xla/aot:compile) from the runtime's API
// (//xla/aot:executable): a serving binary that only loads and runs
// artifacts links no compiler (xla/aot:runtime_deps_test checks it).
//
// Thread-safety: Compile and CompileToProto are thread-safe; each call owns
// its module, LLVM context and temporary files. Callbacks in the options
// are called as their comments say.
#ifndef XLA_AOT_COMPILE_H_
#define XLA_AOT_COMPILE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/backends/gpu/runtime/memory_report.h"
#include "xla/service/canonicalize/dot_precision.h"
#include "xla/hlo/transforms/elided_constant_filler.h"

namespace xla::aot {

// The artifact's payload checksum.
enum class PayloadChecksum {
  kFnv1a64,  // every runtime reads it
  // About 10x faster to check at load; stage 1 of its rollout (runtimes
  // from 2026-11-30): lowered to kFnv1a64 for an older target_runtime.
  kCrc32c,
};

// How fp8 dots (f8e4m3fn / f8e5m2 operands) become GEMMs.
enum class Fp8Gemm {
  kWiden,  // operands converted to bf16/f16/f32 first; every runtime runs it
  // sm_90 only: dots cuBLASLt takes stay fp8 (1 byte per element read);
  // stage 1 of the "gemm.fp8" rollout (runtimes from 2026-12-02). Other
  // targets, and fp8 dots cuBLASLt refuses, are widened as with kWiden.
  kCublasLt,
};

// Everything that decides what Compile produces, for both targets. Fields
// marked "host" or "NVPTX" are ignored by the other target. The defaults
// are those of `xla_aot compile`.
struct CompileOptions {
  // "host", or an NVPTX target: "sm_80", "sm_86", "sm_89", "sm_90".
  std::string target = "host";
  // The name HLO errors are reported under ("model.hlo:3:7: ...").
  std::string source_name = "<text>";

  // Middle end (both targets).
  int64_t max_fold_elements = int64_t{1} << 16;  // fold constants up to this size
  bool allow_inexact = false;       // rewrites that may round differently
  bool loop_optimizations = true;   // while-loop invariant motion, trip counts
  bool fusion = true;               // off: one kernel per op
  bool multi_output_fusion = true;  // only with `fusion`
  bool convolution_as_gemm = true;  // off: every convolution a direct kernel
  // Attention spelled in plain HLO (dot, softmax, dot; see
  // xla/service/fusion/attention_rewriter.h) runs as the built-in fused
  // attention kernel; --fuse_attention=on|off. Host: f32, bf16 and f16,
  // except for a target_runtime before the kernel's runtime support
  // (2026-12-02), which gets the unfused ops. NVPTX targets: bf16/f16
  // attention the FlashAttention kernel plans (kernel thunks: any
  // target_runtime); f32 stays unfused. Off by
  // default until stage 2 of the "fuse_attention_host" rollout (from
  // 2026-12-16, feature_registry.cc): a rewritten artifact needs a runtime
  // from 2026-12-02 or later, and the default must serve runtimes of the
  // last 2 weeks.
  bool fuse_attention = false;
  bool verify_after_each = true;    // verify after every pass
  // Stop after the middle end: no kernels and no artifact (bytes stay
  // empty); the statistics and dumps are still made.
  bool middle_end_only = false;

  // Host kernels.
  std::string host_cpu = "x86-64-v2";  // LLVM CPU of the baseline build
  // More builds of the host kernels stored beside the baseline; a runtime
  // runs the widest its CPU has. Empty: the baseline only. By default
  // x86-64-v3 (AVX2, FMA) and x86-64-v4 (AVX-512 F/BW/CD/DQ/VL), the latter
  // generated from the former's optimized IR (host_cpu_variant_builds.h).
  std::vector<std::string> host_cpu_variants = {"x86-64-v3", "x86-64-v4"};
  int opt_level = 3;                       // host LLVM optimization level, 0..3
  // The baseline build's level when host_cpu_variants adds a wider build
  // (HostCompilerOptions::fallback_opt_level): CPUs with the variant's
  // extensions run the variant, built at opt_level.
  int host_fallback_opt_level = 1;
  // The baseline build's code generator level when host_cpu_variants adds
  // a wider build (HostCompilerOptions::fallback_machine_code_level): 0,
  // LLVM's fast instruction selection and register allocation, pays for
  // the x86-64-v4 build's code generation (docs/perf.md, 2026-12-03).
  int host_fallback_machine_code_level = 0;
  int compile_parts = 0;                   // 0: automatic (changes the bytes)
  int64_t target_block_bytes = 32 * 1024;  // output bytes per kernel block

  // NVPTX: store each kernel's cubin and PTX together (runtimes from
  // 2026-11-29), instead of the cubin alone when ptxas is found.
  bool emit_cubin_with_ptx = false;
  // NVPTX: what an f32 dot's DEFAULT precision means, like JAX's
  // jax_default_matmul_precision: kDefault (and kHigh) let DEFAULT and
  // HIGH dots run on TF32 tensor cores (XLA:GPU's rule, dot_precision.h);
  // kHighest keeps DEFAULT dots exact f32. HIGHEST dots are always f32,
  // and the host target always computes f32 dots in f32.
  DotPrecision gpu_f32_dot_precision = DotPrecision::kDefault;
  // NVPTX: convolutions cuDNN runs become convolution thunks (stage 1 of
  // feature "cudnn_convolutions": runtimes from 2026-12-02; the rules are in
  // cudnn_convolution_rewriter.h) instead of im2col + GEMM or a direct
  // kernel. Ignored for the host target and, falling back to im2col, for a
  // --target_runtime before 2026-12-02. A forward convolution's bias (+
  // ReLU) is fused into its cuDNN call (cudnn_epilogue_fuser.h; feature
  // "cudnn_convolutions.fused_epilogue", runtimes from 2026-12-03; an
  // older --target_runtime keeps the epilogue a separate kernel).
  bool emit_cudnn_convolutions = false;

  // Both targets.
  // fft becomes an fft thunk (stage 1 of feature "fft": runtimes from
  // 2026-12-02; the host runs Eigen's FFT, CUDA cuFFT). Off, a module with
  // fft fails to compile naming this flag; so does a --target_runtime
  // before 2026-12-02 with it on (fft has no legacy form).
  bool emit_fft = false;
  // send/recv with is_host_transfer=true become host send/recv thunks
  // (stage 1 of feature "host_transfers": runtimes from 2026-12-03; the
  // caller serves them through ExecuteOptions::host_transfers). Off, a
  // module with a host transfer fails to compile naming this flag; so does
  // a --target_runtime before 2026-12-03 with it on (no legacy form).
  bool emit_host_transfers = false;
  // Scan stacks of activation offloading (a loop-carried buffer filled row
  // by row with MoveToHost results and read back row by row into
  // MoveToDevice, docs/architecture.md "Scan stacks in host memory") live
  // in host memory, their rows copied with dynamic offsets (stage 1 of
  // feature "copy_thunk.dynamic_offset": runtimes from 2026-12-03). Off,
  // or with a --target_runtime before 2026-12-03, the stacks stay on the
  // device (the legacy form, silently: the results are the same).
  bool offload_scan_stacks = false;
  int compile_threads = 0;  // host kernel parts or NVPTX kernels; 0: automatic
  // Lower collectives to collective thunks (stage 1: runtimes from
  // 2026-11-30).
  bool emit_collectives = false;
  // fp8 dots (see Fp8Gemm); --fp8_gemm=cublaslt|widen.
  Fp8Gemm fp8_gemm = Fp8Gemm::kWiden;
  // Custom-call targets to compile although this compiler has no FFI
  // handler for them: they become custom-call thunks naming the target,
  // and the runtime that loads the artifact resolves the handler from its
  // own FFI registry at Initialize (docs/custom_calls.md). Other unknown
  // targets are refused (Unimplemented naming the target and
  // --allow_custom_calls).
  std::vector<std::string> allowed_custom_calls;
  // The program's device counts, overriding the module header's
  // replica_count and num_partitions (dumped SPMD programs often keep
  // none); unset: the header's, else 1. Replica groups, source-target
  // pairs and the partition count of every collective are checked against
  // them, and collective thunks record them. InvalidArgument when below 1.
  std::optional<int64_t> num_replicas;
  std::optional<int64_t> num_partitions;
  // What to do with constants whose values the HLO text elided
  // (`constant({...})`, as dumped benchmark programs print large ones),
  // applied right after parsing: kError refuses the module naming the first
  // one; kZeros and kRandom invent their values (elided_constant_filler.h;
  // kRandom from each constant's name, shape and elided_constants_seed) and
  // the artifact records it (payload.invented_constants), since its results
  // are then not the real model's.
  ElidedConstantsMode elided_constants = ElidedConstantsMode::kError;
  uint64_t elided_constants_seed = 0;
  // The memory of one device, in bytes; 0: no limit. A program whose
  // per-device peak (memory_report.h: parameters, outputs, temporaries and
  // constants; host-offloaded buffers are not device memory) exceeds it is
  // refused with ResourceExhausted naming each part and the limit. Checked
  // on the artifact, so not with middle_end_only.
  int64_t device_memory_bytes = 0;
  // The build date ("YYYY-MM-DD") of the oldest runtime that must read the
  // artifact; empty: this build's.
  std::string target_runtime;
  PayloadChecksum checksum = PayloadChecksum::kFnv1a64;
  // header.compiler_version; nullopt: the target's default
  // ("xla-aot-host-dev", "xla-aot-gpu-dev").
  std::optional<std::string> compiler_version;
  // header.production_date; nullopt: the current UTC time.
  std::optional<std::string> production_date;
  // Store the optimized HLO text in the payload (for humans only).
  bool include_optimized_hlo = true;
  // Sign the artifact with this secret key file (NAME.secret from
  // `xla_aot keygen`; artifact_signing.h); empty: unsigned. Read before
  // compiling, so a bad key fails at once.
  std::string sign_key;

  // Reports. When dump_dir is set, Compile creates it and writes
  // after_optimizations.hlo (checked to parse back), schedule.txt,
  // buffer_assignment.txt, pass_timings.txt and, for host artifacts,
  // compile_timings.txt, kernel_timings.txt (one row per emitted kernel:
  // its IR emission time and its LLVM part's optimize / codegen time,
  // slowest first; gpu/compiler/kernel_timings.h) and
  // llvm_ir.{before,after}_optimizations.ll. Without dump_dir the
  // per-kernel clocks are not read.
  std::string dump_dir;
  // Also write the module after every pass under dump_dir/passes/.
  bool dump_passes = false;
  // When set, receives one line per progress report ("compile:   1.20s
  // [middle_end] pass ...\n"), at most about once a second per kind. May be
  // called from worker threads, never twice at once.
  std::function<void(absl::string_view line)> progress;
};

// What a compilation did, for the CLI's summary line.
struct CompileStatistics {
  int64_t instructions_before = 0;
  int64_t instructions_after = 0;
  int64_t computations_before = 0;
  int64_t computations_after = 0;
  std::string fusion_stats;  // kernels and thunks the module needs
  int64_t temp_bytes = 0;        // temporary bytes after buffer reuse
  int64_t naive_temp_bytes = 0;  // the same without reuse
  int64_t passes = 0;            // middle-end passes run
  int64_t num_replicas = 1;      // the device counts compiled for (header or
  int64_t num_partitions = 1;    // options), as the artifact records them
  // The elided constants whose values were invented, in module order.
  std::vector<std::string> invented_constants;
  double seconds = 0;            // wall time of the whole compilation
  // The artifact's per-device memory (ComputeMemoryReport); zeros with
  // middle_end_only.
  gpu::MemoryReport memory;
  // Values recomputed to fit device_memory_bytes (rematerialization.h), and
  // the schedule's peak (live temporaries and outputs, parameters not
  // counted) before and after; zeros without device_memory_bytes.
  int64_t rematerialized = 0;
  int64_t schedule_peak_before = 0;
  int64_t schedule_peak_after = 0;
  // Seconds per compile phase, in order (host and NVPTX artifacts; see
  // HostCompilerOptions / GpuCompilerOptions::phase_observer).
  std::vector<std::pair<std::string, double>> phases;
  // Kernel thunks in the artifact (loop bodies and branches counted once)
  // and the kernel-table entries they launch: fusions that would emit the
  // same code share one compiled kernel (gpu/compiler/kernel_reuse.h).
  // Zeros with middle_end_only.
  int64_t kernel_thunks = 0;
  int64_t compiled_kernels = 0;
  // The files written under dump_dir, as paths relative to it, in the order
  // written; "passes/" stands for the per-pass modules of dump_passes.
  // Empty without dump_dir.
  std::vector<std::string> dumped_files;
};

struct CompiledArtifact {
  // The artifact, serialized deterministically; empty with middle_end_only.
  std::string bytes;
  CompileStatistics statistics;
};

// Whether `target` names a target Compile knows: OkStatus, or
// InvalidArgument listing the supported ones. Thread-safe.
absl::Status CheckTarget(absl::string_view target);

// Compiles `hlo_text` as `options` say. Errors: InvalidArgument for an
// unknown target, parse errors naming source_name:line:col, InvalidArgument
// "<source_name>:<line>: constant %c (...) has an elided value" for an
// elided constant with elided_constants kError, InvalidArgument
// "<source_name>:<line>:<col>: instruction '...' (...): ..." (one line per
// verifier error; "<source_name>: ..." for module-level ones) for a module
// that does not verify, the
// middle end's and back end's errors (Unimplemented naming the instruction
// a target cannot run, LLVM, link and ptxas errors), InternalError when the
// compiled module does not verify or (with dump_dir) does not parse back,
// and an error naming a dump file or folder that cannot be written.
absl::StatusOr<CompiledArtifact> Compile(absl::string_view hlo_text,
                                         const CompileOptions& options);

// Compile, returning the sealed artifact proto instead of its bytes (for
// structural diffs). Errors as Compile; InvalidArgument with
// middle_end_only.
absl::StatusOr<gpu::GpuExecutableProto> CompileToProto(absl::string_view hlo_text,
                                                       const CompileOptions& options);

}  // namespace xla::aot

#endif  // XLA_AOT_COMPILE_H_
