#include "xla/tools/compile_flags.h"

#include <climits>
#include <cstdint>
#include <cstring>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "xla/backends/gpu/runtime/memory_report.h"
#include "xla/tools/elided_constant_flags.h"

namespace xla::cli {
namespace {

// Flags that set one bool of CompileOptions.
struct BoolFlag {
  const char* name;
  bool aot::CompileOptions::*field;
  bool value;
};
constexpr BoolFlag kBoolFlags[] = {
    {"--emit_cubin_with_ptx", &aot::CompileOptions::emit_cubin_with_ptx, true},
    {"--emit_collectives", &aot::CompileOptions::emit_collectives, true},
    {"--emit_cudnn_convolutions", &aot::CompileOptions::emit_cudnn_convolutions, true},
    {"--emit_fft", &aot::CompileOptions::emit_fft, true},
    {"--emit_host_transfers", &aot::CompileOptions::emit_host_transfers, true},
    {"--offload_scan_stacks", &aot::CompileOptions::offload_scan_stacks, true},
    {"--dump_passes", &aot::CompileOptions::dump_passes, true},
    {"--allow_inexact", &aot::CompileOptions::allow_inexact, true},
    {"--no_loop_opts", &aot::CompileOptions::loop_optimizations, false},
    {"--no_fusion", &aot::CompileOptions::fusion, false},
    {"--direct_convolutions", &aot::CompileOptions::convolution_as_gemm, false},
    {"--no_verify", &aot::CompileOptions::verify_after_each, false},
    {"--no_optimized_hlo", &aot::CompileOptions::include_optimized_hlo, false},
};

// Flags "--name=N" that set one int of CompileOptions, within [0, max].
struct IntFlag {
  const char* name;
  int aot::CompileOptions::*field;
  int max;
  const char* range;  // for the message
};
constexpr IntFlag kIntFlags[] = {
    {"--opt_level=", &aot::CompileOptions::opt_level, 3, " (use 0, 1, 2 or 3)"},
    {"--host_fallback_opt_level=", &aot::CompileOptions::host_fallback_opt_level, 3,
     " (use 0, 1, 2 or 3)"},
    {"--host_fallback_machine_code_level=", &aot::CompileOptions::host_fallback_machine_code_level,
     3, " (use 0, 1, 2 or 3)"},
    {"--compile_threads=", &aot::CompileOptions::compile_threads, INT_MAX, " (0 or more)"},
    {"--compile_parts=", &aot::CompileOptions::compile_parts, INT_MAX, " (0 or more)"},
};

// Flags "--name=TEXT" that set one string of CompileOptions.
struct StringFlag {
  const char* name;
  std::string aot::CompileOptions::*field;
};
constexpr StringFlag kStringFlags[] = {
    {"--target=", &aot::CompileOptions::target},
    {"--host_cpu=", &aot::CompileOptions::host_cpu},
    {"--target_runtime=", &aot::CompileOptions::target_runtime},
    {"--dump_dir=", &aot::CompileOptions::dump_dir},
};

// What the Apply*Flag functions return for a flag that applied cleanly.
const std::optional<std::string> kApplied = std::string();

// Applies `arg` when it is one of the table flags: nullopt when it is not,
// else an error message ("" when it applied).
std::optional<std::string> ApplyTableFlag(const std::string& arg, aot::CompileOptions* o) {
  for (const BoolFlag& f : kBoolFlags) {
    if (arg == f.name) {
      o->*f.field = f.value;
      return kApplied;
    }
  }
  for (const StringFlag& f : kStringFlags) {
    if (absl::StartsWith(arg, f.name)) {
      o->*f.field = arg.substr(strlen(f.name));
      return kApplied;
    }
  }
  for (const IntFlag& f : kIntFlags) {
    if (!absl::StartsWith(arg, f.name)) continue;
    const std::string v = arg.substr(strlen(f.name));
    int n = -1;
    if (!absl::SimpleAtoi(v, &n) || n < 0 || n > f.max) {
      return absl::StrCat("bad ", absl::string_view(f.name).substr(0, strlen(f.name) - 1),
                          " value '", v, "'", f.range);
    }
    o->*f.field = n;
    return kApplied;
  }
  return std::nullopt;
}

// The flags with a value of their own shape; same contract as ApplyTableFlag.
std::optional<std::string> ApplyOtherFlag(const std::string& arg, aot::CompileOptions* o) {
  auto value = [&arg](absl::string_view flag) -> std::optional<std::string> {
    if (!absl::StartsWith(arg, flag)) return std::nullopt;
    return arg.substr(flag.size());
  };
  if (auto v = value("--host_cpu_variants=")) {
    o->host_cpu_variants.clear();
    for (absl::string_view cpu : absl::StrSplit(*v, ',', absl::SkipEmpty())) {
      if (cpu != "none") o->host_cpu_variants.emplace_back(cpu);
    }
    return kApplied;
  }
  for (const auto& [flag, field] : {std::pair{"--num_replicas=", &o->num_replicas},
                                     std::pair{"--num_partitions=", &o->num_partitions}}) {
    if (auto v = value(flag)) {
      int64_t n = 0;
      if (!absl::SimpleAtoi(*v, &n) || n < 1) return absl::StrCat("bad ", flag, *v, " (an integer >= 1)");
      *field = n;
      return kApplied;
    }
  }
  if (auto v = value("--allow_custom_calls=")) {
    for (absl::string_view name : absl::StrSplit(*v, ',', absl::SkipEmpty())) {
      o->allowed_custom_calls.emplace_back(name);
    }
    if (o->allowed_custom_calls.empty()) {
      return std::string("--allow_custom_calls needs one or more target names (NAME,...)");
    }
    return kApplied;
  }
  if (auto v = value("--sign_key=")) {
    if (v->empty()) return std::string("--sign_key needs a secret key file (NAME.secret)");
    o->sign_key = std::string(*v);
    return kApplied;
  }
  if (auto v = value("--checksum=")) {
    if (*v == "fnv1a64") {
      o->checksum = aot::PayloadChecksum::kFnv1a64;
      return kApplied;
    }
    if (*v == "crc32c") {
      o->checksum = aot::PayloadChecksum::kCrc32c;
      return kApplied;
    }
    return absl::StrCat("bad --checksum value '", *v, "' (fnv1a64 or crc32c)");
  }
  if (auto v = value("--fuse_attention=")) {
    if (*v != "on" && *v != "off") {
      return absl::StrCat("bad --fuse_attention value '", *v, "' (on or off)");
    }
    o->fuse_attention = *v == "on";
    return kApplied;
  }
  if (auto v = value("--fp8_gemm=")) {
    if (*v == "widen") {
      o->fp8_gemm = aot::Fp8Gemm::kWiden;
      return kApplied;
    }
    if (*v == "cublaslt") {
      o->fp8_gemm = aot::Fp8Gemm::kCublasLt;
      return kApplied;
    }
    return absl::StrCat("bad --fp8_gemm value '", *v, "' (widen or cublaslt)");
  }
  if (auto v = value("--gpu_f32_dot_precision=")) {
    std::optional<DotPrecision> p = ParseDotPrecision(*v);
    if (!p.has_value()) {
      return absl::StrCat("bad --gpu_f32_dot_precision value '", *v, "' (default, high or highest)");
    }
    o->gpu_f32_dot_precision = *p;
    return kApplied;
  }
  if (auto v = value("--device_memory=")) {
    absl::StatusOr<int64_t> bytes = gpu::ParseByteSize(*v);
    if (!bytes.ok()) return absl::StrCat("--device_memory: ", bytes.status().message());
    o->device_memory_bytes = *bytes;
    return kApplied;
  }
  if (auto v = value("--max_fold_elements=")) {
    int64_t& n = o->max_fold_elements;
    if (!absl::SimpleAtoi(*v, &n) || n < 0) {
      return absl::StrCat("bad --max_fold_elements value '", *v, "'");
    }
    return kApplied;
  }
  return std::nullopt;
}

// --elided_constants and its seed; same contract as ApplyTableFlag.
std::optional<std::string> ApplyElidedFlag(const std::string& arg, aot::CompileOptions* o) {
  std::string error;
  ElidedConstantFlags elided;
  if (!ParseElidedConstantFlag(arg, &elided, &error)) return std::nullopt;
  if (!error.empty()) return error;
  if (elided.mode.has_value()) o->elided_constants = *elided.mode;
  if (elided.seed.has_value()) o->elided_constants_seed = *elided.seed;
  return kApplied;
}

}  // namespace

std::optional<std::string> ApplyCompileFlag(const std::string& arg, aot::CompileOptions* options) {
  std::optional<std::string> applied = ApplyElidedFlag(arg, options);
  if (!applied.has_value()) applied = ApplyTableFlag(arg, options);
  if (!applied.has_value()) applied = ApplyOtherFlag(arg, options);
  return applied;
}

absl::Status ApplyCompileOption(absl::string_view name, absl::string_view value,
                                aot::CompileOptions* options) {
  const std::string flag = absl::StrCat("--", name);
  for (const BoolFlag& f : kBoolFlags) {
    if (flag != f.name) continue;
    if (value != "true" && value != "false") {
      return absl::InvalidArgumentError(
          absl::StrCat("compile option '", name, "' is a switch: give True or False, not '", value, "'"));
    }
    options->*f.field = value == "true" ? f.value : !f.value;
    return absl::OkStatus();
  }
  std::optional<std::string> applied = ApplyCompileFlag(absl::StrCat(flag, "=", value), options);
  if (!applied.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown compile option '", name, "' (the options are the flags of `xla_aot compile --help` "
        "without their dashes, e.g. opt_level=2, no_fusion=True)"));
  }
  if (!applied->empty()) {
    return absl::InvalidArgumentError(absl::StrCat("compile option '", name, "': ", *applied));
  }
  return absl::OkStatus();
}

}  // namespace xla::cli
