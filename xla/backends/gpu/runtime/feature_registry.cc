#include "xla/backends/gpu/runtime/feature_registry.h"

#include <algorithm>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/civil_time.h"

namespace xla::gpu {
namespace {

// The first artifact format's date: constructs supported since then need no
// emission flag (every runtime in the window reads them).
constexpr char kFirstFormat[] = "2026-11-29";

// The compiler_flag of a construct emitted only where compiling failed
// before it existed (see feature_registry.h).
constexpr char kOnlyWhereCompilationFailed[] =
    "(none: emitted only where compilation failed before)";

constexpr RuntimeFeature kRegistry[] = {
    // name, kind, construct, runtime_support, flag, default, emission_on, stopped
    {"host_kernels", FeatureKind::kOneofCase, "KernelProto.host_symbol", kFirstFormat, "", true,
     kFirstFormat, ""},
    {"registered_kernels", FeatureKind::kOneofCase, "KernelProto.registered_kernel", kFirstFormat,
     "", true, kFirstFormat, ""},
    {"custom_calls", FeatureKind::kOneofCase, "ThunkProto.custom_call", kFirstFormat, "", true,
     kFirstFormat, ""},
    {"async_streams", FeatureKind::kOneofCase, "ThunkProto.async_start", kFirstFormat, "", true,
     kFirstFormat, ""},
    // Stage 1 (2026-11-29): the runtime loads a cubin and falls back to JIT
    // of the PTX stored beside it; the compiler emits it only with
    // --emit_cubin_with_ptx until at least 2026-12-13 (stage 2).
    {"kernel_spec.cubin_with_ptx", FeatureKind::kOneofCase, "KernelProto.cubin_with_ptx",
     "2026-11-29", "--emit_cubin_with_ptx", false, "", ""},
    // Stage 1 (2026-11-30): collectives and device ids (CollectiveThunkProto)
    // run on the host target; emitted only with --emit_collectives.
    {"collectives", FeatureKind::kOneofCase, "ThunkProto.collective", "2026-11-30",
     "--emit_collectives", false, "", ""},
    // Stage 1 (2026-11-30): the runtime checks CRC-32C payload checksums;
    // the compiler writes them only with --checksum=crc32c until at least
    // 2026-12-14 (stage 2). Legacy form: FNV-1a (target_runtime.h).
    {"payload_checksum.crc32c", FeatureKind::kEnumValue,
     "ChecksumAlgorithmProto.CHECKSUM_ALGORITHM_CRC32C", "2026-11-30", "--checksum=crc32c", false,
     "", ""},
    // Stage 1 (2026-12-02): the kernel thunk fills a device-side table of
    // argument pointers for kernels past the target's kernel-parameter
    // space. No flag: the compiler emits it only for such kernels, which
    // failed in ptxas before, so no artifact that compiled before changes.
    {"kernel_argument_table", FeatureKind::kField, "KernelThunkProto.argument_table", "2026-12-02",
     kOnlyWhereCompilationFailed, false, "", ""},
    // Stage 1 (2026-12-02): typed-FFI attributes of kind bool, array<i64> and
    // array<f64> (FfiAttributeProto cases 5-7). Emitted only for typed-FFI
    // custom calls, which compile only for handlers the compiler registers
    // or targets named by --allow_custom_calls. An older runtime refuses the
    // artifact naming the feature (and, without the header check, the
    // attribute: "no value of a known type").
    {"ffi_attributes.bool", FeatureKind::kOneofCase, "FfiAttributeProto.b", "2026-12-02",
     "--allow_custom_calls", false, "", ""},
    {"ffi_attributes.i64_array", FeatureKind::kOneofCase, "FfiAttributeProto.i64_array",
     "2026-12-02", "--allow_custom_calls", false, "", ""},
    {"ffi_attributes.f64_array", FeatureKind::kOneofCase, "FfiAttributeProto.f64_array",
     "2026-12-02", "--allow_custom_calls", false, "", ""},
    // Stage 1 (2026-12-02): the built-in host handlers for Transformer
    // Engine's fused attention (te_fused_attention_host.h). Required by a
    // host artifact that calls either target; such modules compiled for the
    // host only with --allow_custom_calls before (and ran only where the
    // serving binary registered the handlers), so an older runtime refuses
    // the artifact naming the feature instead of failing at Initialize.
    {"ffi_handlers.te_fused_attention_host", FeatureKind::kFfiHandler,
     "te_fused_attn_forward_ffi and te_fused_attn_backward_ffi for platform host", "2026-12-02",
     "(none: required only by host artifacts calling these targets, which compiled before only "
     "with --allow_custom_calls)",
     false, "", ""},
    // Stage 1 (2026-12-02): FP8 GEMMs through cuBLASLt (GemmThunkProto
    // lhs_type / rhs_type, fields 16-17, and the scales 18-19). An older
    // runtime would read the fp8 bytes as element_type; emitted only on
    // sm_90 with --fp8_gemm=cublaslt (default: widen) until at least
    // 2026-12-16 (stage 2).
    {"gemm.fp8", FeatureKind::kField, "GemmThunkProto.lhs_type", "2026-12-02",
     "--fp8_gemm=cublaslt", false, "", ""},
    // Stage 1 (2026-12-02): convolutions through cuDNN (ConvolutionThunkProto)
    // on CUDA targets; emitted only with --emit_cudnn_convolutions until at
    // least 2026-12-16 (stage 2). Legacy form: im2col + GEMM or a direct
    // kernel, chosen when compiling (--target_runtime before 2026-12-02
    // turns the flag off).
    {"cudnn_convolutions", FeatureKind::kOneofCase, "ThunkProto.convolution", "2026-12-02",
     "--emit_cudnn_convolutions", false, "", ""},
    // Stage 1 (2026-12-02): fft through the device's FFT library
    // (FftThunkProto: Eigen on the host, cuFFT on CUDA); emitted only with
    // --emit_fft until at least 2026-12-16 (stage 2). No legacy form:
    // without the flag, or for a --target_runtime before 2026-12-02, a
    // module with fft fails to compile naming the flag.
    {"fft", FeatureKind::kOneofCase, "ThunkProto.fft", "2026-12-02", "--emit_fft", false, "", ""},
    // Stage 1 (2026-12-03): a forward cuDNN convolution with its bias (+
    // ReLU) epilogue fused (ConvolutionThunkProto.bias / activation, fields
    // 18-19). An older runtime would ignore the fields and return the bare
    // convolution; emitted only with --emit_cudnn_convolutions (off) until
    // at least 2026-12-17 (stage 2). Legacy form: the epilogue stays a
    // separate kernel, decided when compiling (--target_runtime before
    // 2026-12-03 does not fuse).
    {"cudnn_convolutions.fused_epilogue", FeatureKind::kField, "ConvolutionThunkProto.bias",
     "2026-12-03", "--emit_cudnn_convolutions", false, "", ""},
    // Stage 1 (2026-12-03): host transfers (send/recv with
    // is_host_transfer=true) as ThunkProto.host_send / host_recv, served by
    // ExecuteOptions::host_transfers; emitted only with
    // --emit_host_transfers until at least 2026-12-17 (stage 2). No legacy
    // form: without the flag, or for a --target_runtime before 2026-12-03,
    // a module with a host transfer fails to compile naming the flag.
    // Two oneof cases, one construct (the checker's gate reads the list).
    {"host_transfers", FeatureKind::kOneofCase, "ThunkProto.host_send, ThunkProto.host_recv",
     "2026-12-03", "--emit_host_transfers", false, "", ""},
    // Stage 1 (2026-12-03): copies whose offsets follow an enclosing while
    // thunk's iteration (CopyThunkProto.dynamic_offset, field 3), the rows
    // of scan stacks in host memory (issue 25). An older runtime would copy
    // at the fixed offsets, silently; emitted only with
    // --offload_scan_stacks until at least 2026-12-17 (stage 2). Legacy
    // form: the stacks stay on the device (--target_runtime before
    // 2026-12-03 turns the flag off).
    {"copy_thunk.dynamic_offset", FeatureKind::kField, "CopyThunkProto.dynamic_offset",
     "2026-12-03", "--offload_scan_stacks", false, "", ""},
};

// Artifact signing (issue 24; docs/aot_compatibility.md, "Signed
// artifacts").
constexpr PolicyStage kPolicyRollouts[] = {
    {"artifact_signing", 1, "2026-12-02", "2026-12-02",
     "runtimes verify signatures against LoadOptions::trust (default: unsigned allowed, every "
     "signer untrusted); xla_aot compile --sign_key and xla_aot sign sign on request"},
    {"artifact_signing", 2, "2026-12-16", "",
     "xla_aot compile signs by default with the user's own key, created on first use "
     "(~/.config/xla_aot/compiler.secret, as ssh creates its keys), which the same user's xla_aot "
     "run, bench and inspect trust by default"},
    {"artifact_signing", 3, "2027-06-16", "",
     "unsigned host code refused by default (TrustPolicy::unsigned_artifacts = no_host_code), once "
     "every artifact of the 6-month backward window was compiled at stage 2 or later"},
    {"fuse_attention_host", 1, "2026-12-02", "2026-12-02",
     "xla_aot compile --fuse_attention=on rewrites attention in plain HLO into the built-in host "
     "fused-attention call (feature ffi_handlers.te_fused_attention_host); off by default"},
    {"fuse_attention_host", 2, "2026-12-16", "",
     "--fuse_attention on by default for the host's exact (f32) rewrites only, once every runtime "
     "of the 2-week forward window has the handlers: attention with a query axis, grouped 5-D "
     "dots and KV-cache decode steps without a query axis (AttentionRewriterOptions::"
     "fuse_decode_steps true: the host kernel's decode path, 2026-12-03); the inexact 16-bit "
     "rewrite (AttentionRewriterOptions::fuse_16bit) stays behind an explicit "
     "--fuse_attention=on"},
};

absl::Status BadStage(const PolicyStage& s, absl::string_view rule) {
  return absl::InvalidArgumentError(
      absl::StrCat("policy rollout '", s.rollout, "' stage ", s.stage, ": ", rule));
}

// The stage's date (landed, else earliest) as a civil day.
absl::StatusOr<absl::CivilDay> StageDay(const PolicyStage& s) {
  absl::StatusOr<int64_t> earliest = ParseIsoDate(s.earliest);
  if (!earliest.ok()) return BadStage(s, absl::StrCat("earliest: ", earliest.status().message()));
  int64_t day = *earliest;
  if (s.landed[0] != '\0') {
    absl::StatusOr<int64_t> landed = ParseIsoDate(s.landed);
    if (!landed.ok()) return BadStage(s, absl::StrCat("landed: ", landed.status().message()));
    if (*landed < *earliest) return BadStage(s, "landed before its earliest day");
    day = *landed;
  }
  return absl::CivilDay(1970, 1, 1) + day;
}

// The rule between stage `s` and the stage before it, on `before`.
absl::Status CheckStageGap(const PolicyStage& s, const PolicyStage& previous, absl::CivilDay day,
                           absl::CivilDay before) {
  if (s.landed[0] != '\0' && previous.landed[0] == '\0') {
    return BadStage(s, "landed while the stage before it has not");
  }
  if (s.stage == 2 && day - before < kForwardWindowDays) {
    return BadStage(s, absl::StrCat(day - before, " days after stage 1; the forward window needs ",
                                    kForwardWindowDays));
  }
  const absl::CivilDay window_end = absl::CivilDay(absl::CivilMonth(before) + kBackwardWindowMonths) +
                                    (before.day() - 1);
  if (s.stage == 3 && day < window_end) {
    return BadStage(s, absl::StrCat("before ", absl::FormatCivilTime(window_end), ", ",
                                    kBackwardWindowMonths, " months after stage 2"));
  }
  return absl::OkStatus();
}

absl::Status Bad(const RuntimeFeature& f, absl::string_view rule) {
  return absl::InvalidArgumentError(
      absl::StrCat("feature registry entry '", f.name, "': ", rule));
}

// The attribute kinds newer than the first format that `call` uses.
void AddAttributeFeatures(const CustomCallThunkProto& call, std::set<std::string>* out) {
  for (const FfiAttributeProto& a : call.attributes()) {
    switch (a.value_case()) {
      case FfiAttributeProto::kB:
        out->insert("ffi_attributes.bool");
        break;
      case FfiAttributeProto::kI64Array:
        out->insert("ffi_attributes.i64_array");
        break;
      case FfiAttributeProto::kF64Array:
        out->insert("ffi_attributes.f64_array");
        break;
      case FfiAttributeProto::kI64:
      case FfiAttributeProto::kF64:
      case FfiAttributeProto::kStr:
      case FfiAttributeProto::VALUE_NOT_SET:
        break;
    }
  }
}

// True when `gemm` uses a field of "gemm.fp8": per-operand types or scales.
bool UsesFp8Gemm(const GemmThunkProto& gemm) {
  return gemm.has_lhs_type() || gemm.has_rhs_type() || gemm.has_lhs_scale() ||
         gemm.has_rhs_scale();
}

// The custom-call targets `thunk` and the thunks nested in it call.
void AddCustomCallTargets(const ThunkProto& thunk, std::set<std::string>* out) {
  switch (thunk.kind_case()) {
    case ThunkProto::kSequential:
      for (const ThunkProto& t : thunk.sequential().thunks()) AddCustomCallTargets(t, out);
      return;
    case ThunkProto::kWhile:
      for (const ThunkProto& t : thunk.while_().condition().thunks()) AddCustomCallTargets(t, out);
      for (const ThunkProto& t : thunk.while_().body().thunks()) AddCustomCallTargets(t, out);
      return;
    case ThunkProto::kConditional:
      for (const SequentialThunkProto& b : thunk.conditional().branches()) {
        for (const ThunkProto& t : b.thunks()) AddCustomCallTargets(t, out);
      }
      return;
    case ThunkProto::kAsyncStart:
      for (const ThunkProto& t : thunk.async_start().thunks().thunks()) {
        AddCustomCallTargets(t, out);
      }
      return;
    case ThunkProto::kCustomCall:
      out->insert(thunk.custom_call().target_name());
      return;
    default:
      return;
  }
}

void AddThunkFeatures(const ThunkProto& thunk, std::set<std::string>* out) {
  switch (thunk.kind_case()) {
    case ThunkProto::kSequential:
      for (const ThunkProto& t : thunk.sequential().thunks()) AddThunkFeatures(t, out);
      return;
    case ThunkProto::kWhile:
      for (const ThunkProto& t : thunk.while_().condition().thunks()) AddThunkFeatures(t, out);
      for (const ThunkProto& t : thunk.while_().body().thunks()) AddThunkFeatures(t, out);
      return;
    case ThunkProto::kConditional:
      for (const SequentialThunkProto& b : thunk.conditional().branches()) {
        for (const ThunkProto& t : b.thunks()) AddThunkFeatures(t, out);
      }
      return;
    case ThunkProto::kCustomCall:
      out->insert("custom_calls");
      AddAttributeFeatures(thunk.custom_call(), out);
      return;
    case ThunkProto::kAsyncStart:
      // Its nested work needs its own features (an async collective needs
      // "collectives" as well).
      out->insert("async_streams");
      for (const ThunkProto& t : thunk.async_start().thunks().thunks()) AddThunkFeatures(t, out);
      return;
    case ThunkProto::kAsyncDone:
      out->insert("async_streams");
      return;
    case ThunkProto::kCollective:
      out->insert("collectives");
      return;
    case ThunkProto::kConvolution:
      out->insert("cudnn_convolutions");
      if (thunk.convolution().has_bias()) out->insert("cudnn_convolutions.fused_epilogue");
      return;
    case ThunkProto::kFft:
      out->insert("fft");
      return;
    case ThunkProto::kHostSend:
    case ThunkProto::kHostRecv:
      out->insert("host_transfers");
      return;
    case ThunkProto::kKernel:
      if (thunk.kernel().has_argument_table()) out->insert("kernel_argument_table");
      return;
    case ThunkProto::kGemm:
      if (UsesFp8Gemm(thunk.gemm())) out->insert("gemm.fp8");
      return;
    case ThunkProto::kCopy:
      if (thunk.copy().has_dynamic_offset()) out->insert("copy_thunk.dynamic_offset");
      return;
    case ThunkProto::kMemset:
    case ThunkProto::kAllReduce:
    case ThunkProto::KIND_NOT_SET:
      return;
  }
}

}  // namespace

absl::Span<const RuntimeFeature> RuntimeFeatureRegistry() { return kRegistry; }

absl::Span<const PolicyStage> PolicyRollouts() { return kPolicyRollouts; }

absl::Status CheckPolicyRollouts(absl::Span<const PolicyStage> table) {
  for (size_t i = 0; i < table.size(); ++i) {
    const PolicyStage& s = table[i];
    const bool continues = i > 0 && std::string(table[i - 1].rollout) == s.rollout;
    if (s.stage != (continues ? table[i - 1].stage + 1 : 1)) {
      return BadStage(s, "stages of a rollout count 1, 2, 3, in order");
    }
    absl::StatusOr<absl::CivilDay> day = StageDay(s);
    if (!day.ok()) return day.status();
    if (!continues) continue;
    absl::StatusOr<absl::CivilDay> before = StageDay(table[i - 1]);
    if (!before.ok()) return before.status();
    if (absl::Status gap = CheckStageGap(s, table[i - 1], *day, *before); !gap.ok()) return gap;
  }
  return absl::OkStatus();
}

const RuntimeFeature* FindRuntimeFeature(absl::string_view name) {
  for (const RuntimeFeature& f : kRegistry) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

const RuntimeFeature* FindRuntimeFeatureByConstruct(absl::string_view construct) {
  for (const RuntimeFeature& f : kRegistry) {
    if (construct == f.construct) return &f;
  }
  return nullptr;
}

absl::StatusOr<int64_t> ParseIsoDate(absl::string_view date) {
  std::vector<absl::string_view> parts = absl::StrSplit(date, '-');
  int64_t y = 0, m = 0, d = 0;
  if (date.size() != 10 || parts.size() != 3 || !absl::SimpleAtoi(parts[0], &y) ||
      !absl::SimpleAtoi(parts[1], &m) || !absl::SimpleAtoi(parts[2], &d) || m < 1 || m > 12 ||
      d < 1 || d > 31) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", date, "' is not a date of the form YYYY-MM-DD"));
  }
  const absl::CivilDay day(y, static_cast<int>(m), static_cast<int>(d));
  if (day.month() != m || day.day() != d) {
    return absl::InvalidArgumentError(absl::StrCat("'", date, "' is not a calendar date"));
  }
  return day - absl::CivilDay(1970, 1, 1);
}

absl::Status CheckFeatureRegistry(absl::Span<const RuntimeFeature> table) {
  std::set<std::string> names, constructs;
  const int64_t first = ParseIsoDate(kFirstFormat).value();
  for (const RuntimeFeature& f : table) {
    if (!names.insert(f.name).second) return Bad(f, "the name appears twice");
    if (!constructs.insert(f.construct).second) return Bad(f, "the construct appears twice");
    absl::StatusOr<int64_t> support = ParseIsoDate(f.runtime_support);
    if (!support.ok()) return Bad(f, absl::StrCat("runtime_support: ", support.status().message()));
    const bool gated = f.compiler_flag[0] != '\0';
    if (!gated && *support > first) {
      return Bad(f, "a construct added after the first format needs a compiler flag");
    }
    if (f.emission_on[0] != '\0') {
      absl::StatusOr<int64_t> on = ParseIsoDate(f.emission_on);
      if (!on.ok()) return Bad(f, absl::StrCat("emission_on: ", on.status().message()));
      if (gated && *on - *support < kForwardWindowDays) {
        return Bad(f, absl::StrCat("emission turned on ", *on - *support,
                                   " days after runtime support; the forward window needs ",
                                   kForwardWindowDays));
      }
      if (f.emission_stopped[0] != '\0') {
        absl::StatusOr<int64_t> stopped = ParseIsoDate(f.emission_stopped);
        if (!stopped.ok() || *stopped < *on) return Bad(f, "emission_stopped before emission_on");
      }
    } else if (gated && f.flag_default) {
      return Bad(f, "the flag defaults to on but emission_on has no date");
    }
  }
  return absl::OkStatus();
}

absl::Status CheckRemovalsDue(absl::Span<const RuntimeFeature> table, absl::string_view today) {
  absl::StatusOr<int64_t> now = ParseIsoDate(today);
  if (!now.ok()) return now.status();
  const absl::CivilDay now_day = absl::CivilDay(1970, 1, 1) + *now;
  std::string due;
  for (const RuntimeFeature& f : table) {
    if (f.emission_stopped[0] == '\0') continue;
    absl::StatusOr<int64_t> stopped = ParseIsoDate(f.emission_stopped);
    if (!stopped.ok()) return Bad(f, absl::StrCat("emission_stopped: ", stopped.status().message()));
    const absl::CivilDay stop_day = absl::CivilDay(1970, 1, 1) + *stopped;
    const absl::CivilMonth end_month =
        absl::CivilMonth(stop_day) + kBackwardWindowMonths;  // last month of the window
    if (absl::CivilMonth(now_day) <= end_month) continue;
    absl::StrAppend(&due, "\n  ", f.construct, " (feature '", f.name, "', emission stopped ",
                    f.emission_stopped, ", backward window through ", absl::FormatCivilTime(end_month),
                    "): delete its runtime fallback and this registry entry, and mark the field "
                    "number and name `reserved` in the proto");
  }
  if (due.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("constructs past the ", kBackwardWindowMonths,
                   "-month backward window on ", today, ":", due));
}

absl::StatusOr<std::vector<std::string>> FeaturesSupportedOn(absl::string_view date) {
  absl::StatusOr<int64_t> day = ParseIsoDate(date);
  if (!day.ok()) return day.status();
  std::vector<std::string> out;
  for (const RuntimeFeature& f : kRegistry) {
    if (ParseIsoDate(f.runtime_support).value() <= *day) out.push_back(f.name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> RequiredFeaturesOf(const GpuExecutablePayloadProto& payload) {
  std::set<std::string> used;
  for (const KernelProto& k : payload.kernels()) {
    switch (k.spec_case()) {
      case KernelProto::kHostSymbol:
        used.insert("host_kernels");
        break;
      case KernelProto::kRegisteredKernel:
        used.insert("registered_kernels");
        break;
      case KernelProto::kCubinWithPtx:
        used.insert("kernel_spec.cubin_with_ptx");
        break;
      case KernelProto::kPtx:
      case KernelProto::kCubin:
      case KernelProto::SPEC_NOT_SET:
        break;
    }
  }
  for (const ThunkProto& t : payload.thunks()) AddThunkFeatures(t, &used);
  return std::vector<std::string>(used.begin(), used.end());
}

std::vector<std::string> RequiredFeaturesOf(const GpuExecutableProto& artifact) {
  std::vector<std::string> used = RequiredFeaturesOf(artifact.payload());
  if (artifact.header().checksum_algorithm() == CHECKSUM_ALGORITHM_CRC32C) {
    used.push_back("payload_checksum.crc32c");
  }
  if (artifact.header().target() == "host") {
    std::set<std::string> targets;
    for (const ThunkProto& t : artifact.payload().thunks()) AddCustomCallTargets(t, &targets);
    if (targets.count("te_fused_attn_forward_ffi") + targets.count("te_fused_attn_backward_ffi")) {
      used.push_back("ffi_handlers.te_fused_attention_host");
    }
  }
  std::sort(used.begin(), used.end());
  return used;
}

}  // namespace xla::gpu
