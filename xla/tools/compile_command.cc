#include "xla/tools/compile_command.h"

#include <climits>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "xla/aot/artifact_signing.h"
#include "xla/aot/compile.h"
#include "xla/backends/gpu/runtime/memory_report.h"
#include "xla/tools/compile_flags.h"
#include "xla/tools/elided_constant_flags.h"
#include "xla/tools/exit_codes.h"
#include "xla/tools/inspect_command.h"
#include "xla/util/subprocess.h"

namespace xla::cli {

const char kCompileHelp[] =
    "usage: xla_aot compile FILE.hlo (-o OUT.xaot | --dump_dir=DIR) [--target=host]\n"
    "                       [--dump_passes] [--max_fold_elements=N] [--allow_inexact]\n"
    "                       [--no_loop_opts] [--no_fusion] [--direct_convolutions]\n"
    "                       [--no_verify] [--no_optimized_hlo] [--host_cpu=CPU]\n"
    "                       [--host_cpu_variants=CPU,...]\n"
    "                       [--opt_level=N] [--host_fallback_opt_level=N]\n"
    "                       [--host_fallback_machine_code_level=N]\n"
    "                       [--target_runtime=YYYY-MM-DD]\n"
    "                       [--emit_cubin_with_ptx] [--emit_collectives]\n"
    "                       [--emit_cudnn_convolutions] [--emit_fft]\n"
    "                       [--emit_host_transfers] [--offload_scan_stacks] [-v]\n"
    "                       [--checksum=fnv1a64|crc32c] [--sign_key=NAME.secret]\n"
    "                       [--fp8_gemm=widen|cublaslt] [--fuse_attention=on|off]\n"
    "                       [--gpu_f32_dot_precision=default|high|highest]\n"
    "                       [--num_replicas=N] [--num_partitions=P]\n"
    "                       [--elided_constants=error|zeros|random [--elided_constants_seed=N]]\n"
    "                       [--allow_custom_calls=NAME,...]\n"
    "                       [--compile_threads=N]\n"
    "                       [--compile_parts=N]\n"
    "\n"
    "Compiles an HLO module: optimization (inlining, simplification, bounded\n"
    "constant folding, CSE, DCE, while-loop passes), canonicalization (dot,\n"
    "convolution, reduce), layout assignment, fusion, scheduling, buffer\n"
    "assignment (checked), kernel emission and thunk emission, into a\n"
    "GpuExecutableProto artifact that `xla_aot run` and the runtime load.\n"
    "\n"
    "  -o OUT.xaot, --output=OUT.xaot\n"
    "                          write the artifact (host: x86-64 kernels in a shared\n"
    "                          object inside it; sm_XX: a cubin or PTX per kernel)\n"
    "  --target=T              host (default), or a GPU: sm_80, sm_86, sm_89, sm_90\n"
    "                          (PTX from LLVM, plus a cubin when ptxas is found;\n"
    "                          running it needs an NVIDIA GPU and driver)\n"
    "  --dump_dir=DIR          write into DIR: after_optimizations.hlo (fused and\n"
    "                          scheduled), schedule.txt, buffer_assignment.txt,\n"
    "                          pass_timings.txt; with -o also\n"
    "                          compile_timings.txt (wall time per compile phase),\n"
    "                          kernel_timings.txt (one row per emitted kernel,\n"
    "                          slowest first: fusion, kind, HLO and LLVM\n"
    "                          instructions, IR emission time, its LLVM part's\n"
    "                          optimize and codegen time and an estimated share;\n"
    "                          sm_XX: each kernel's own optimize, PTX and ptxas\n"
    "                          time; the total matches compile_timings.txt); with\n"
    "                          -o and target host also\n"
    "                          llvm_ir.before_optimizations.ll,\n"
    "                          llvm_ir.after_optimizations.ll and thunks.txt (the\n"
    "                          artifact as `xla_aot inspect` prints it). Without\n"
    "                          -o, stop after the middle end (no kernels)\n"
    "  --dump_passes           also write the module after every pass to\n"
    "                          DIR/passes/NN-<pipeline>/NN.<pipeline>.<pass>.hlo\n"
    "  --max_fold_elements=N   fold constants of at most N elements (default 65536)\n"
    "  --allow_inexact         allow rewrites that may round differently\n"
    "                          (x / c -> x * (1/c) for any float constant)\n"
    "  --no_loop_opts          skip while-loop invariant code motion and trip counts\n"
    "  --no_fusion             one kernel per op (no fusion passes)\n"
    "  --direct_convolutions   keep every convolution a direct loop-nest kernel\n"
    "                          (default: im2col + GEMM where the types allow)\n"
    "  --no_verify             do not verify after every pass (the input and the\n"
    "                          result are always verified)\n"
    "  --no_optimized_hlo      do not store the optimized HLO text in the artifact\n"
    "                          (for humans only; a module with large constants,\n"
    "                          invented ones included, prints them all there)\n"
    "  --host_cpu=CPU          LLVM CPU for host kernels (default x86-64-v2;\n"
    "                          \"native\" for this machine)\n"
    "  --host_cpu_variants=CPU,...  also store the host kernels built for these\n"
    "                          CPUs (e.g. x86-64-v3,x86-64-v4): a runtime runs\n"
    "                          the widest its CPU has, else the --host_cpu one;\n"
    "                          same results (default x86-64-v3,x86-64-v4;\n"
    "                          \"none\")\n"
    "  --target_runtime=DATE   the build date of the oldest runtime that must load\n"
    "                          the artifact: newer constructs get their legacy form,\n"
    "                          or compiling fails naming the feature (see\n"
    "                          docs/aot_compatibility.md)\n"
    "  --num_replicas=N        the program's replicas, overriding the module header's\n"
    "                          replica_count (dumped SPMD programs often keep none)\n"
    "  --num_partitions=P      its partitions, overriding num_partitions; replica\n"
    "                          groups and source-target pairs are checked against\n"
    "                          N and P, and collectives record them\n"
    XLA_AOT_ELIDED_CONSTANT_FLAGS_HELP
    "                        (the artifact records the invented constants:\n"
    "                        `xla_aot inspect` lists them, `xla_aot run` warns,\n"
    "                        and `run --reference` invents the same by default)\n"
    "  --sign_key=NAME.secret  sign the artifact with this key (xla_aot keygen);\n"
    "                          runtimes load it when they trust NAME.pub\n"
    "                          (--trusted_key); runtimes before 2026-12-02\n"
    "                          ignore the signature\n"
    "  --checksum=ALGORITHM    the payload checksum: fnv1a64 (default; every\n"
    "                          runtime reads it) or crc32c (about 10x faster to\n"
    "                          check at load; staged rollout: needs runtimes from\n"
    "                          2026-11-30, and --target_runtime before that falls\n"
    "                          back to fnv1a64)\n"
    "  --fp8_gemm=MODE         fp8 dots: widen (default; operands converted to\n"
    "                          bf16/f16/f32 first) or cublaslt (sm_90: dots with\n"
    "                          fp8 operands, not e5m2 x e5m2, m, n, k multiples\n"
    "                          of 16 and an f16/bf16/f32 result stay fp8 and run\n"
    "                          through cuBLASLt; staged rollout: needs runtimes\n"
    "                          from 2026-12-02; other targets and dots widen)\n"
    "  --fuse_attention=on|off attention in plain HLO (dot, softmax, dot) runs\n"
    "                          as the built-in fused-attention kernel (on) or as\n"
    "                          the unfused ops (off, the default until 2026-12-16).\n"
    "                          host: f32, bf16, f16; needs runtimes from 2026-12-02\n"
    "                          (an older --target_runtime: unfused). sm_XX: bf16\n"
    "                          and f16 only, on the FlashAttention kernel\n"
    "  --gpu_f32_dot_precision=P  sm_XX: what DEFAULT precision means for f32 dots\n"
    "                          and convolutions (like jax_default_matmul_precision):\n"
    "                          default (and high) run DEFAULT and HIGH dots on TF32\n"
    "                          tensor cores, as XLA:GPU does; highest keeps them f32.\n"
    "                          HIGHEST dots are always f32; the host is always f32\n"
    "  --emit_cubin_with_ptx   sm_XX: store each kernel's cubin and PTX together\n"
    "                          (the runtime JITs the PTX when the cubin does not\n"
    "                          fit the GPU); needs runtimes from 2026-11-29\n"
    "  --emit_cudnn_convolutions\n"
    "                          sm_XX: run the convolutions cuDNN can (f16, bf16,\n"
    "                          f32; forward, backward data, backward filter)\n"
    "                          through cuDNN instead of im2col + GEMM; staged\n"
    "                          rollout: needs runtimes from 2026-12-02 with\n"
    "                          libcudnn.so.9 (an older --target_runtime keeps im2col)\n"
    "  --emit_fft              compile fft (FFT, IFFT, RFFT, IRFFT) into fft thunks:\n"
    "                          Eigen's FFT on the host, cuFFT on sm_XX; staged\n"
    "                          rollout: needs runtimes from 2026-12-02 (without\n"
    "                          the flag a module with fft does not compile)\n"
    "  --emit_host_transfers   compile send/recv with is_host_transfer=true into\n"
    "                          host send/recv thunks served by the caller's\n"
    "                          callbacks (xla_aot run: --host_recv, --host_send_dir);\n"
    "                          staged rollout: needs runtimes from 2026-12-03\n"
    "                          (without the flag such a module does not compile)\n"
    "  --offload_scan_stacks   keep scan stacks of activation offloading (rows\n"
    "                          written through MoveToHost, read back through\n"
    "                          MoveToDevice) in host memory, one copy per row;\n"
    "                          staged rollout: needs runtimes from 2026-12-03\n"
    "                          (an older --target_runtime keeps them on the device)\n"
    "  --emit_collectives      compile all-reduce, all-gather, reduce-scatter,\n"
    "                          all-to-all, collective-permute, collective-broadcast,\n"
    "                          replica-id and partition-id into collective thunks\n"
    "                          (staged rollout: needs runtimes from 2026-11-30;\n"
    "                          run the artifact with\n"
    "                          `xla_aot run --replicas=N` or under mpirun with\n"
    "                          xla_aot_mpi_run; sm_XX artifacts run on N GPUs\n"
    "                          through NCCL with `xla_aot run --replicas=N`)\n"
    "  --allow_custom_calls=NAME,...\n"
    "                          compile custom calls to these targets although this\n"
    "                          compiler has no FFI handler for them: the artifact\n"
    "                          names the target, its api_version, operand and result\n"
    "                          shapes and the typed attributes of a typed-FFI\n"
    "                          backend_config, and the runtime that loads it must\n"
    "                          register the handler (Initialize fails naming it\n"
    "                          otherwise; docs/custom_calls.md). Repeatable\n"
    "  --opt_level=N           LLVM optimization level for host kernels, 0..3\n"
    "                          (default 3; 0 compiles fastest)\n"
    "  --host_fallback_opt_level=N  the level of the x86-64-v2 baseline build when\n"
    "                          --host_cpu_variants stores a wider one (default 1):\n"
    "                          CPUs with the variant's extensions run the variant,\n"
    "                          built at --opt_level; same results\n"
    "  --host_fallback_machine_code_level=N  that baseline's code generator\n"
    "                          level (default 0: fast instruction selection and\n"
    "                          register allocation, more spills); same results\n"
    "  --device_memory=SIZE    the memory of one device (80GiB, 141GiB, 512MiB, or\n"
    "                          bytes): refuse a program whose per-device peak\n"
    "                          (parameters + outputs + temporaries + constants, as\n"
    "                          the memory report after the summary shows) exceeds\n"
    "                          it, naming each part (exit 1); first, cheap values\n"
    "                          live across the peak are recomputed where they are\n"
    "                          used again (rematerialization) to make it fit\n"
    "  -v, --verbose           report progress on stderr: each phase, the running\n"
    "                          middle-end pass and kernels compiled i/N (at most\n"
    "                          about once a second or every 5%)\n"
    "  --compile_threads=N     compile on N threads: host kernel parts, or sm_XX\n"
    "                          kernels (default 0: all hardware threads, at most\n"
    "                          16); the artifact's bytes do not depend on N\n"
    "  --compile_parts=N       host: split the kernel module into N parts (default\n"
    "                          0: one per 1000 LLVM instructions, at most 32;\n"
    "                          changes the artifact's bytes, not its results)\n"
    "\n"
    "With -o and target host, the summary line ends with the wall time of each\n"
    "compile phase (middle end, thunk and kernel IR emission, LLVM optimization,\n"
    "machine code, link).\n";

namespace {

struct CompileFlags {
  std::string output;
  aot::CompileOptions options;
  bool verbose = false;
};

// -o's long form and -v; nullopt for any other flag.
std::optional<std::string> ApplyCommandFlag(const std::string& arg, CompileFlags* f) {
  if (absl::StartsWith(arg, "--output=")) {
    f->output = arg.substr(strlen("--output="));
    return std::string();
  }
  if (arg == "-v" || arg == "--verbose") {
    f->verbose = true;
    return std::string();
  }
  return std::nullopt;
}

// Parses flags; returns an error message for bad usage.
std::string ParseFlags(const std::vector<std::string>& args, CompileFlags* f) {
  std::string& path = f->options.source_name;
  path.clear();
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-o") {
      if (i + 1 == args.size()) return "-o needs a file name";
      f->output = args[++i];
      continue;
    }
    std::optional<std::string> applied = ApplyCommandFlag(arg, f);
    if (!applied.has_value()) applied = ApplyCompileFlag(arg, &f->options);
    if (applied.has_value() && !applied->empty()) return *applied;
    if (applied.has_value()) continue;
    if (absl::StartsWith(arg, "-")) return absl::StrCat("unknown flag '", arg, "'");
    if (!path.empty()) return absl::StrCat("unexpected argument '", arg, "' (one module file only)");
    path = arg;
  }
  if (path.empty()) return "no module file";
  if (f->options.dump_dir.empty() && f->output.empty()) return "give -o OUT.xaot, --dump_dir=DIR or both";
  f->options.middle_end_only = f->output.empty();
  if (absl::Status target = aot::CheckTarget(f->options.target); !target.ok()) {
    return std::string(target.message());
  }
  return "";
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open file"));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read error"));
  return buffer.str();
}

// The one summary line of a successful compile.
std::string Summary(const CompileFlags& flags, const aot::CompiledArtifact& compiled) {
  const aot::CompileStatistics& s = compiled.statistics;
  std::string wrote;
  if (!flags.output.empty()) {
    wrote = absl::StrFormat("wrote %s (%d bytes)", flags.output, compiled.bytes.size());
  }
  if (!s.dumped_files.empty()) {
    absl::StrAppend(&wrote, wrote.empty() ? "wrote " : " and ", flags.options.dump_dir, "/{",
                    absl::StrJoin(s.dumped_files, ","), "}");
  }
  std::string phases;
  for (const auto& [phase, t] : s.phases) {
    if (t >= 0.0005) absl::StrAppendFormat(&phases, "%s %s %.3fs", phases.empty() ? "; phases:" : ",", phase, t);
  }
  if (s.kernel_thunks > 0) {
    absl::StrAppendFormat(&phases, "; %d kernel thunks launch %d compiled kernels",
                          s.kernel_thunks, s.compiled_kernels);
  }
  const double reuse = s.naive_temp_bytes > 0 ? 100.0 * s.temp_bytes / s.naive_temp_bytes : 0.0;
  // The memory report follows the summary line (not with middle_end_only).
  const std::string memory =
      flags.output.empty() ? "" : gpu::FormatMemoryReport(s.memory, "compile: ");
  return absl::StrFormat(
      "compile: %s: %d -> %d instructions, %d -> %d computations, %s; temp %d bytes "
      "(%.1f%% of %d without reuse); %d passes in %.3fs%s%s; %s\n",
      flags.options.source_name, s.instructions_before, s.instructions_after,
      s.computations_before, s.computations_after, s.fusion_stats, s.temp_bytes, reuse,
      s.naive_temp_bytes, s.passes, s.seconds,
      flags.output.empty() ? " (middle end only, no artifact)" : "", phases, wrote) + memory;
}

// Compiles, writes the artifact and (with both -o and --dump_dir) the thunk
// tree as `xla_aot inspect` prints it; the summary line on success.
absl::StatusOr<std::string> Compile(const CompileFlags& flags, std::ostream* verbose,
                                    std::ostream& err) {
  absl::StatusOr<std::string> text = ReadFile(flags.options.source_name);
  if (!text.ok()) return text.status();
  absl::StatusOr<aot::CompiledArtifact> compiled = aot::Compile(*text, flags.options);
  if (!compiled.ok()) return compiled.status();
  if (const std::vector<std::string>& invented = compiled->statistics.invented_constants;
      !invented.empty()) {
    err << "xla_aot compile: warning: invented the values of " << invented.size()
        << " elided constant(s) (" << ElidedConstantsModeName(flags.options.elided_constants);
    if (flags.options.elided_constants == ElidedConstantsMode::kRandom) {
      err << ", seed " << flags.options.elided_constants_seed;
    }
    err << "): results are not the real model's\n";
  }
  if (verbose != nullptr) {
    const aot::CompileStatistics& s = compiled->statistics;
    *verbose << "compile: for " << s.num_replicas << " replica(s) x " << s.num_partitions << " partition(s): "
             << s.num_replicas * s.num_partitions << " device(s) per run\n";
    *verbose << "compile: offloaded to host memory: " << gpu::FormatBytes(s.memory.host_offloaded_bytes)
             << "; device memory peak " << gpu::FormatBytes(s.memory.peak_bytes) << " per device\n";
    if (flags.options.device_memory_bytes > 0) {
      *verbose << "compile: rematerialized " << s.rematerialized
               << " value(s); schedule peak (parameters not counted) "
               << gpu::FormatBytes(s.schedule_peak_before) << " -> "
               << gpu::FormatBytes(s.schedule_peak_after) << "\n";
    }
  }
  if (flags.output.empty()) return Summary(flags, *compiled);
  if (absl::Status s = WriteFileBytes(flags.output, compiled->bytes); !s.ok()) return s;
  if (!flags.options.dump_dir.empty()) {
    std::vector<std::string> inspect_args = {flags.output};
    if (!flags.options.sign_key.empty()) {
      // inspect loads only what it trusts: the signer's public half.
      absl::StatusOr<aot::SigningKey> key = aot::ReadSigningKeyFile(flags.options.sign_key);
      if (!key.ok()) return key.status();
      const std::string pub = flags.options.dump_dir + "/signer.pub";
      if (absl::Status s = WriteFileBytes(pub, gpu::FormatPublicKey(key->public_key)); !s.ok()) return s;
      compiled->statistics.dumped_files.push_back("signer.pub");
      inspect_args.push_back("--trusted_key=" + pub);
    }
    std::ostringstream inspected, ignored;
    RunInspect(inspect_args, inspected, ignored);
    const std::string path = flags.options.dump_dir + "/thunks.txt";
    if (absl::Status s = WriteFileBytes(path, inspected.str()); !s.ok()) return s;
    compiled->statistics.dumped_files.push_back("thunks.txt");
  }
  return Summary(flags, *compiled);
}

}  // namespace

int RunCompile(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") {
      out << kCompileHelp;
      return kExitOk;
    }
  }
  CompileFlags flags;
  if (std::string usage = ParseFlags(args, &flags); !usage.empty()) {
    err << "xla_aot compile: " << usage << "\n" << kCompileHelp;
    return kExitUsage;
  }
  if (flags.verbose) {
    flags.options.progress = [&err](absl::string_view line) { err << line << std::flush; };
  }
  absl::StatusOr<std::string> summary = Compile(flags, flags.verbose ? &err : nullptr, err);
  if (!summary.ok()) {
    err << "xla_aot compile: " << summary.status().message() << "\n";
    return kExitBadInput;
  }
  out << *summary;
  return kExitOk;
}

}  // namespace xla::cli
