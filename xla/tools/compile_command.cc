#include "xla/tools/compile_command.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/parser/hlo_printer.h"
#include "xla/hlo/verifier/hlo_verifier.h"
#include "xla/service/middle_end.h"
#include "xla/tools/exit_codes.h"

namespace xla::cli {

const char kCompileHelp[] =
    "usage: xla_aot compile FILE.hlo --dump_dir=DIR [--dump_passes] [--max_fold_elements=N]\n"
    "                               [--allow_inexact] [--no_loop_opts] [--no_fusion]\n"
    "                               [--no_verify]\n"
    "\n"
    "Runs the compiler's middle end: optimization (call inlining, simplification,\n"
    "bounded constant folding, CSE, DCE, while-loop passes), canonicalization\n"
    "(dot, convolution, reduce), layout assignment, fusion, scheduling and\n"
    "buffer assignment (checked). MIDDLE END ONLY for now: kernel emission is\n"
    "not wired in yet, so no .xaot artifact is written.\n"
    "\n"
    "  --dump_dir=DIR          write into DIR (required): after_optimizations.hlo\n"
    "                          (fused and scheduled), schedule.txt,\n"
    "                          buffer_assignment.txt, pass_timings.txt\n"
    "  --dump_passes           also write the module after every pass to\n"
    "                          DIR/passes/NN-<pipeline>/NN.<pipeline>.<pass>.hlo\n"
    "  --max_fold_elements=N   fold constants of at most N elements (default 65536)\n"
    "  --allow_inexact         allow rewrites that may round differently\n"
    "                          (x / c -> x * (1/c) for any float constant)\n"
    "  --no_loop_opts          skip while-loop invariant code motion and trip counts\n"
    "  --no_fusion             one kernel per op (no fusion passes)\n"
    "  --no_verify             do not verify after every pass (the input and the\n"
    "                          result are always verified)\n";

namespace {

struct CompileFlags {
  std::string module_path;
  std::string dump_dir;
  bool dump_passes = false;
  MiddleEndOptions options;
};

// Parses flags; returns an error message for bad usage.
std::string ParseFlags(const std::vector<std::string>& args, CompileFlags* f) {
  f->options.verify_after_each = true;
  for (const std::string& arg : args) {
    auto value = [&arg](absl::string_view flag) -> std::optional<std::string> {
      if (!absl::StartsWith(arg, flag)) return std::nullopt;
      return arg.substr(flag.size());
    };
    if (auto v = value("--dump_dir=")) {
      f->dump_dir = *v;
    } else if (auto v = value("--max_fold_elements=")) {
      if (!absl::SimpleAtoi(*v, &f->options.optimize.max_fold_elements) || f->options.optimize.max_fold_elements < 0) {
        return absl::StrCat("bad --max_fold_elements value '", *v, "'");
      }
    } else if (arg == "--dump_passes") {
      f->dump_passes = true;
    } else if (arg == "--allow_inexact") {
      f->options.optimize.allow_inexact = true;
    } else if (arg == "--no_loop_opts") {
      f->options.optimize.loop_optimizations = false;
    } else if (arg == "--no_fusion") {
      f->options.fusion = false;
    } else if (arg == "--no_verify") {
      f->options.verify_after_each = false;
    } else if (absl::StartsWith(arg, "-")) {
      return absl::StrCat("unknown flag '", arg, "'");
    } else if (f->module_path.empty()) {
      f->module_path = arg;
    } else {
      return absl::StrCat("unexpected argument '", arg, "' (one module file only)");
    }
  }
  if (f->module_path.empty()) return "no module file";
  if (f->dump_dir.empty()) return "--dump_dir=DIR is required";
  return "";
}

absl::Status WriteFile(const std::string& path, const std::string& text) {
  std::ofstream file(path);
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
absl::StatusOr<std::string> Compile(const CompileFlags& flags) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModuleFile(flags.module_path);
  if (!module.ok()) return module.status();
  if (absl::Status v = VerifyModule(**module); !v.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(flags.module_path, ": verifier: ", v.message()));
  }
  std::error_code ec;
  std::filesystem::create_directories(flags.dump_dir, ec);
  if (ec) return absl::PermissionDeniedError(absl::StrCat("cannot create ", flags.dump_dir));
  MiddleEndOptions options = flags.options;
  if (flags.dump_passes) options.dump_dir = flags.dump_dir + "/passes";
  const int64_t before = InstructionCount(**module);
  const size_t computations_before = (*module)->computations().size();
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<MiddleEndResult> result = RunMiddleEnd(module->get(), options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!result.ok()) return result.status();
  if (absl::Status v = VerifyModule(**module); !v.ok()) {
    return absl::InternalError(absl::StrCat("compiled module does not verify: ", v.message()));
  }
  const std::string text = PrintModule(**module);
  if (absl::StatusOr<std::unique_ptr<HloModule>> back = ParseHloModule(text); !back.ok()) {
    return absl::InternalError(absl::StrCat("compiled module does not parse back: ",
                                            back.status().message()));
  }
  const std::vector<std::pair<std::string, std::string>> files = {
      {"after_optimizations.hlo", text},
      {"schedule.txt", result->schedule.ToString()},
      {"buffer_assignment.txt", result->assignment->ToString()},
      {"pass_timings.txt", result->TimingsReport()},
  };
  for (const auto& [name, contents] : files) {
    if (absl::Status s = WriteFile(flags.dump_dir + "/" + name, contents); !s.ok()) return s;
  }
  const BufferAssignment& ba = *result->assignment;
  return absl::StrFormat(
      "compile: %s: %d -> %d instructions, %d -> %d computations, %s; temp %d bytes "
      "(%.1f%% of %d without reuse); %d passes in %.3fs (middle end only, no artifact); "
      "wrote %s/{after_optimizations.hlo,schedule.txt,buffer_assignment.txt,pass_timings.txt}\n",
      flags.module_path, before, InstructionCount(**module), computations_before,
      (*module)->computations().size(), result->stats.ToString(), ba.total_temp_bytes(),
      ba.naive_temp_bytes() > 0 ? 100.0 * ba.total_temp_bytes() / ba.naive_temp_bytes() : 0.0,
      ba.naive_temp_bytes(), result->timings.size(), seconds, flags.dump_dir);
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
  absl::StatusOr<std::string> summary = Compile(flags);
  if (!summary.ok()) {
    err << "xla_aot compile: " << summary.status().message() << "\n";
    return kExitBadInput;
  }
  out << *summary;
  return kExitOk;
}

}  // namespace xla::cli
