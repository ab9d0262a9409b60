#include "xla/tools/compile_command.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/str_format.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/parser/hlo_printer.h"
#include "xla/hlo/verifier/hlo_verifier.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "xla/backends/gpu/codegen/nvptx/nvptx_target.h"
#include "xla/backends/gpu/compiler/gpu_compiler.h"
#include "xla/backends/gpu/compiler/host_compiler.h"
#include "xla/service/middle_end.h"
#include "xla/util/proto_util.h"
#include "xla/tools/exit_codes.h"
#include "xla/tools/inspect_command.h"

namespace xla::cli {

const char kCompileHelp[] =
    "usage: xla_aot compile FILE.hlo (-o OUT.xaot | --dump_dir=DIR) [--target=host]\n"
    "                       [--dump_passes] [--max_fold_elements=N] [--allow_inexact]\n"
    "                       [--no_loop_opts] [--no_fusion] [--direct_convolutions]\n"
    "                       [--no_verify] [--host_cpu=CPU] [--host_cpu_variants=CPU,...]\n"
    "                       [--opt_level=N] [--target_runtime=YYYY-MM-DD]\n"
    "                       [--emit_cubin_with_ptx] [--emit_collectives] [-v]\n"
    "                       [--checksum=fnv1a64|crc32c]\n"
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
    "                          pass_timings.txt; with -o and target host also\n"
    "                          compile_timings.txt (wall time per compile phase),\n"
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
    "  --host_cpu=CPU          LLVM CPU for host kernels (default x86-64-v2;\n"
    "                          \"native\" for this machine)\n"
    "  --host_cpu_variants=CPU,...  also store the host kernels built for these\n"
    "                          CPUs (e.g. x86-64-v3,x86-64-v4): a runtime runs\n"
    "                          the widest its CPU has, else the --host_cpu one;\n"
    "                          same results (default x86-64-v3; \"none\")\n"
    "  --target_runtime=DATE   the build date of the oldest runtime that must load\n"
    "                          the artifact: newer constructs get their legacy form,\n"
    "                          or compiling fails naming the feature (see\n"
    "                          docs/aot_compatibility.md)\n"
    "  --checksum=ALGORITHM    the payload checksum: fnv1a64 (default; every\n"
    "                          runtime reads it) or crc32c (about 10x faster to\n"
    "                          check at load; staged rollout: needs runtimes from\n"
    "                          2026-11-30, and --target_runtime before that falls\n"
    "                          back to fnv1a64)\n"
    "  --emit_cubin_with_ptx   sm_XX: store each kernel's cubin and PTX together\n"
    "                          (the runtime JITs the PTX when the cubin does not\n"
    "                          fit the GPU); needs runtimes from 2026-11-29\n"
    "  --emit_collectives      compile all-reduce, all-gather, reduce-scatter,\n"
    "                          all-to-all, collective-permute, collective-broadcast,\n"
    "                          replica-id and partition-id into collective thunks\n"
    "                          (staged rollout: needs runtimes from 2026-11-30;\n"
    "                          run the artifact with\n"
    "                          `xla_aot run --replicas=N` or under mpirun with\n"
    "                          xla_aot_mpi_run; sm_XX artifacts run on N GPUs\n"
    "                          through NCCL with `xla_aot run --replicas=N`)\n"
    "  --opt_level=N           LLVM optimization level for host kernels, 0..3\n"
    "                          (default 3; 0 compiles fastest)\n"
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
  std::string module_path;
  std::string output;
  std::string dump_dir;
  std::string target = "host";
  bool dump_passes = false;
  bool emit_cubin_with_ptx = false;
  gpu::HostCompilerOptions compiler;
  // Where -v writes progress lines; null without -v.
  std::ostream* progress = nullptr;
  bool verbose = false;
};

// Parses flags; returns an error message for bad usage.
std::string ParseFlags(const std::vector<std::string>& args, CompileFlags* f) {
  f->compiler.middle_end.verify_after_each = true;
  f->compiler.cpu_variants = {gpu::kDefaultHostCpuVariant};
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&arg](absl::string_view flag) -> std::optional<std::string> {
      if (!absl::StartsWith(arg, flag)) return std::nullopt;
      return arg.substr(flag.size());
    };
    if (arg == "-o") {
      if (i + 1 == args.size()) return "-o needs a file name";
      f->output = args[++i];
    } else if (auto v = value("--output=")) {
      f->output = *v;
    } else if (auto v = value("--target=")) {
      f->target = *v;
    } else if (auto v = value("--host_cpu=")) {
      f->compiler.object.cpu = *v;
    } else if (auto v = value("--host_cpu_variants=")) {
      f->compiler.cpu_variants.clear();
      for (absl::string_view cpu : absl::StrSplit(*v, ',', absl::SkipEmpty())) {
        if (cpu != "none") f->compiler.cpu_variants.emplace_back(cpu);
      }
    } else if (auto v = value("--target_runtime=")) {
      f->compiler.target_runtime = *v;
    } else if (auto v = value("--checksum=")) {
      if (*v == "fnv1a64") {
        f->compiler.checksum = gpu::CHECKSUM_ALGORITHM_FNV1A_64;
      } else if (*v == "crc32c") {
        f->compiler.checksum = gpu::CHECKSUM_ALGORITHM_CRC32C;
      } else {
        return absl::StrCat("bad --checksum value '", *v, "' (fnv1a64 or crc32c)");
      }
    } else if (arg == "--emit_cubin_with_ptx") {
      f->emit_cubin_with_ptx = true;
    } else if (arg == "--emit_collectives") {
      f->compiler.thunks.emit_collectives = true;
    } else if (auto v = value("--opt_level=")) {
      int level = -1;
      if (!absl::SimpleAtoi(*v, &level) || level < 0 || level > 3) {
        return absl::StrCat("bad --opt_level value '", *v, "' (use 0, 1, 2 or 3)");
      }
      f->compiler.object.opt_level = level;
    } else if (auto v = value("--dump_dir=")) {
      f->dump_dir = *v;
    } else if (auto v = value("--max_fold_elements=")) {
      if (!absl::SimpleAtoi(*v, &f->compiler.middle_end.optimize.max_fold_elements) || f->compiler.middle_end.optimize.max_fold_elements < 0) {
        return absl::StrCat("bad --max_fold_elements value '", *v, "'");
      }
    } else if (arg == "--dump_passes") {
      f->dump_passes = true;
    } else if (arg == "--allow_inexact") {
      f->compiler.middle_end.optimize.allow_inexact = true;
    } else if (arg == "--no_loop_opts") {
      f->compiler.middle_end.optimize.loop_optimizations = false;
    } else if (arg == "--no_fusion") {
      f->compiler.middle_end.fusion = false;
    } else if (arg == "--direct_convolutions") {
      f->compiler.middle_end.convolution_as_gemm = false;
    } else if (arg == "--no_verify") {
      f->compiler.middle_end.verify_after_each = false;
    } else if (arg == "-v" || arg == "--verbose") {
      f->verbose = true;
    } else if (auto v = value("--compile_threads=")) {
      if (!absl::SimpleAtoi(*v, &f->compiler.object.threads) || f->compiler.object.threads < 0) {
        return absl::StrCat("bad --compile_threads value '", *v, "' (0 or more)");
      }
    } else if (auto v = value("--compile_parts=")) {
      if (!absl::SimpleAtoi(*v, &f->compiler.object.parts) || f->compiler.object.parts < 0) {
        return absl::StrCat("bad --compile_parts value '", *v, "' (0 or more)");
      }
    } else if (absl::StartsWith(arg, "-")) {
      return absl::StrCat("unknown flag '", arg, "'");
    } else if (f->module_path.empty()) {
      f->module_path = arg;
    } else {
      return absl::StrCat("unexpected argument '", arg, "' (one module file only)");
    }
  }
  if (f->module_path.empty()) return "no module file";
  if (f->dump_dir.empty() && f->output.empty()) return "give -o OUT.xaot, --dump_dir=DIR or both";
  if (f->target != "host" && !gpu::FindNvptxTarget(f->target).ok()) {
    return std::string(gpu::FindNvptxTarget(f->target).status().message()) + ", or host";
  }
  return "";
}

absl::Status WriteFile(const std::string& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary);
  file << text;
  file.close();
  if (!file) return absl::PermissionDeniedError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

int64_t InstructionCount(const HloModule& m) {
  int64_t n = 0;
  for (const auto& c : m.computations()) n += c->instruction_count();
  return n;
}

// Optimizes and writes the outputs; the summary line on success.
absl::StatusOr<std::string> Compile(CompileFlags& flags) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModuleFile(flags.module_path);
  if (!module.ok()) return module.status();
  if (absl::Status v = VerifyModule(**module); !v.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(flags.module_path, ": verifier: ", v.message()));
  }
  std::map<std::string, std::string> llvm_ir;  // stage -> text
  if (!flags.dump_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(flags.dump_dir, ec);
    if (ec) return absl::PermissionDeniedError(absl::StrCat("cannot create ", flags.dump_dir));
    if (flags.dump_passes) flags.compiler.middle_end.dump_dir = flags.dump_dir + "/passes";
    flags.compiler.object.ir_observer = [&llvm_ir](const std::string& stage,
                                                   const llvm::Module& m) {
      llvm::raw_string_ostream os(llvm_ir[stage]);
      m.print(os, nullptr);
    };
  }
  if (flags.progress != nullptr) {
    const auto begin = std::chrono::steady_clock::now();
    std::ostream* stream = flags.progress;
    flags.compiler.progress = [stream, begin](const gpu::CompileProgressEvent& e) {
      const double t =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
      *stream << absl::StrFormat("compile: %7.2fs %s\n", t, e.ToString()) << std::flush;
    };
  }
  std::vector<std::pair<std::string, double>> phases;
  flags.compiler.phase_observer = [&phases](const std::string& phase, double seconds) {
    phases.emplace_back(phase, seconds);
  };
  const int64_t before = InstructionCount(**module);
  const size_t computations_before = (*module)->computations().size();
  const auto start = std::chrono::steady_clock::now();
  MiddleEndResult middle;
  std::string artifact;
  if (flags.output.empty()) {
    absl::StatusOr<MiddleEndResult> result = RunMiddleEnd(module->get(), flags.compiler.middle_end);
    if (!result.ok()) return result.status();
    middle = std::move(*result);
  } else if (flags.target == "host") {
    absl::StatusOr<gpu::GpuExecutableProto> proto =
        gpu::CompileModuleToHostArtifactProto(module->get(), flags.compiler, &middle);
    if (!proto.ok()) return proto.status();
    artifact = SerializeDeterministically(*proto);
  } else {
    gpu::GpuCompilerOptions gpu_options;
    gpu_options.middle_end = flags.compiler.middle_end;
    gpu_options.target_runtime = flags.compiler.target_runtime;
    gpu_options.progress = flags.compiler.progress;
    if (flags.emit_cubin_with_ptx) gpu_options.spec = gpu::NvptxSpecChoice::kCubinWithPtx;
    gpu_options.emit_collectives = flags.compiler.thunks.emit_collectives;
    gpu_options.nvptx.threads = flags.compiler.object.threads;
    gpu_options.checksum = flags.compiler.checksum;
    absl::StatusOr<gpu::GpuExecutableProto> proto = gpu::CompileModuleToGpuArtifactProto(
        module->get(), flags.target, gpu_options, &middle, nullptr);
    if (!proto.ok()) return proto.status();
    artifact = SerializeDeterministically(*proto);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (absl::Status v = VerifyModule(**module); !v.ok()) {
    return absl::InternalError(absl::StrCat("compiled module does not verify: ", v.message()));
  }
  if (!flags.output.empty()) {
    if (absl::Status s = WriteFile(flags.output, artifact); !s.ok()) return s;
  }
  if (!flags.dump_dir.empty()) {
    const std::string text = PrintModule(**module);
    if (absl::StatusOr<std::unique_ptr<HloModule>> back = ParseHloModule(text); !back.ok()) {
      return absl::InternalError(absl::StrCat("compiled module does not parse back: ",
                                              back.status().message()));
    }
    const std::vector<std::pair<std::string, std::string>> files = {
        {"after_optimizations.hlo", text},
        {"schedule.txt", middle.schedule.ToString()},
        {"buffer_assignment.txt", middle.assignment->ToString()},
        {"pass_timings.txt", middle.TimingsReport()},
    };
    for (const auto& [name, contents] : files) {
      if (absl::Status s = WriteFile(flags.dump_dir + "/" + name, contents); !s.ok()) return s;
    }
    if (!phases.empty()) {
      std::string table = absl::StrFormat("%-20s %10s\n", "phase", "seconds");
      for (const auto& [phase, t] : phases) absl::StrAppendFormat(&table, "%-20s %10.3f\n", phase, t);
      absl::StrAppendFormat(&table, "%-20s %10.3f\n", "total", seconds);
      if (absl::Status s = WriteFile(flags.dump_dir + "/compile_timings.txt", table); !s.ok()) {
        return s;
      }
    }
    for (const auto& [stage, text] : llvm_ir) {
      const std::string path = absl::StrCat(flags.dump_dir, "/llvm_ir.", stage, ".ll");
      if (absl::Status s = WriteFile(path, text); !s.ok()) return s;
    }
    if (!flags.output.empty()) {
      // The artifact as `xla_aot inspect` prints it: header, tables, thunk tree.
      std::ostringstream inspected, ignored;
      RunInspect({flags.output}, inspected, ignored);
      if (absl::Status s = WriteFile(flags.dump_dir + "/thunks.txt", inspected.str()); !s.ok()) {
        return s;
      }
    }
  }
  const BufferAssignment& ba = *middle.assignment;
  std::string wrote;
  if (!flags.output.empty()) {
    wrote = absl::StrFormat("wrote %s (%d bytes)", flags.output, artifact.size());
  }
  if (!flags.dump_dir.empty()) {
    absl::StrAppend(&wrote, wrote.empty() ? "wrote " : " and ", flags.dump_dir,
                    "/{after_optimizations.hlo,schedule.txt,buffer_assignment.txt,pass_timings.txt}");
  }
  std::string phase_summary;
  for (const auto& [phase, t] : phases) {
    if (t >= 0.0005) absl::StrAppendFormat(&phase_summary, "%s %s %.3fs",
                                          phase_summary.empty() ? "; phases:" : ",", phase, t);
  }
  return absl::StrFormat(
      "compile: %s: %d -> %d instructions, %d -> %d computations, %s; temp %d bytes "
      "(%.1f%% of %d without reuse); %d passes in %.3fs%s%s; %s\n",
      flags.module_path, before, InstructionCount(**module), computations_before,
      (*module)->computations().size(), middle.stats.ToString(), ba.total_temp_bytes(),
      ba.naive_temp_bytes() > 0 ? 100.0 * ba.total_temp_bytes() / ba.naive_temp_bytes() : 0.0,
      ba.naive_temp_bytes(), middle.timings.size(), seconds,
      flags.output.empty() ? " (middle end only, no artifact)" : "", phase_summary, wrote);
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
  if (flags.verbose) flags.progress = &err;
  absl::StatusOr<std::string> summary = Compile(flags);
  if (!summary.ok()) {
    err << "xla_aot compile: " << summary.status().message() << "\n";
    return kExitBadInput;
  }
  out << *summary;
  return kExitOk;
}

}  // namespace xla::cli
